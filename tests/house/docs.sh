#!/usr/bin/env bash
# The documents a newcomer reads stay short and their links lead somewhere
# (issue 42): fs/README.md, the whole picture of the daemon, at most 250
# lines; every relative markdown link in README.md and in fs/**/*.md names a
# file or folder that exists, and where it names a heading (FILE#anchor, or
# #anchor in the same file) of a markdown file, that heading exists (GitHub's
# anchors: lower case, punctuation dropped, spaces as hyphens).  Fails naming
# the document, its line and the link.
set -u
root=${CF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
exec python3 -B - "$root" <<'PY'
import os, re, sys

root = sys.argv[1]
bad = 0
limit = 250

def fail(msg):
    global bad
    print('FAIL: ' + msg)
    bad = 1

def text(path):
    return open(path, encoding='utf-8').read()

def strip_code(s):
    # Links inside fenced blocks and inline code are examples, not links.
    s = re.sub(r'^```.*?^```', lambda m: '\n' * m.group(0).count('\n'), s, flags=re.S | re.M)
    return re.sub(r'`[^`\n]*`', lambda m: 'x' * len(m.group(0)), s)

def anchors(path):
    # The headings outside fenced blocks, as GitHub names their anchors.
    found, seen = set(), {}
    infence = False
    for raw in text(path).splitlines():
        if raw.startswith('```'):
            infence = not infence
            continue
        m = None if infence else re.match(r'#{1,6}\s+(.*?)\s*#*\s*$', raw)
        if not m:
            continue
        h = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', m.group(1)).lower()
        slug = re.sub(r'[^\w\- ]', '', h).replace(' ', '-')
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        found.add(slug if n == 0 else '%s-%d' % (slug, n))
    return found

fsreadme = os.path.join(root, 'fs', 'README.md')
n = len(text(fsreadme).splitlines())
if n > limit:
    fail('fs/README.md has %d lines, more than %d: move detail into a wing (fs/WING/DESIGN.md)' % (n, limit))

docs = [os.path.join(root, 'README.md')]
for d, _, files in os.walk(os.path.join(root, 'fs')):
    docs += [os.path.join(d, f) for f in sorted(files) if f.endswith('.md')]

links = 0
for doc in sorted(docs):
    rel = os.path.relpath(doc, root)
    for lineno, line in enumerate(strip_code(text(doc)).splitlines(), 1):
        for target in re.findall(r'\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)', line):
            if re.match(r'[a-z][a-z0-9+.-]*:', target, re.I):
                continue                      # http:, mailto: ...
            links += 1
            path, _, anchor = target.partition('#')
            dest = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
            if not os.path.exists(dest):
                fail('%s:%d: link to %s: no such file' % (rel, lineno, target))
                continue
            if anchor and dest.endswith('.md') and anchor.lower() not in anchors(dest):
                fail('%s:%d: link to %s: %s has no heading #%s'
                     % (rel, lineno, target, os.path.relpath(dest, root), anchor))
if not bad:
    print('fs/README.md: %d lines (at most %d); %d relative links in %d documents lead somewhere'
          % (n, limit, links, len(docs)))
sys.exit(bad)
PY

#!/usr/bin/env bash
# Each wing of fs/ has a map a newcomer can trust (issue 42): fs/WING/README.md,
# at most 150 lines, whose file table (the first table whose first column is
# "file") names exactly the wing's .c and .h files, each once.  Fails naming
# the map and the files it lacks or names in vain.
set -u
root=${CF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
exec python3 -B - "$root/fs" <<'PY'
import os, re, sys

fs = sys.argv[1]
bad = 0
for wing in sorted(d for d in os.listdir(fs) if os.path.isdir(os.path.join(fs, d))):
    path = os.path.join(fs, wing, 'README.md')
    if not os.path.exists(path):
        print('FAIL: fs/%s/ has no map (fs/%s/README.md)' % (wing, wing)); bad = 1; continue
    lines = open(path, encoding='utf-8').read().splitlines()
    if len(lines) > 150:
        print('FAIL: fs/%s/README.md has %d lines, more than 150' % (wing, len(lines))); bad = 1
    named, intable = [], False
    for line in lines:
        if re.match(r'\|\s*file\s*\|', line):
            intable = True
        elif intable and line.startswith('|'):
            cell = line.split('|')[1]
            named += re.findall(r'`([\w.]+\.[ch])`', cell)
        elif intable:
            break
    files = sorted(f for f in os.listdir(os.path.join(fs, wing)) if f.endswith(('.c', '.h')))
    twice = sorted({f for f in named if named.count(f) > 1})
    lacks = sorted(set(files) - set(named))
    vain = sorted(set(named) - set(files))
    for what, names in (('lacks', lacks), ('names files that are not there:', vain),
                        ('names twice', twice)):
        if names:
            print('FAIL: fs/%s/README.md\'s file table %s %s' % (wing, what, ', '.join(names)))
            bad = 1
    if not bad:
        print('fs/%s/README.md: %d files, %d lines' % (wing, len(files), len(lines)))
sys.exit(bad)
PY

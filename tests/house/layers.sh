#!/usr/bin/env bash
# fs/ is built in layers with no cycle (issue 22): each .c file belongs to
# the module of the header that declares its functions; a module depends on
# every header its files include.  Fails, naming the loop, if the modules'
# dependencies form a cycle; also if any fs/ file other than names.c calls
# libcasefold's matching functions (the rule has one home).
set -u
root=${CF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
exec python3 - "$root/fs" <<'PY'
import os, re, sys

fs = sys.argv[1]
files = sorted(f for f in os.listdir(fs) if f.endswith(('.c', '.h')))
text = {f: open(os.path.join(fs, f), encoding='utf-8').read() for f in files}
headers = [f for f in files if f.endswith('.h')]
include = re.compile(r'^#include "([\w.]+)\.h"', re.M)
defined = re.compile(r'^(?!static\b)[a-z][\w \*]*?\b(\w+)\(', re.M)

def module(f):
    """A header is its own module; a .c file joins the header declaring it."""
    stem = f[:-2]
    if f.endswith('.h'):
        return stem
    for name in defined.findall(text[f]):
        for h in headers:
            if re.search(r'\b%s\(' % re.escape(name), text[h]):
                return h[:-2]
    return stem  # main.c: declares nothing to others

deps = {}
for f in files:
    m = module(f)
    for inc in include.findall(text[f]):
        if inc != m and inc + '.h' in text:
            deps.setdefault(m, set()).add(inc)
    deps.setdefault(m, set())

def find_loop(graph, what):
    """Depth-first search for a cycle; exits naming the loop itself."""
    state, stack = {}, []
    def visit(m):
        state[m] = 'open'
        stack.append(m)
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 'open':
                loop = stack[stack.index(d):] + [d]
                sys.exit('FAIL: %s in a loop: %s' % (what, ' -> '.join(loop)))
            if d not in state:
                visit(d)
        stack.pop()
        state[m] = 'done'
    for m in sorted(graph):
        if m not in state:
            visit(m)

find_loop(deps, 'fs/ modules include each other')

# One header per layer: a header that declares everything (one module of
# every file) would hide any cycle from the check above.
members = {}
for f in files:
    if f.endswith('.c'):
        members.setdefault(module(f), []).append(f)
for m, fl in members.items():
    if len(fl) > 6:
        sys.exit('FAIL: %s.h declares %d files (%s): one header per layer' % (m, len(fl), ' '.join(fl)))

# What the objects really call (nm), if built: calls between files of
# different modules must follow the layers too.
objdir = os.path.join(os.environ.get('CF_BUILD', ''), 'fs')
if os.path.isdir(objdir) and any(f.endswith('.o') for f in os.listdir(objdir)):
    import subprocess
    owner, uses = {}, {}
    for f in files:
        if not f.endswith('.c'):
            continue
        o = os.path.join(objdir, f[:-2] + '.o')
        out = subprocess.run(['nm', o], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] == 'T':
                owner[parts[2]] = module(f)
            elif len(parts) == 2 and parts[0] == 'U':
                uses.setdefault(module(f), set()).add(parts[1])
    calls = {m: {owner[s] for s in u if s in owner and owner[s] != m} for m, u in uses.items()}
    find_loop(calls, 'fs/ modules call each other')
    print('calls checked in', objdir)

matching = re.compile(r"\bcf_(name_match|name_hash\w*|strcmp|strcasecmp|casefold\w*|normalize\w*|validate)\(")
for f in files:
    if f != 'names.c' and matching.search(text[f]):
        sys.exit('FAIL: fs/%s calls libcasefold matching; only fs/names.c may' % f)

print('%d modules in %d files, no cycle; order (bottom up):' % (len(deps), len(files)))
done, order = set(), []
def place(m):
    if m in done:
        return
    done.add(m)
    for d in sorted(deps[m]):
        place(d)
    order.append(m)
for m in sorted(deps):
    place(m)
print(' '.join(order))
PY

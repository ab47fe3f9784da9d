#!/usr/bin/env bash
# fs/ is built in wings and layers with no cycle.  The wings are folders:
# kernel/ (the FUSE request loop, below everything), common/ (what both
# filesystems use), tree/ (the per-directory casefold daemon), view/ (the
# overlay view) and main/ (the daemon's entry, which chooses between
# them).  tree/ and view/ never reach each other; common/ reaches neither;
# kernel/ reaches nothing of ours; nothing reaches main/.  Inside every wing
# each .c file belongs to the module of the header that declares its
# functions; a module depends on every header its files include.  Fails,
# naming the file or the loop, if an include or (in a build) a call crosses
# the wings the wrong way or if the modules' dependencies form a cycle,
# inside a wing or across them, or if two wings have a file of the same
# name; if a file outside kernel/ (bench/'s programs included) includes a
# header of kernel/'s own, not of its interface (the session's insides are
# kernel/'s alone); also if any file other than common/names.c calls
# libcasefold's matching functions (the rule has one home).
set -u
root=${CF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
exec python3 -B - "$root/fs" "$root/include" "$root/tests/house" "$root/bench" <<'PY'
import glob, os, re, sys

fs, public, bench = sys.argv[1], sys.argv[2], sys.argv[4]
sys.path.insert(0, sys.argv[3])
from loops import find_loop
# What each wing may reach (itself included).
reaches = {
    'kernel': {'kernel'},
    'common': {'kernel', 'common'},
    'tree': {'kernel', 'common', 'tree'},
    'view': {'kernel', 'common', 'view'},
    'main': {'kernel', 'common', 'tree', 'view', 'main'},
}
# The headers of kernel/ that other wings may include: the shapes (fk.h,
# proto.h) and the calls (reply.h, notify.h, session.h, uring.h,
# fusermount.h).  Any other header there is kernel/'s own.
interface = {'kernel/' + h for h in
             ('fk.h', 'proto.h', 'reply.h', 'notify.h', 'session.h', 'uring.h', 'fusermount.h')}
loose = [f for f in os.listdir(fs) if f.endswith(('.c', '.h'))]
if loose:
    sys.exit('FAIL: fs/%s is in no wing (kernel/, common/, tree/, view/, main/)' % loose[0])
wings = sorted(d for d in os.listdir(fs) if os.path.isdir(os.path.join(fs, d)))
for w in wings:
    if w not in reaches:
        sys.exit('FAIL: fs/%s/ is a wing with no rule in tests/house/layers.sh' % w)
files = sorted(w + '/' + f for w in wings for f in os.listdir(os.path.join(fs, w))
               if f.endswith(('.c', '.h')))
text = {f: open(os.path.join(fs, f), encoding='utf-8').read() for f in files}
# A bare file name in prose or a stack trace names one file: no two wings
# share one.
seen = {}
for f in files:
    base = f.split('/')[1]
    if base in seen:
        sys.exit('FAIL: fs/%s and fs/%s share a name' % (seen[base], f))
    seen[base] = f
headers = [f for f in files if f.endswith('.h')]
include = re.compile(r'^#include "([\w/.]+)"', re.M)
defined = re.compile(r'^(?!static\b)[a-z][\w \*]*?\b(\w+)\(', re.M)

def wing(m):
    return m.split('/')[0]

def module(f):
    """A header is its own module; a .c file joins the header declaring it."""
    stem = f[:-2]
    if f.endswith('.h'):
        return stem
    for name in defined.findall(text[f]):
        for h in headers:
            if re.search(r'\b%s\(' % re.escape(name), text[h]):
                return h[:-2]
    return stem  # main/main.c: declares nothing to others

def crossing(a, b, how):
    if wing(b) not in reaches[wing(a)]:
        sys.exit('FAIL: fs/%s %s fs/%s: %s/ never reaches %s/' % (a, how, b, wing(a), wing(b)))

deps = {}
for f in files:
    m = module(f)
    deps.setdefault(m, set())
    for inc in include.findall(text[f]):
        if inc in text:
            crossing(f, inc, 'includes')
            if module(inc) != m:
                deps[m].add(module(inc))
        elif not os.path.exists(os.path.join(public, inc)):
            sys.exit('FAIL: fs/%s includes "%s": name it from fs/ (as "common/names.h")' % (f, inc))

find_loop(deps, 'FAIL: fs/ modules include each other in a loop: %s')

# kernel/'s own headers stay in kernel/ (fuzz/fuzz_dispatch.c, its own
# test, is not checked).
outside = [('fs/' + f, text[f]) for f in files if wing(f) != 'kernel']
outside += [(os.path.relpath(b, os.path.dirname(fs)), open(b, encoding='utf-8').read())
            for b in sorted(glob.glob(os.path.join(bench, '*.c')))]
for f, t in outside:
    for inc in include.findall(t):
        if inc.startswith('kernel/') and inc not in interface:
            sys.exit('FAIL: %s includes "%s", which is kernel/\'s own (its interface: %s)' %
                     (f, inc, ' '.join(sorted(h.split('/')[1] for h in interface))))

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
# different modules must follow the wings and the layers too.
objdir = os.path.join(os.environ.get('CF_BUILD', ''), 'fs')
objects = {f: os.path.join(objdir, f[:-2] + '.o') for f in files if f.endswith('.c')}
if all(os.path.exists(o) for o in objects.values()):
    import subprocess
    owner, uses = {}, {}
    for f, o in objects.items():
        out = subprocess.run(['nm', o], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] == 'T':
                owner[parts[2]] = module(f)
            elif len(parts) == 2 and parts[0] == 'U':
                uses.setdefault(module(f), set()).add(parts[1])
    calls = {m: {owner[s] for s in u if s in owner and owner[s] != m} for m, u in uses.items()}
    for m, called in calls.items():
        for c in sorted(called):
            crossing(m, c, 'calls')
    find_loop(calls, 'FAIL: fs/ modules call each other in a loop: %s')
    print('calls checked in', objdir)

matching = re.compile(r"\bcf_(name_match|name_hash\w*|strcmp|strcasecmp|casefold\w*|normalize\w*|validate)\(")
for f in files:
    if f != 'common/names.c' and matching.search(text[f]):
        sys.exit('FAIL: fs/%s calls libcasefold matching; only fs/common/names.c may' % f)

print('%d modules in %d files of %s, no cycle; order (bottom up):' %
      (len(deps), len(files), ', '.join(w + '/' for w in wings)))
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

#!/usr/bin/env bash
# No recursion in the daemon (issue 24): a function that reaches itself
# through direct calls can be driven as deep as a user makes a tree (the
# path-locator reopen once overflowed the stack at 40,000 levels).  Builds
# every wing's files (fs/*/*.c) with gcc's -fcallgraph-info and fails,
# naming the loop, on any cycle among the calls.  Calls through function pointers (fk_ops,
# the operation table that fs/kernel's dispatch calls through) are not
# edges; no handler calls back into fs/kernel's loop.
set -u
root=${CF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
command -v gcc >/dev/null || { echo "SKIP: no gcc"; exit 77; }
fuse=$(pkg-config --cflags fuse3 2>/dev/null) || { echo "SKIP: no fuse3 headers"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for f in "$root"/fs/*/*.c; do
	wing=$(basename "$(dirname "$f")")
	mkdir -p "$tmp/$wing"
	# shellcheck disable=SC2086
	gcc -std=c11 -D_GNU_SOURCE -I"$root/include" -I"$root/fs" $fuse -O0 -fcallgraph-info \
		-c "$f" -o "$tmp/$wing/$(basename "$f" .c).o" -dumpdir "$tmp/$wing/" ||
		{ echo "FAIL: cannot compile $f"; exit 1; }
done
exec python3 -B - "$tmp" "$root/tests/house" <<'PY'
import glob, re, sys

sys.path.insert(0, sys.argv[2])
from loops import find_loop

edges = {}
edge = re.compile(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"')
for f in glob.glob(sys.argv[1] + '/*/*.ci'):
    for a, b in edge.findall(open(f).read()):
        # "fs/wing/x.c:name" for static functions, "name" for the others:
        # kept whole, so that two files' statics of one name stay two
        edges.setdefault(a, set()).add(b)

find_loop(edges, 'FAIL: recursion: %s')
print('no recursion among %d functions of fs/' % len(edges))
PY

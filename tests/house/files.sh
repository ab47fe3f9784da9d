#!/usr/bin/env bash
# No two files of a program reach each other, directly or round a loop
# (the layers of layers.sh are modules of several files: this is the same
# rule file by file, and for lib/, cli/ and gen/ too).  A file reaches
# another when its object calls a function that the other defines, as nm
# tells them; a header of types alone ties nothing, nor does a table of
# pointers (cli/verbs.c names every verb, help.c among them, and help lists
# the table: the calls go one way).  Builds
# each program's files at -O0 into a scratch folder and fails, naming the
# loop, on the first cycle.
set -u
root=${CF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
command -v gcc >/dev/null || { echo "SKIP: no gcc"; exit 77; }
command -v nm >/dev/null || { echo "SKIP: no nm"; exit 77; }
fuse=$(pkg-config --cflags fuse3 2>/dev/null) || { echo "SKIP: no fuse3 headers"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$root" || exit 1
build() { # PROGRAM FLAGS FILE...
	local prog=$1 flags=$2 f
	shift 2
	for f; do
		mkdir -p "$tmp/$prog/$(dirname "$f")"
		# shellcheck disable=SC2086
		gcc -std=c11 -D_GNU_SOURCE -Iinclude $flags -O0 -c "$f" -o "$tmp/$prog/${f%.c}.o" ||
			{ echo "FAIL: cannot compile $f"; exit 1; }
	done
}
build lib "-DCF_BUILDING_LIBRARY -Ilib" lib/*.c lib/tables/*.c
build cli "-Icli" cli/*.c cli/*/*.c
build gen "" gen/*.c
build casefoldfs "-Ifs $fuse" fs/*/*.c
exec python3 -B - "$tmp" "$root/tests/house" <<'PY'
import glob, os, subprocess, sys

sys.path.insert(0, sys.argv[2])
from loops import find_loop

files = 0
for prog in sorted(os.listdir(sys.argv[1])):
    top = os.path.join(sys.argv[1], prog)
    objects = sorted(glob.glob(top + '/**/*.o', recursive=True))
    owner, uses = {}, {}
    for o in objects:
        f = os.path.relpath(o, top)[:-2] + '.c'
        out = subprocess.run(['nm', o], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in 'TW':
                owner[parts[2]] = f
            elif len(parts) == 2 and parts[0] == 'U':
                uses.setdefault(f, set()).add(parts[1])
    reach = {f: {owner[s] for s in u if s in owner and owner[s] != f} for f, u in uses.items()}
    find_loop(reach, 'FAIL: files of ' + prog + ' reach each other in a loop: %s')
    files += len(objects)
print('no loop among the files of lib, cli, gen, casefoldfs (%d files)' % files)
PY

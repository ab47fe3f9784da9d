#!/usr/bin/env bash
# Data coherence under concurrent rewriters (issue 13).  Two processes
# rewrite one file in a casefolded directory — open(O_WRONLY|O_TRUNC)
# through fold-equal spellings, write a 19-byte token, fsync, close — while
# three read it: one through a descriptor held for the whole run, two by
# open, read to EOF, close, also through other spellings.  As on ext4, each
# read must give an empty file or one whole token; the FUSE page cache used
# to return zero bytes of a token's length now and then.  The daemon now
# keeps the page cache out of every open made while the file is open for
# writing (fs/ops_file.c, op_open), so the file is also held open for
# writing for the whole run: that is the case the daemon guarantees (a
# descriptor opened while no writer exists keeps the page cache; see
# fs/tree/DESIGN.md).  The same run on a plain directory of the filesystem
# holding $T is the control, and both runs must show the readers meeting
# the rewrites (empty files and tokens both read), or the test proves nothing.
. "$(dirname "$0")/../lib/fs.sh"

rounds=${CF_COHERENCE_ROUNDS:-1500}   # per writer
seconds=${CF_COHERENCE_SECONDS:-30}   # per run, whatever the load
cf_cc -O2 -o "$T/coherence" "$CF_ROOT/tests/fs/coherence.c" || fail "cannot build the coherence helper"

# run LABEL DIR NAME...: one run of 2 writers and 3 readers on DIR/NAME.
run() {
	local label=$1 dir=$2 out rc writes reads empty whole zeroed torn
	shift 2
	out=$("$T/coherence" "$dir" "$rounds" "$seconds" 2 3 1 "$@")
	rc=$?
	echo "$label: $out"
	[ "$rc" != 2 ] || fail "$label: the helper failed"
	read -r _ writes _ reads _ empty _ whole _ zeroed _ torn _ <<<"$out"
	[ "${empty:-0}" -gt 0 ] && [ "${whole:-0}" -gt 0 ] ||
		fail "$label: the readers never met a rewrite ($writes writes, $reads reads)"
	[ "$rc" = 0 ] || fail "$label: $zeroed zero-filled and $torn torn reads in $reads"
}

mkdir "$T/control"
printf 'w0 r00000000 token\n' >"$T/control/data.txt"
echo "control on $(stat -f -c %T "$T")"
run control "$T/control" data.txt

cfs_mount
casefolded "$M/ci"
printf 'w0 r00000000 token\n' >"$M/ci/data.txt"
run casefoldfs "$M/ci" data.txt DATA.TXT Data.Txt dAtA.tXt
grep -qx 'w[0-9] r[0-9]\{8\} token' "$B/ci/data.txt" ||
	fail "the backing file holds $(od -c "$B/ci/data.txt" | head -n 2)"
[ "$(names "$B/ci")" = data.txt ] || fail "the backing directory holds $(names "$B/ci")"
cfs_umount

#!/usr/bin/env bash
# Case variants do not share one chain (issue 16, finding 6).  32,768
# stored spellings of one 16-letter name, made directly in the backing tree
# of a +F directory (every spelling whose first letter is lower case): an
# inexact lookup must cost a bounded number of comparisons, whatever the
# number of fold-equal names — the index statistics' "longest" (groups in
# the longest bucket, the comparisons one inexact lookup makes) stays
# small, while "collisions" still counts every variant.  The answers stay
# those documented: the exact spelling if stored, else the smallest stored
# in byte order, also after the mount removes and adds variants.
. "$(dirname "$0")/../lib/fs.sh"
command -v python3 >/dev/null || skip "no python3"

mkdir "$B/ci"
setfattr -n ${CFS_XATTRS}casefold -v 1 "$B/ci"
python3 -c '
import itertools, os, sys
rest = [(c.upper(), c) for c in "bcdefghijklmnop"]
for v in itertools.product(*rest):
    open(os.path.join(sys.argv[1], "a" + "".join(v)), "w").close()
for i in range(1000):
    open(os.path.join(sys.argv[1], "other%d" % i), "w").close()' "$B/ci"
cfs_mount
ci=$M/ci

# Not stored (first letter upper case): the smallest stored spelling.
same_file "$ci/ABCDEFGHIJKLMNOP" "$B/ci/aBCDEFGHIJKLMNOP"
same_file "$ci/Abcdefghijklmnop" "$B/ci/aBCDEFGHIJKLMNOP"
# Stored: itself.
same_file "$ci/abcdefghijklmnop" "$B/ci/abcdefghijklmnop"
same_file "$ci/aBcDeFgHiJkLmNoP" "$B/ci/aBcDeFgHiJkLmNoP"
stats=$(getfattr --absolute-names --only-values -n ${CFS_XATTRS}index "$ci")
echo "32,768 variants of one name: $stats"
read -r _ names _ _ _ longest _ collisions _ <<<"$stats"
[ "$names" = 33768 ] || fail "index holds $names names"
[ "$collisions" = 32767 ] || fail "collisions not counted: $collisions"
# 1,001 groups in 2^16 buckets under a secret key: a chain of 8 has a
# probability far below 1e-9.  One chain of all the variants: 32,768.
[ "$longest" -le 8 ] || fail "an inexact lookup walks $longest entries"

# The choice follows removals and additions through the mount.
rm "$ci/aBCDEFGHIJKLMNOP" || fail "unlink the smallest variant"
same_file "$ci/ABCDEFGHIJKLMNOP" "$B/ci/aBCDEFGHIJKLMNOp"
rm "$ci/abcdefghijklmnop" "$ci/aBCDEFGHIJKLMNOp"
same_file "$ci/ABCDEFGHIJKLMNOP" "$B/ci/aBCDEFGHIJKLMNoP"
read -r _ names _ <<<"$(getfattr --absolute-names --only-values -n ${CFS_XATTRS}index "$ci")"
[ "$names" = 33765 ] || fail "index holds $names names after three removals"
expect EEXIST excl "$ci/ABCDEFGHIJKLMNOP"
moved=$(stat -c %i "$B/ci/other1")
expect OK rename "$ci/other1" "$ci/ABCDEFGHIJKLMNOP"   # replaces aBCDEFGHIJKLMNoP
[ "$(stat -c %i "$B/ci/aBCDEFGHIJKLMNoP")" = "$moved" ] || fail "rename onto the chosen variant"
[ "$(stat -c %i "$ci/ABCDEFGHIJKLMNOP")" = "$moved" ] || fail "lookup after the rename"
[ -e "$B/ci/other1" ] && fail "rename did not move other1"
# Every variant removed through the mount leaves the others reachable.
for v in aBcDeFgHiJkLmNoP abcdefghijklmnoP aBCDEFGHIJKLMNoP; do
	rm "$ci/$v" || fail "unlink $v"
done
[ -e "$ci/ABCDEFGHIJKLMNOP" ] || fail "the remaining variants are lost"
[ -e "$ci/OTHER999" ] || fail "the other names are lost"
cfs_umount
echo "variants: ok (longest chain $longest)"

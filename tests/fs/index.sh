#!/usr/bin/env bash
# Hash flooding: 100,000 names crafted to share the low bits of their hash
# under a fixed key (the library's unkeyed hash) would pile into a few
# buckets of an index keyed that way.  The daemon keys its index with a
# random secret per mount, so the same names must spread out: the longest
# bucket chain (the comparisons one inexact lookup can cost, read from the
# directory's casefoldfs.index xattr) stays short.  No timing.
. "$(dirname "$0")/../lib/fs.sh"

count=100000 bits=8
# The build's compiler and flags: a sanitized library needs its runtime.
cf_cc -O2 -o "$T/collide" "$CF_ROOT/tests/fs/collide.c" "$CF_BUILD/libcasefold.a" ||
	fail "cannot build the collide helper"
mkdir "$B/ci"
setfattr -n ${CFS_XATTRS}casefold -v 1 "$B/ci" || fail "flag the backing directory"
fixed=$("$T/collide" "$B/ci" $count $bits) || fail "collide"
read -r _ _ fbuckets _ flongest <<<"$fixed"
echo "under the fixed key: $fbuckets buckets, longest chain $flongest"
[ "$flongest" -ge 100 ] || fail "the crafted names do not collide under the fixed key"

cfs_mount
# Lookups in another case go through the index and find every name tried.
found=0
for n in $(names "$B/ci" | shuf -n 200 --random-source=<(yes)); do
	[ -e "$M/ci/${n^^}" ] && found=$((found + 1))
done
[ $found = 200 ] || fail "only $found of 200 names found in upper case"

stats=$(getfattr --absolute-names --only-values -n ${CFS_XATTRS}index "$M/ci") || fail "no index statistics"
echo "with the mount's key: $stats"
read -r _ names _ buckets _ longest _ collisions _ <<<"$stats"
[ "$names" = $count ] || fail "index holds $names names, expected $count"
[ "$buckets" = "$fbuckets" ] || fail "index has $buckets buckets, the fixed-key model $fbuckets"
[ "$collisions" = 0 ] || fail "$collisions fold-equal names reported"
# 100,000 names hashed at random into 131,072 buckets: the longest chain is
# about 8; 16 has a probability below 1e-9.
[ "$longest" -le 16 ] || fail "longest chain $longest: the crafted names collide in the index"

# Plain directories have no index; files neither.
mkdir "$M/plain"
expect_err() { getfattr -n ${CFS_XATTRS}index "$1" 2>&1 | grep -q "No such attribute" ||
	fail "$1: index statistics where there is no index"; }
expect_err "$M/plain"
touch "$M/plain/file"
expect_err "$M/plain/file"
getfattr -d -m - "$M/ci" 2>/dev/null | grep -q casefoldfs && fail "statistics listed"
setfattr -n ${CFS_XATTRS}index -v x "$M/ci" 2>/dev/null && fail "statistics writable"
cfs_umount
echo "index: ok (longest chain $longest with the mount's key, $flongest with a fixed key)"

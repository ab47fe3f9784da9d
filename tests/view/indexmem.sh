#!/usr/bin/env bash
# The overlay view's merged indexes obey -o index_mem as the tree's do
# (issue 33): a miss in a directory builds its index (~300 bytes a name
# of 250 bytes), and misses in DIRS such directories of PER names each,
# with -o index_mem=1, must leave the daemon's resident memory grown by
# about one index (the one in use) plus the bound, not by all of them;
# and every answer stays right once indexes were freed and are rebuilt —
# names by another spelling, a name removed through the view (its
# whiteout), a listing.  The view has no stats of its own: VmRSS from
# /proc, with the allocators told to give freed memory back at once (no
# ASan quarantine; glibc maps every large block) so that it shows what
# the daemon holds.
. "$(dirname "$0")/lib.sh"
dirs=${CF_INDEXMEM_DIRS:-5} per=${CF_INDEXMEM_PER:-20000}

L=$T/low U=$T/upper W=$T/work
mkdir -p "$L" "$U" "$W"
python3 - "$L" "$dirs" "$per" <<'PY' || fail "lower layer"
import os, sys
low, dirs, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for d in range(dirs):
    p = os.path.join(low, "d%02d" % d)
    os.mkdir(p)
    for i in range(per):
        os.close(os.open(os.path.join(p, "Name%06d" % i + "x" * 240), os.O_CREAT | os.O_WRONLY))
PY
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0
export MALLOC_MMAP_THRESHOLD_=131072
ovl_mount "lowerdir=$L,upperdir=$U,workdir=$W,index_mem=1" overlay
unset MALLOC_MMAP_THRESHOLD_
rss() { sed -n 's/^VmRSS:\s*\([0-9]*\) kB/\1/p' "/proc/$CFS_PID/status"; }
big=$(printf 'x%.0s' $(seq 240))
upbig=$(tr x X <<<"$big")

ls -d "$M"/d* >/dev/null
base=$(rss)
[ -e "$M/d01/missing" ] && fail "d01/missing exists"
one=$(($(rss) - base))
# A name removed through the view (which builds d00's index): its whiteout
# must still hide it when d00's index is rebuilt.
rm "$M/d00/Name000005$big" || fail "rm d00/Name000005"
for d in $(seq 2 $((dirs - 1))); do
	[ -e "$M/d$(printf %02d "$d")/missing" ] && fail "d$d/missing exists"
done
all=$(($(rss) - base))
echo "VmRSS $base kB after mounting; +$one kB after a miss in d01 ($per names)," \
	"+$all kB after an unlink in d00 and misses in d02 to d$(printf %02d $((dirs - 1)))"
# The bound (1 MiB) and the index in use, with as much again for the
# allocator's slack; without the bound the growth is $dirs indexes.
[ "$one" -gt 2048 ] || fail "one index grew the daemon by only $one kB: the test measures nothing"
[ "$all" -le $((2 * one + 1024)) ] ||
	fail "misses in $dirs directories grew the daemon by $all kB (one: $one kB): indexes not bounded"

# The indexes freed are rebuilt when needed, and answer as before.
[ -e "$M/d01/NAME000007$upbig" ] || fail "d01: a name by another spelling after eviction"
[ -e "$M/d00/NAME000007$upbig" ] || fail "d00: a name by another spelling after eviction"
[ -e "$M/d00/name000005$big" ] && fail "d00: the removed name is back after a rebuild"
[ -e "$M/d00/NAME$(printf %06d "$per")$upbig" ] && fail "d00: a name that is not there"
n=$(find "$M/d01" -mindepth 1 | wc -l)
[ "$n" = "$per" ] || fail "d01 lists $n names, not $per"
n=$(find "$M/d00" -mindepth 1 | wc -l)
[ "$n" = $((per - 1)) ] || fail "d00 lists $n names, not $((per - 1))"
cfs_umount
echo "overlay index_mem: $dirs directories of $per names, +$all kB for all, +$one kB for one"

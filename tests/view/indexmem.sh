#!/usr/bin/env bash
# The overlay view's merged indexes obey -o index_mem as the tree's do
# (issue 33): a miss in a directory builds its index (~300 bytes a name
# of 250 bytes), and misses in DIRS such directories of PER names each,
# with -o index_mem=1, must leave the daemon's resident memory grown by
# about one index (the one in use) plus the bound, not by all of them;
# and every answer stays right once indexes were freed and are rebuilt —
# names by another spelling, a name removed through the view (its
# whiteout), a listing.  Then the same with a name held by the kernel in
# every directory (a descriptor open on it keeps its dentry and node): the
# nodes must not keep their directories' indexes (they did before: the
# growth was every index), and a held node must find its entry again in
# its directory's rebuilt index — a rename of it, an append through the
# losing spelling of two fold-equal twins (which copies the winner up, the
# node held), live and after a remount.  The view has no stats of its own: VmRSS from
# /proc, with the allocators told to give freed memory back at once (no
# ASan quarantine; glibc maps every large block) so that it shows what
# the daemon holds.
. "$(dirname "$0")/lib.sh"
dirs=${CF_INDEXMEM_DIRS:-5} per=${CF_INDEXMEM_PER:-20000}
[ "$dirs" -ge 3 ] || fail "CF_INDEXMEM_DIRS: 3 at least (d02 holds the twins)"

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
for name, text in (("Twin", "upper-case"), ("twin", "lower-case")):
    with open(os.path.join(low, "d02", name), "w") as f:
        f.write(text + "\n")
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
# allocator's slack, and 3 MiB for the worker threads a loaded machine
# makes the daemon start (their stacks, the sanitizer's caches: two runs
# beside other tests went 500-700 kB over a 1 MiB slack); without the
# bound the growth is $dirs indexes.
[ "$one" -gt 2048 ] || fail "one index grew the daemon by only $one kB: the test measures nothing"
[ "$all" -le $((2 * one + 4096)) ] ||
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

# A name of every directory held by the kernel, and both twins of d02;
# then a miss in each directory but d02, so that d02's index is freed.
fds=()
for d in $(seq 0 $((dirs - 1))); do
	exec {fd}<"$M/d$(printf %02d "$d")/Name000001$big" || fail "open d$d/Name000001"
	fds+=("$fd")
done
exec {upfd}<"$M/d02/Twin" {lowfd}<"$M/d02/twin" || fail "open the twins (one entry)"
fds+=("$upfd" "$lowfd")
for d in $(seq 0 $((dirs - 1))); do
	[ "$d" = 2 ] || [ ! -e "$M/d$(printf %02d "$d")/missing2" ] || fail "d$d/missing2 exists"
done
held=$(($(rss) - base))
echo "+$held kB with names held in all $dirs directories"
[ "$held" -le $((2 * one + 4096)) ] ||
	fail "names held in $dirs directories grew the daemon by $held kB (one: $one kB):" \
		"their nodes keep the indexes"
# d02's index is rebuilt: each held node must be the one its name finds.
mv "$M/d02/Name000001$big" "$M/d02/Moved" || fail "mv of a held name"
echo moved >>"$M/d02/Moved" || fail "append to the held name moved"
echo more >>"$M/d02/twin" || fail "append to a held twin"
read -r got <&"$lowfd" && [ "$got" = upper-case ] || fail "the held twin reads '$got'"
for fd in "${fds[@]}"; do exec {fd}<&-; done
check_d02() { # WHEN
	[ "$(cat "$M/d02/Moved")" = moved ] || fail "d02/Moved $1: $(cat "$M/d02/Moved")"
	[ ! -e "$M/d02/Name000001$big" ] || fail "d02/Name000001 $1: still there"
	[ "$(cat "$M/d02/twin")" = "$(printf 'upper-case\nmore')" ] ||
		fail "d02/twin $1: $(cat "$M/d02/twin")"
	[ "$(ls "$M/d02" | grep -ix twin)" = Twin ] || fail "d02's twins $1: $(ls "$M/d02" | grep -ix twin)"
	n=$(find "$M/d02" -mindepth 1 | wc -l)
	[ "$n" = $((per + 1)) ] || fail "d02 lists $n names $1, not $((per + 1))"
}
check_d02 live
cfs_umount
ovl_mount "lowerdir=$L,upperdir=$U,workdir=$W,index_mem=1" overlay
check_d02 "after a remount"
cfs_umount
echo "overlay index_mem: $dirs directories of $per names, +$all kB for all, +$one kB for one," \
	"+$held kB with a name held in each"

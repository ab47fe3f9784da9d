#!/bin/sh
# Benchmark section "fs": casefoldfs against bindfs (the cost of FUSE itself),
# the backing ext4 directly (the floor) and a scan-on-miss lookup (Wine,
# Samba, ciopfs), all on one backing tree in one run, in interleaved rounds.
# Usage: bench/fs.sh BUILD_DIR (as root: mounts, drop_caches).
#
# Knobs for a quick look (the defaults are what BENCHMARKS.md reports):
#   CF_FSBENCH_SIZES="1000 100000 1000000"  entries of the +F directories
#   CF_FSBENCH_ROUNDS=7                     rounds (medians over them)
#   CF_FSBENCH_MIB=256                      size of the sequential I/O file
set -eu
O=${1:-build}
SIZES=${CF_FSBENCH_SIZES:-1000 100000 1000000}
ROUNDS=${CF_FSBENCH_ROUNDS:-7}
MIB=${CF_FSBENCH_MIB:-256}
META_FILES=2000     # per round, split among the threads
COLD_NAMES=32       # stats per cold measurement
START=$(date +%s)

die() { echo "fs.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (mounts, /proc/sys/vm/drop_caches)"
[ -c /dev/fuse ] || die "no /dev/fuse"
for c in bindfs fusermount3 chattr; do
	command -v "$c" >/dev/null || die "no $c (scripts/install-deps)"
done

make -s O="$O" lib "$O/casefoldfs"
make -s -f bench/Makefile O="$O" "$O/bench/fsbench" "$O/bench/fsreport"
F=$O/bench/fsbench
CFS=$O/casefoldfs

# Room for the directories' inodes and the I/O files (one per peer), with slack.
TMP=${TMPDIR:-/var/tmp}
entries=0
for n in $SIZES; do entries=$((entries + n)); done
need_kb=$((3 * MIB * 1024 + entries / 4 + 512 * 1024))
avail_kb=$(df -Pk "$TMP" | awk 'NR == 2 { print $4 }')
avail_inodes=$(df -Pi "$TMP" | awk 'NR == 2 { print $4 }')
[ "$avail_kb" -ge "$need_kb" ] || die "$TMP: $avail_kb KiB free, need $need_kb"
need_inodes=$((entries + 10000))
[ "$avail_inodes" -ge "$need_inodes" ] || die "$TMP: $avail_inodes inodes free, need $need_inodes"

T=$(mktemp -d "$TMP/casefold-fsbench.XXXXXX")
B=$T/backing       # the one backing tree
MC=$T/casefoldfs   # casefoldfs on B
MB=$T/bindfs       # bindfs on B
R=$T/records       # TEST PEER SIZE ROUND METRIC VALUE, for fsreport
mkdir "$B" "$MC" "$MB"
: > "$R"
CFS_PID=
BFS_PID=

mounted() { grep -qs " $1 fuse" /proc/mounts; }

cleanup() {
	for m in "$MC" "$MB"; do
		if mounted "$m"; then fusermount3 -u "$m" 2>/dev/null || fusermount3 -uz "$m" || :; fi
	done
	for p in $CFS_PID $BFS_PID; do kill "$p" 2>/dev/null || :; done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# wait_mount MOUNTPOINT PID: until the daemon PID has mounted, or died.
wait_mount() {
	i=0
	while ! mounted "$1"; do
		kill -0 "$2" 2>/dev/null || { cat "$T/daemon.log" >&2; die "mount on $1 failed"; }
		i=$((i + 1))
		[ $i -lt 400 ] || die "mount on $1 timed out"
		sleep 0.05
	done
}

# Both daemons run in the foreground as our children: their PIDs are known
# (VmRSS, cleanup) and their exit status is checked at unmount.
mount_cfs() {
	"$CFS" -f "$B" "$MC" 2>>"$T/daemon.log" &
	CFS_PID=$!
	wait_mount "$MC" "$CFS_PID"
}
# bindfs is single-threaded unless told otherwise; casefoldfs is multi-threaded.
mount_bindfs() {
	bindfs -f --multithreaded "$B" "$MB" 2>>"$T/daemon.log" &
	BFS_PID=$!
	wait_mount "$MB" "$BFS_PID"
}
umount_cfs() {
	fusermount3 -u "$MC"
	wait "$CFS_PID" || die "casefoldfs exited with status $? (log: $(cat "$T/daemon.log"))"
	CFS_PID=
}
umount_bindfs() {
	fusermount3 -u "$MB"
	wait "$BFS_PID" || die "bindfs exited with status $?"
	BFS_PID=
}

drop_caches() { echo 3 > /proc/sys/vm/drop_caches; }

# run TEST PEER SIZE FSBENCH-ARGS...: one measurement of round $round, recorded.
run() {
	what=$1 who=$2 size=$3
	shift 3
	"$F" "$@" > "$T/out" || die "fsbench $* failed"
	sed "s/^/$what $who $size $round /" "$T/out" >> "$R"
}

# rotate N WORDS...: the words rotated left by N, so that no peer always goes first.
rotate() {
	n=$(($1 % ($# - 1)))
	shift
	while [ "$n" -gt 0 ]; do
		set -- "$@" "$1"
		shift
		n=$((n - 1))
	done
	echo "$@"
}

# where PEER SIZE: sets dir (the directory of SIZE entries as PEER sees it),
# how (fsbench's lookup and, for scans, a time budget per pass that keeps a
# million-entry directory affordable) and the name kinds PEER is measured on.
where() {
	case $1 in
	direct)     dir=$B/d$2  how=path warm="exact missing"          cold="exact" ;;
	bindfs)     dir=$MB/d$2 how=path warm="exact missing"          cold="exact" ;;
	casefoldfs) dir=$MC/d$2 how=path warm="exact miscased missing" cold="exact miscased" ;;
	scan)       dir=$B/d$2  how="-b 300 scan" warm="miscased missing" cold="miscased" ;;
	esac
}

elapsed() { echo $(($(date +%s) - START)); }
# phase WHAT: WHAT is done; noted on stderr as it happens (a long run shows
# where it is) and in the summary printed after the tables.
phase_times=
phase() {
	phase_times="${phase_times:+$phase_times, }$1 $(elapsed) s"
	echo "fs: $1 done ($(elapsed) s)" >&2
}

# Setup: the directories are made +F through casefoldfs while empty, then
# filled behind its back (a C loop of mknodat), which a later mount sees.
mount_cfs
for n in $SIZES; do
	mkdir "$MC/d$n"
	chattr +F "$MC/d$n"
done
mkdir "$MC/work"
chattr +F "$MC/work"
umount_cfs
mkdir "$B/work-bindfs" "$B/work-direct"
for n in $SIZES; do "$F" fill "$B/d$n" "$n"; done
sync -f "$B"
phase setup

mount_cfs
mount_bindfs
for round in $(seq "$ROUNDS"); do
	for n in $SIZES; do
		# The same names in every round and for every peer: casefoldfs holds a
		# descriptor per inode the kernel remembers, and fresh names every round
		# would exhaust RLIMIT_NOFILE before the last (EMFILE).
		seed=$n
		for peer in $(rotate "$round" direct bindfs casefoldfs scan); do
			where "$peer" "$n"
			for kind in $warm; do
				# shellcheck disable=SC2086  # $how: options and a word
				run "warm-$kind" "$peer" "$n" stat -w $how "$kind" "$dir" "$n" "$seed"
			done
		done
	done
done
phase "warm stats"

# Cold: a fresh mount of the peer measured, the other one unmounted (its
# daemon's open descriptors would keep backing inodes cached), caches dropped.
umount_cfs
umount_bindfs
for round in $(seq "$ROUNDS"); do
	for n in $SIZES; do
		seed=$((round * 1000003 + n))   # fresh mounts: fresh names
		for peer in $(rotate "$round" direct bindfs casefoldfs scan); do
			where "$peer" "$n"
			for kind in $cold; do
				rss=
				case $peer in
				casefoldfs) mount_cfs; [ "$kind" = exact ] || rss="-p $CFS_PID" ;;
				bindfs) mount_bindfs ;;
				esac
				drop_caches
				# shellcheck disable=SC2086  # $rss, $how: options and words
				run "cold-$kind" "$peer" "$n" stat -k "$COLD_NAMES" $rss $how "$kind" "$dir" "$n" "$seed"
				case $peer in
				casefoldfs) umount_cfs ;;
				bindfs) umount_bindfs ;;
				esac
			done
		done
	done
done
phase "cold stats"

# The backing directories back in the page cache (the cold phase dropped them).
mount_cfs
mount_bindfs
for n in $SIZES; do "$F" readdir "$B/d$n" "$n" > /dev/null; done
for round in $(seq "$ROUNDS"); do
	for n in $SIZES; do
		for peer in $(rotate "$round" direct bindfs casefoldfs); do
			where "$peer" "$n"
			run readdir "$peer" "$n" readdir "$dir" "$n"
		done
	done
done
phase "readdir"

# A +F directory through casefoldfs, plain ones for the others.
work_dir() {
	case $1 in
	direct) echo "$B/work-direct" ;;
	bindfs) echo "$MB/work-bindfs" ;;
	casefoldfs) echo "$MC/work" ;;
	esac
}
for round in $(seq "$ROUNDS"); do
	for threads in 1 4; do
		for peer in $(rotate "$round" direct bindfs casefoldfs); do
			run meta "$peer" "$threads" meta "$(work_dir "$peer")" "$threads" "$META_FILES"
		done
	done
done
phase "metadata"

for round in $(seq "$ROUNDS"); do
	for peer in $(rotate "$round" direct bindfs casefoldfs); do
		run io-write "$peer" "$MIB" write "$(work_dir "$peer")/io" "$MIB"
	done
	for peer in $(rotate "$round" direct bindfs casefoldfs); do
		run io-read "$peer" "$MIB" read "$(work_dir "$peer")/io"
	done
done
phase "sequential I/O"

echo "Backing: $(findmnt -no FSTYPE,OPTIONS -T "$B" | cut -d, -f1-2) under $TMP;" \
	"$(bindfs --version | head -1) (--multithreaded); $ROUNDS rounds;" \
	"load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
echo
"$O/bench/fsreport" < "$R"
umount_cfs
umount_bindfs
echo "Section time, cumulative: $phase_times (then cleanup)."
echo

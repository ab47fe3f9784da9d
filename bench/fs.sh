#!/bin/sh
# Benchmark section "fs": casefoldfs against bindfs (the cost of FUSE itself),
# the backing ext4 directly (the floor) and a scan-on-miss lookup (Wine,
# Samba, ciopfs), all on one backing tree in one run, in interleaved rounds.
# Every peer creates its own directories' files through itself (casefoldfs in
# +F directories), as programs fill them: the kernel then remembers every
# inode, which is what a daemon's per-inode state is measured against.
# Failed operations (EMFILE, ...) are counted and shown, then fail the section.
# Usage: bench/fs.sh BUILD_DIR (as root: mounts, drop_caches).
#
# Knobs for a quick look (the defaults are what BENCHMARKS.md reports):
#   CF_FSBENCH_SIZES="1000 100000 1000000"  entries of the +F directories
#   CF_FSBENCH_ROUNDS=7                     rounds (medians over them)
#   CF_FSBENCH_MIB=256                      size of the sequential I/O file
#   CF_FSBENCH_DAEMON=                      a casefoldfs binary to measure instead
#                                           of BUILD_DIR's (an older build)
set -eu
O=${1:-build}
SIZES=${CF_FSBENCH_SIZES:-1000 100000 1000000}
ROUNDS=${CF_FSBENCH_ROUNDS:-7}
MIB=${CF_FSBENCH_MIB:-256}
META_FILES=2000     # per round, split among the threads
COLD_NAMES=32       # stats per cold measurement
START=$(date +%s)

. bench/prelude.sh
prelude "mounts, /proc/sys/vm/drop_caches" bindfs
prelude_build "$O" "${CF_FSBENCH_DAEMON:-}" "$O/bench/fsreport"

# Room for the directories' inodes and the I/O files (one per peer), with slack.
TMP=${TMPDIR:-/var/tmp}
entries=0
for n in $SIZES; do entries=$((entries + 3 * n)); done   # one directory per peer
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

cleanup() {
	unmount_all "$MC" "$MB"
	for p in $CFS_PID $BFS_PID; do kill "$p" 2>/dev/null || :; done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

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

# run TEST PEER SIZE FSBENCH-ARGS...: one measurement of round $round,
# recorded; a measurement that could not finish is recorded as failed.
run() {
	what=$1 who=$2 size=$3
	shift 3
	"$F" "$@" > "$T/out" || { echo "fsbench $* failed" >&2; echo "failed 1" >> "$T/out"; }
	sed "s/^/$what $who $size $round /" "$T/out" >> "$R"
}
record() { echo "$1 $2 $3 ${round:-1} $4 $5" >> "$R"; }

# The daemon's open descriptors, and its node count where it reports one.
fds_of() { find "/proc/$1/fd" -mindepth 1 -maxdepth 1 | wc -l; }
nodes_of() {
	getfattr -n trusted.casefoldfs.stats --only-values "$MC" 2>/dev/null | awk '{ print $2 }'
}
rss_of() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }


# where PEER SIZE: sets dir (the directory of SIZE entries as PEER sees it),
# how (fsbench's lookup and, for scans, a time budget per pass that keeps a
# million-entry directory affordable) and the name kinds PEER is measured on.
where() {
	case $1 in
	direct)     dir=$B/e$2  how=path warm="exact missing"          cold="exact" ;;
	bindfs)     dir=$MB/b$2 how=path warm="exact missing"          cold="exact" ;;
	casefoldfs) dir=$MC/d$2 how=path warm="exact miscased missing" cold="exact miscased" ;;
	scan)       dir=$B/e$2  how="-b 300 scan" warm="miscased missing" cold="miscased" ;;
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

# Setup, through the peers: casefoldfs fills +F directories dN, bindfs plain
# ones bN, the backing ext4 plain ones eN, each timed (files per second).
mount_cfs
mount_bindfs
for n in $SIZES; do
	mkdir "$MC/d$n" "$B/b$n" "$B/e$n"
	chattr +F "$MC/d$n"
done
mkdir "$MC/work" "$B/work-bindfs" "$B/work-direct"
chattr +F "$MC/work"
round=1
k=0
for n in $SIZES; do
	for peer in $(rotate "$k" direct bindfs casefoldfs); do
		where "$peer" "$n"
		run create "$peer" "$n" create "$dir" "$n"
	done
	# What the daemon holds once the kernel remembers every inode created.
	record create casefoldfs "$n" fds "$(fds_of "$CFS_PID")"
	k=$((k + 1))
done
sync -f "$B"
phase "creation through the mounts"

# Daemon memory per remembered inode, apart from any index: a fresh mount
# stats every file of a plain directory (no index), after a warm-up of 100
# that pays libfuse's per-thread buffers; VmRSS growth over the nodes added
# (the daemon's count where it reports one, else the files stat'ed without error).
for n in $SIZES; do
	umount_cfs
	mount_cfs
	pre=$((n < 1000 ? n / 10 : 100))
	"$F" statall exact "$MC/e$n" "$pre" > /dev/null || :
	nodes0=$(nodes_of)
	record inode casefoldfs "$n" rss0 "$(rss_of "$CFS_PID")"
	run inode casefoldfs "$n" statall exact "$MC/e$n" "$n"
	failed=$(sed -n 's/^errors //p' "$T/out")
	record inode casefoldfs "$n" rss1 "$(rss_of "$CFS_PID")"
	nodes1=$(nodes_of)
	if [ -n "$nodes0" ] && [ -n "$nodes1" ]; then
		record inode casefoldfs "$n" nodes $((nodes1 - nodes0))
	else
		record inode casefoldfs "$n" nodes $((n - pre - ${failed:-0}))   # the stats that succeeded
	fi
	record inode casefoldfs "$n" fds "$(fds_of "$CFS_PID")"
done
umount_cfs
umount_bindfs
phase "memory per inode"

mount_cfs
mount_bindfs
for round in $(seq "$ROUNDS"); do
	for n in $SIZES; do
		# The same names in every round and for every peer (a daemon with a
		# descriptor per remembered inode, as casefoldfs had before its node
		# redesign, runs out of them with fresh names; creation shows that now).
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
for n in $SIZES; do
	for d in d b e; do "$F" readdir "$B/$d$n" "$n" > /dev/null || :; done
done
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
# After the tables, which show them: failed operations fail the section.
if awk '($5 == "errors" || $5 == "failed") && $6 > 0 { bad = 1 } END { exit !bad }' "$R"; then
	die "failed operations (see the table of failures)"
fi

#!/bin/sh
# Benchmark section "cache": casefoldfs at first touch and after it (issues
# 20 and 29).  What a program that touches the same files twice sees — a
# game loading its assets, `git status`, a build — through casefoldfs
# against the backing ext4 directly and bindfs (defaults), in one run, with
# the ratios to the backing ext4 and to bindfs and issue 29's targets:
#   - stat of every name of a 100,000-entry directory (casefoldfs: a +F
#     directory, by another spelling; the others: exact names);
#   - open + read + close of 20,000 files of 4 KiB (exact names);
#   - a sequential read of a 1 GiB file in 1 MiB calls;
#   - `git status` in a 100,000-file work tree (files in a 100 × 100 tree);
# each a first pass (a freshly mounted daemon, the backing tree and its page
# cache warm) and a second pass right after it in the same mount (what users
# live in; nothing is dropped between them).  casefoldfs runs twice: a root
# daemon and an ordinary user's (uid 65534, no capabilities, through
# fusermount3), each on a tree it filled itself, as users fill theirs.
# bindfs is mounted on the backing ext4's tree.  Also: the daemon's memory per
# remembered inode (VmRSS growth over the nodes the first stat pass added,
# from the daemon's `stats` xattr) and its descriptors (/proc/PID/fd).
# Each round mounts every FUSE peer afresh; peers go in an order rotated from
# round to round; cells are medians over rounds, ratios the median over rounds
# of the peer's figure over the backing ext4's (or bindfs's) in the same round.
# Usage: bench/cache.sh BUILD_DIR (as root: mounts, setpriv, /dev/fuse).
#
# Knobs (the defaults are what BENCHMARKS.md reports):
#   CF_CACHEBENCH_QUICK=1          small sizes for a quick look (10,000 names,
#                                  2,000 files, 64 MiB, a 10,000-file repository)
#   CF_CACHEBENCH_NAMES=100000     names in the stat directory
#   CF_CACHEBENCH_FILES=20000      4 KiB files opened and read
#   CF_CACHEBENCH_BIGFILE_MB=1024  the big file, MiB
#   CF_CACHEBENCH_GIT=100000       files of the git work tree
#   CF_CACHEBENCH_ROUNDS=3         rounds (medians over them)
#   CF_CACHEBENCH_PEERS="native bindfs root user"   which peers run
#   CF_CACHEBENCH_OPTS=            options for both casefoldfs daemons
#                                  (bench/run: once more with "-o opens=kernel")
#   CF_CACHEBENCH_DAEMON=          a casefoldfs binary to measure instead of
#                                  BUILD_DIR's (an older build, for before/after)
set -u
O=${1:-build}
if [ "${CF_CACHEBENCH_QUICK:-}" = 1 ]; then
	d_names=10000 d_files=2000 d_mb=64 d_git=10000
else
	d_names=100000 d_files=20000 d_mb=1024 d_git=100000
fi
NAMES=${CF_CACHEBENCH_NAMES:-$d_names}
FILES=${CF_CACHEBENCH_FILES:-$d_files}
MB=${CF_CACHEBENCH_BIGFILE_MB:-$d_mb}
GITN=${CF_CACHEBENCH_GIT:-$d_git}
ROUNDS=${CF_CACHEBENCH_ROUNDS:-3}
PEERS=${CF_CACHEBENCH_PEERS:-native bindfs root user}
OPTS=${CF_CACHEBENCH_OPTS:-}
FILE_BYTES=4096
FAN=100            # git tree: files per directory, directories per level
WARM=200           # files of the warm-up directory (libfuse's thread buffers)
START=$(date +%s)

. bench/prelude.sh
prelude "mounts, setpriv, /dev/fuse" bindfs getfattr git setpriv
prelude_build "$O" "${CF_CACHEBENCH_DAEMON:-}"

# Room: the three trees (native, root's, user's), each with its files, big
# file and git work tree (objects and index: a kilobyte per file is ample).
TMP=${TMPDIR:-/var/tmp}
files=$((3 * (NAMES + FILES + GITN + WARM) + 3 * GITN / FAN + 10000))
need_kb=$((3 * (MB * 1024 + FILES * 4 + GITN) + NAMES + 512 * 1024))
avail_kb=$(df -Pk "$TMP" | awk 'NR == 2 { print $4 }')
avail_inodes=$(df -Pi "$TMP" | awk 'NR == 2 { print $4 }')
[ "$avail_kb" -ge "$need_kb" ] || die "$TMP: $avail_kb KiB free, need $need_kb"
[ "$avail_inodes" -ge "$files" ] || die "$TMP: $avail_inodes inodes free, need $files"

T=$(mktemp -d "$TMP/casefold-cachebench.XXXXXX") || exit 1
chmod 755 "$T"   # uid 65534 goes through it to its tree
N=$T/native        # the backing ext4 measured directly; bindfs's backing too
MBF=$T/bindfs      # bindfs on N
RB=$T/root.backing RM=$T/root.mnt   # the root daemon
UB=$T/user.backing UM=$T/user.mnt   # the user's daemon
R=$T/records       # ROUND PEER METRIC VALUE
mkdir "$N" "$MBF" "$RB" "$RM" "$UB" "$UM" "$T/home" "$T/bin"
chown 65534:65534 "$UB" "$UM" "$T/home"
: >"$R"
ROOT_PID='' USER_PID='' BFS_PID=''
FUSE_MODE=

as_user() { HOME=$T/home setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }

cleanup() {
	unmount_all "$RM" "$UM" "$MBF"
	for p in $ROOT_PID $USER_PID $BFS_PID; do kill "$p" 2>/dev/null || :; done
	[ -z "$FUSE_MODE" ] || chmod "$FUSE_MODE" /dev/fuse
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# The user's daemon: /dev/fuse and binaries it can reach (prelude.sh).
prelude_user "$T"

elapsed() { echo $(($(date +%s) - START)); }
note() { echo "cache: $* ($(elapsed) s)" >&2; }

# The daemons run in the foreground as our children: known PIDs, exit status
# checked at unmount.  casefoldfs with its defaults, as scripts/quickstart
# mounts it; bindfs with its defaults (single-threaded, 1 s timeouts).
mount_peer() {
	case $1 in
	root)
		# shellcheck disable=SC2086  # options are words
		"$CFS" -f $OPTS "$RB" "$RM" 2>>"$T/daemon.log" &
		ROOT_PID=$!
		wait_mount "$RM" "$ROOT_PID" ;;
	user)
		# setpriv itself, not the function: $! must be the daemon (setpriv execs it).
		setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
			"$UCFS" -f $OPTS "$UB" "$UM" 2>>"$T/daemon.log" &
		USER_PID=$!
		wait_mount "$UM" "$USER_PID" ;;
	bindfs)
		bindfs -f "$N" "$MBF" 2>>"$T/daemon.log" &
		BFS_PID=$!
		wait_mount "$MBF" "$BFS_PID" ;;
	esac
}
umount_peer() {
	case $1 in
	root) fusermount3 -u "$RM"; wait "$ROOT_PID" || die "root casefoldfs exited with status $?"; ROOT_PID= ;;
	user) fusermount3 -u "$UM"; wait "$USER_PID" || die "user casefoldfs exited with status $?"; USER_PID= ;;
	bindfs) fusermount3 -u "$MBF"; wait "$BFS_PID" || die "bindfs exited with status $?"; BFS_PID= ;;
	esac
}
# where PEER: dir (the peer's view of its tree), run (how its clients run:
# the user's mount is the user's alone, without allow_other), fsb, pid,
# stats xattr and the spelling stat uses.
where() {
	case $1 in
	native) dir=$N run='' fsb=$F pid='' xattr='' spelling=exact ;;
	bindfs) dir=$MBF run='' fsb=$F pid=$BFS_PID xattr='' spelling=exact ;;
	root) dir=$RM run='' fsb=$F pid=$ROOT_PID xattr=trusted.casefoldfs.stats spelling=miscased ;;
	user) dir=$UM run=as_user fsb=$UF pid=$USER_PID xattr=user.casefoldfs.stats spelling=miscased ;;
	esac
}
record() { echo "$round $1 $2 $3" >>"$R"; }
# fsb_ok OUTPUT-FILE WHAT: fsbench's "errors 0", else the failure is recorded.
fsb_ok() {
	if ! grep -qx 'errors 0' "$1"; then
		echo "cache.sh: $2: $(tr '\n' ' ' <"$1")" >&2
		record "$peer" failed 1
		return 1
	fi
}
nodes_of() {
	[ -n "$xattr" ] || return 0
	$run getfattr -n "$xattr" --only-values "$dir" 2>/dev/null | awk '{ print $2 }'
}
rss_of() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
fds_of() { find "/proc/$1/fd" -mindepth 1 -maxdepth 1 | wc -l; }
# sample_fds: the daemon's descriptors now, kept in fds_peak if more.
sample_fds() {
	[ -n "$pid" ] || return 0
	f=$(fds_of "$pid")
	[ "$f" -le "$fds_peak" ] || fds_peak=$f
}
now() { date +%s.%N; }

# create SUBDIR N [OPTIONS]: fsbench create through the peer (setup), no error allowed.
create() {
	sub=$1 count=$2
	shift 2
	if ! $run "$fsb" create "$@" "$dir/$sub" "$count" >"$T/$peer.out" 2>&1 ||
		! grep -qx 'errors 0' "$T/$peer.out"; then
		die "$peer: creating $dir/$sub failed: $(tr '\n' ' ' <"$T/$peer.out")"
	fi
}

# Setup of one tree, through the peer itself: +F directories on casefoldfs
# (made while empty), plain ones on the backing ext4.  bindfs uses the
# backing ext4's tree.
setup() {
	peer=$1
	where "$peer"
	for d in stat files big git warm; do
		$run mkdir "$dir/$d" || die "$peer: mkdir $dir/$d"
		[ "$peer" = native ] || $run chattr +F "$dir/$d" || die "$peer: chattr +F $dir/$d"
	done
	create stat "$NAMES"
	create files "$FILES" -s "$FILE_BYTES"
	create warm "$WARM"
	create git "$GITN" -f "$FAN"
	$run "$fsb" write "$dir/big/big" "$MB" >/dev/null || die "$peer: writing the big file failed"
	if ! { $run git -C "$dir/git" init -q &&
		$run git -C "$dir/git" add -A &&
		$run git -C "$dir/git" -c user.name=bench -c user.email=bench@localhost commit -qm cache &&
		$run git -C "$dir/git" status --porcelain >/dev/null; }; then
		die "$peer: git setup failed"
	fi
	note "$peer tree made"
}

# Setup: the three trees at once (the casefoldfs trees through their daemons).
round=0   # setup records, should one fail
for p in root user; do
	case " $PEERS " in *" $p "*) mount_peer "$p" ;; esac
done
setup native 2>"$T/setup-native.err" &
s1=$!
s2='' s3=''
case " $PEERS " in *" root "*) setup root 2>"$T/setup-root.err" & s2=$! ;; esac
case " $PEERS " in *" user "*) setup user 2>"$T/setup-user.err" & s3=$! ;; esac
for s in $s1 $s2 $s3; do
	wait "$s" || { cat "$T"/setup-*.err >&2; die "setup failed"; }
done
cat "$T"/setup-*.err >&2
for p in root user; do
	case " $PEERS " in *" $p "*) umount_peer "$p" ;; esac
done
sync -f "$T"   # the trees' data written out before anything is timed
note "setup done"

# git_status: the work tree must be clean; prints seconds.
git_status() {
	t0=$(now)
	$run git -C "$dir/git" status --porcelain >"$T/status" || return 1
	t1=$(now)
	[ ! -s "$T/status" ] || { head -3 "$T/status" >&2; return 1; }
	echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }'
}

# measure PEER: one round's figures for PEER, in a fresh mount.
measure() {
	peer=$1
	mount_peer "$peer"
	where "$peer"
	# libfuse's first requests grow its per-thread buffers: paid on another
	# directory, not counted as memory per inode.
	$run "$fsb" statall exact "$dir/warm" "$WARM" >/dev/null
	nodes0=$(nodes_of)
	[ -z "$pid" ] || rss0=$(rss_of "$pid")
	fds_peak=0
	for pass in 1 2; do
		$run "$fsb" statall "$spelling" "$dir/stat" "$NAMES" >"$T/out"
		fsb_ok "$T/out" "$peer stat pass $pass" &&
			record "$peer" "stat$pass" "$(awk '$1 == "per" { printf "%.0f", 1e6 / $2 }' "$T/out")"
		if [ "$pass" = 1 ] && [ -n "$xattr" ]; then
			nodes1=$(nodes_of)
			rss1=$(rss_of "$pid")
			[ -z "$nodes0" ] || [ -z "$nodes1" ] || [ "$nodes1" -le "$nodes0" ] ||
				record "$peer" mem "$(((rss1 - rss0) * 1024 / (nodes1 - nodes0)))"
		fi
		sample_fds
	done
	for pass in 1 2; do
		[ "$pass" = 2 ] || [ -z "$xattr" ] || { nodes0=$(nodes_of); rss0=$(rss_of "$pid"); }
		$run "$fsb" readall "$dir/files" "$FILES" "$FILE_BYTES" >"$T/out"
		fsb_ok "$T/out" "$peer open-read-close pass $pass" &&
			record "$peer" "orc$pass" "$(awk '$1 == "files_per_s" { print $2 }' "$T/out")"
		if [ "$pass" = 1 ] && [ -n "$xattr" ]; then
			# By exact names: nodes without a directory index.
			nodes1=$(nodes_of)
			rss1=$(rss_of "$pid")
			[ -z "$nodes0" ] || [ -z "$nodes1" ] || [ "$nodes1" -le "$nodes0" ] ||
				record "$peer" memx "$(((rss1 - rss0) * 1024 / (nodes1 - nodes0)))"
		fi
		sample_fds
	done
	for pass in 1 2; do
		if $run "$fsb" read "$dir/big/big" >"$T/out"; then
			record "$peer" "read$pass" "$(awk '$1 == "mbps" { print $2 }' "$T/out")"
		else
			record "$peer" failed 1
		fi
	done
	for pass in 1 2; do
		if secs=$(git_status); then record "$peer" "git$pass" "$secs"; else record "$peer" failed 1; fi
		sample_fds
	done
	if [ -n "$pid" ]; then
		record "$peer" fds "$fds_peak"
		[ -z "$xattr" ] || record "$peer" nodes "$(nodes_of)"
	fi
	umount_peer "$peer"
}


for round in $(seq "$ROUNDS"); do
	# shellcheck disable=SC2086  # the peers' words
	for p in $(rotate "$round" $PEERS); do
		measure "$p"
	done
	note "round $round done"
done

fd_cache=
if case " $PEERS " in *" root "*) true ;; *) false ;; esac; then
	mount_peer root
	fd_cache=$(getfattr -n trusted.casefoldfs.stats --only-values "$RM" 2>/dev/null |
		tr ' ' '\n' | sed -n '/^fd_cache$/{n;p;q}')
	umount_peer root
fi

echo "casefoldfs: \`$CFS${OPTS:+ $OPTS}\` (root, and uid 65534 through fusermount3);" \
	"$(bindfs --version | head -1) with its defaults; backing: $(findmnt -no FSTYPE,SOURCE -T "$T")" \
	"under $TMP; $NAMES names, $FILES files of $FILE_BYTES bytes, a $MB MiB file, a $GITN-file" \
	"git work tree ($(git --version)); $ROUNDS rounds, a fresh mount per peer per round;" \
	"load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
echo
# The table: medians over rounds; ratios the median of per-round ratios to the
# backing ext4 and to bindfs (for git status, of times: lower is better).
awk -v names="$NAMES" -v files="$FILES" -v mb="$MB" -v gitn="$GITN" -v fdcache="$fd_cache" "$MEDIAN_AWK$ROUNDS_AWK"'
function fmt(x, m) {
	if (x == "") return "—"
	if (m ~ /^git/) return sprintf("%.2f", x)
	return sprintf("%.0f", x)
}
# A ratio cell, with whether the target is met (dir 1: at least, -1: at most;
# no target: the ratio alone).
function rcell(p, m, base, target, dir,   x) {
	x = ratio(p, m, base, m)
	if (x == "") return "—"
	if (target == "") return sprintf("%.2f×", x)
	return sprintf("%.2f× %s", x, (dir > 0 ? x >= target : x <= target) ? "(met)" : "**(not met)**")
}
# A row: figures, ratios to the backing ext4 and to bindfs (each against its
# target of issue 29, if any), and the targets in words.
function row(label, m, tn, tb, dir, ttext) {
	printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", label,
		fmt(cell("native", m), m), fmt(cell("bindfs", m), m),
		fmt(cell("root", m), m), fmt(cell("user", m), m),
		rcell("root", m, "native", tn, dir), rcell("user", m, "native", tn, dir),
		rcell("root", m, "bindfs", tb, dir), rcell("user", m, "bindfs", tb, dir), ttext
}
{ val[$1, $2, $3] = $4; if ($1 > maxr) maxr = $1; if ($3 == "failed") failed += $4 }
END {
	print "| workload | backing ext4 | bindfs | casefoldfs root | casefoldfs user | root / ext4 | user / ext4 | root / bindfs | user / bindfs | target (issue 29) |"
	print "|---|--:|--:|--:|--:|--:|--:|--:|--:|---|"
	row(sprintf("open + read + close %d files of 4 KiB, second pass (files/s)", files), "orc2", 0.8, "", 1, "≥ 0.8× ext4")
	row("the same, first pass (files/s)", "orc1", "", 2, 1, "≥ 2× bindfs")
	row(sprintf("stat %d names by another spelling (ext4, bindfs: exact), first pass (stats/s)", names), "stat1", 0.25, 2, 1, "≥ 0.25× ext4 and ≥ 2× bindfs")
	row("the same, second pass (stats/s)", "stat2", 0.9, "", 1, "≥ 0.9× ext4")
	row(sprintf("read a %d MiB file, 1 MiB calls, second pass (MB/s)", mb), "read2", 0.9, "", 1, "≥ 0.9× ext4")
	row("the same, first pass, backing file in the page cache (MB/s)", "read1", 0.5, "", 1, "≥ 0.5× ext4")
	row(sprintf("git status, %d-file work tree, warm: second run (s)", gitn), "git2", 1.5, "", -1, "≤ 1.5× the time (issue 20)")
	row("git status, first run after the mount (s)", "git1", "", "", 0, "—")
	printf "| daemon memory per remembered inode, B: VmRSS growth over the nodes added by the first open + read + close pass (exact names, no index) | — | — | %s | %s | | | | | ≤ 200 B |\n",
		fmt(cell("root", "memx"), "mem"), fmt(cell("user", "memx"), "mem")
	printf "| the same over the first stat pass by another spelling (a node and its name in the directory index) | — | — | %s | %s | | | | | |\n",
		fmt(cell("root", "mem"), "mem"), fmt(cell("user", "mem"), "mem")
	printf "| daemon descriptors, most seen after a workload in a round (nodes remembered at its end) | — | %s | %s (%s) | %s (%s) | | | | | bounded%s |\n",
		fmt(cell("bindfs", "fds"), "fds"), fmt(cell("root", "fds"), "fds"), fmt(cell("root", "nodes"), "n"),
		fmt(cell("user", "fds"), "fds"), fmt(cell("user", "nodes"), "n"),
		fdcache != "" ? " (fd_cache " fdcache ")" : ""
	print ""
	if (failed) printf "Failed measurements: %d (see stderr).\n\n", failed
}' "$R"
echo "Section time: $(elapsed) s."
echo
if grep -q ' failed ' "$R"; then die "failed measurements"; fi

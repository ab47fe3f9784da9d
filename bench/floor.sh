#!/bin/sh
# Benchmark section "floor": what a first LOOKUP and a first OPEN cost above
# the round trip itself (issue 29).  Side by side in each round, each on a
# fresh mount of the same tree: fsfloor (bench/fsfloor.c, a daemon that does
# no work) with libfuse's single-threaded loop and with its multi-threaded
# one; casefoldfs as mounted by default (multi-threaded) and with -s, and
# as uid 65534 on its own mount of its own copy of the tree (issue 40: a
# user's daemon against root's); bindfs by default (single-threaded) and
# --multithreaded; and the backing ext4.
# Each: stat of N names (casefoldfs by another spelling in a +F directory,
# the others exact), then open + read + close of N files of 4 KiB twice
# (first pass, second pass); then a first stat of N other names by four
# client processes at once, a quarter each (issue 40: the default's pool
# against -s when clients are many).  Cells are medians over rounds, ratios the
# median of per-round ratios to fsfloor -s (the floor of one request at a
# time) in the same round.  The daemon's system calls per request come
# from strace -c (fs/tree/DESIGN.md, "Cost per request"); this section times
# them, and takes each daemon's CPU time per operation from /proc.
# Usage: bench/floor.sh BUILD_DIR (as root: mounts, setpriv, /dev/fuse).
# Knobs: CF_FLOOR_N=20000 (names and files), CF_FLOOR_ROUNDS=3,
# CF_FLOOR_DAEMON= (a casefoldfs binary to measure instead of BUILD_DIR's:
# before/after).
set -u
O=${1:-build}
N=${CF_FLOOR_N:-20000}
ROUNDS=${CF_FLOOR_ROUNDS:-3}
START=$(date +%s)

. bench/prelude.sh
prelude "mounts, setpriv, /dev/fuse" bindfs setpriv
prelude_build "$O" "${CF_FLOOR_DAEMON:-}" "$O/bench/fsfloor"
FL=$O/bench/fsfloor

TMP=${TMPDIR:-/var/tmp}
T=$(mktemp -d "$TMP/casefold-floor.XXXXXX") || exit 1
B=$T/backing M=$T/mnt R=$T/records PID=
UB=$T/user.backing UM=$T/user.mnt  # uid 65534's own tree and mount
mkdir "$B" "$M"
: >"$R"
cleanup() {
	unmount_all "$M" "$UM"
	[ -z "$FUSE_MODE" ] || chmod "$FUSE_MODE" /dev/fuse
	[ -z "$PID" ] || kill "$PID" 2>/dev/null || :
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

start() { # MOUNTPOINT DAEMON ARGS...: in the foreground, as our child; waits for the mount
	_m=$1
	shift
	"$@" 2>>"$T/daemon.log" &
	PID=$!
	wait_mount "$_m" "$PID"
}
stop() { fusermount3 -u "$1"; wait "$PID" || die "a daemon exited with status $?"; PID=; }

# The tree, through casefoldfs: +F directories, as a user fills them.
start "$M" "$CFS" -f "$B" "$M"
mkdir "$M/stat" "$M/files" || die "setup: mkdir"
chattr +F "$M/stat" "$M/files" || die "setup: chattr +F"
"$F" create "$M/stat" "$N" | grep -qx 'errors 0' || die "setup: stat"
Q=$((N / 4))  # each of the four clients' names, in a +F directory of its own
for c in 1 2 3 4; do
	mkdir "$M/four$c" && chattr +F "$M/four$c" || die "setup: four$c"
	"$F" create "$M/four$c" "$Q" | grep -qx 'errors 0' || die "setup: four$c"
done
"$F" create -s 4096 "$M/files" "$N" | grep -qx 'errors 0' || die "setup: files"
stop "$M"
# The same tree made by uid 65534 through its own mount (user.* flags).
# The daemon starts by setpriv itself, not as_user: $! must be the daemon.
prelude_user "$T"
chmod 755 "$T"
mkdir "$UB" "$UM" && chown 65534:65534 "$UB" "$UM" || die "setup: user's directories"
start "$UM" setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$UCFS" -f "$UB" "$UM"
as_user mkdir "$UM/stat" "$UM/files" || die "setup: user's mkdir"
as_user chattr +F "$UM/stat" "$UM/files" || die "setup: user's chattr +F"
as_user "$UF" create "$UM/stat" "$N" | grep -qx 'errors 0' || die "setup: user's stat"
as_user "$UF" create -s 4096 "$UM/files" "$N" | grep -qx 'errors 0' || die "setup: user's files"
stop "$UM"
sync -f "$B"

# The daemon's CPU time so far, ns: the time each of its threads has run
# (/proc/PID/task/*/schedstat, exact where /proc/PID/stat's user and system
# ticks are sampled); nothing for the backing filesystem (no daemon).  A
# thread that ended takes its time with it: libfuse's multi-threaded loop
# ends idle threads beyond ten, more than a serial client keeps busy.
cputime() { [ -z "$PID" ] || cat /proc/"$PID"/task/*/schedstat | awk '{ t += $1 } END { printf "%.0f\n", t }'; }
# cpu PEER MEASURE T0: records the daemon's CPU per operation since T0, µs.
cpu() {
	[ -z "$PID" ] || echo "$round $1 cpu_$2 $(($(cputime) - $3))" |
		awk -v n="$N" '{ printf "%s %s %s %.2f\n", $1, $2, $3, $4 / 1e3 / n }' >>"$R"
}

# passes PEER DIR SPELLING [as_user]: the three figures of one peer in one
# round, and its daemon's CPU time for each; the client runs as uid 65534
# (with its copy of fsbench) when asked.
passes() {
	fsb=$F
	[ -z "${4:-}" ] || fsb="as_user $UF"
	t0=$(cputime)
	out=$($fsb statall "$3" "$2/stat" "$N")
	echo "$out" | grep -qx 'errors 0' || die "$1: stat: $out"
	echo "$round $1 stat1 $(echo "$out" | awk '$1 == "per" { printf "%.0f", 1e6 / $2 }')" >>"$R"
	cpu "$1" stat1 "$t0"
	for pass in 1 2; do
		t0=$(cputime)
		out=$($fsb readall "$2/files" "$N" 4096)
		echo "$out" | grep -qx 'errors 0' || die "$1: open + read + close: $out"
		echo "$round $1 orc$pass $(echo "$out" | awk '$1 == "files_per_s" { print $2 }')" >>"$R"
		cpu "$1" "orc$pass" "$t0"
	done
}
# four PEER DIR SPELLING: the first stat of 4 × Q names by four client
# processes at once, in stats per second of the four together.
four() {
	t0=$(date +%s.%N) clients=
	for c in 1 2 3 4; do
		"$F" statall "$3" "$2/four$c" "$Q" >"$T/four.$c" &
		clients="$clients $!"
	done
	# shellcheck disable=SC2086  # the clients' PIDs, not the daemon's
	wait $clients
	t1=$(date +%s.%N)
	for c in 1 2 3 4; do
		grep -qx 'errors 0' "$T/four.$c" || die "$1: four clients: $(tr '\n' ' ' <"$T/four.$c")"
	done
	echo "$round $1 stat4 $(echo "$t0 $t1" | awk -v n=$((4 * Q)) '{ printf "%.0f", n / ($2 - $1) }')" >>"$R"
}
for round in $(seq "$ROUNDS"); do
	start "$M" "$FL" -s "$M"; passes floor-s "$M" miscased; four floor-s "$M" miscased; stop "$M"
	start "$M" "$FL" "$M"; passes floor-mt "$M" miscased; four floor-mt "$M" miscased; stop "$M"
	start "$M" "$CFS" -f "$B" "$M"; passes cfs-mt "$M" miscased; four cfs-mt "$M" miscased; stop "$M"
	start "$M" "$CFS" -f -s "$B" "$M"; passes cfs-s "$M" miscased; four cfs-s "$M" miscased; stop "$M"
	start "$UM" setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$UCFS" -f "$UB" "$UM"; passes cfs-user "$UM" miscased as_user; stop "$UM"
	start "$M" bindfs -f "$B" "$M"; passes bindfs-s "$M" exact; four bindfs-s "$M" exact; stop "$M"
	start "$M" bindfs -f --multithreaded "$B" "$M"; passes bindfs-mt "$M" exact; four bindfs-mt "$M" exact; stop "$M"
	passes ext4 "$B" exact; four ext4 "$B" exact
done

echo "$N names and $N files of 4 KiB in +F directories made through casefoldfs \`$CFS\` (root);" \
	"$(bindfs --version | head -1); backing: $(findmnt -no FSTYPE,SOURCE -T "$T") under $TMP;" \
	"$ROUNDS rounds, a fresh mount per peer per round; load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
echo
awk "$MEDIAN_AWK"'
function cell(p, m,   v, n, r) {
	n = 0
	for (r = 1; r <= maxr; r++) if ((r, p, m) in val) v[++n] = val[r, p, m]
	return n ? sprintf("%.0f", med(v, n)) : "—"
}
function ratio(p, m,   v, n, r) {
	n = 0
	for (r = 1; r <= maxr; r++)
		if ((r, p, m) in val && val[r, "floor-s", m] > 0) v[++n] = val[r, p, m] / val[r, "floor-s", m]
	return n ? sprintf("%.2f×", med(v, n)) : "—"
}
function row(label, p) {
	printf "| %s | %s (%s) | %s (%s) | %s (%s) | %s (%s) |\n", label, cell(p, "stat1"), ratio(p, "stat1"),
		cell(p, "orc1"), ratio(p, "orc1"), cell(p, "orc2"), ratio(p, "orc2"),
		cell(p, "stat4"), ratio(p, "stat4")
}
# The default over -s, the median over rounds of the ratio in each round.
function pool(m,   v, n, r) {
	n = 0
	for (r = 1; r <= maxr; r++)
		if ((r, "cfs-mt", m) in val && val[r, "cfs-s", m] > 0) v[++n] = val[r, "cfs-mt", m] / val[r, "cfs-s", m]
	return n ? sprintf("%.2f×", med(v, n)) : "—"
}
# CPU per operation: µs, one decimal.
function cpucell(p, m,   v, n, r) {
	n = 0
	for (r = 1; r <= maxr; r++) if ((r, p, m) in val) v[++n] = val[r, p, m]
	return n ? sprintf("%.1f", med(v, n)) : "—"
}
function cpurow(label, p) {
	printf "| %s | %s (%s) | %s (%s) | %s (%s) |\n", label,
		cpucell(p, "cpu_stat1"), ratio(p, "cpu_stat1"), cpucell(p, "cpu_orc1"),
		ratio(p, "cpu_orc1"), cpucell(p, "cpu_orc2"), ratio(p, "cpu_orc2")
}
{ val[$1, $2, $3] = $4; if ($1 > maxr) maxr = $1 }
END {
	print "| peer | first stat (stats/s, × fsfloor -s) | first open + read + close (files/s, ×) | second (files/s, ×) | first stat, four clients at once (stats/s, ×) |"
	print "|---|--:|--:|--:|--:|"
	row("fsfloor -s: no work, one thread (the floor)", "floor-s")
	row("fsfloor: no work, libfuse multi-threaded loop", "floor-mt")
	row("casefoldfs (default: multi-threaded)", "cfs-mt")
	row("casefoldfs -s", "cfs-s")
	row("casefoldfs as uid 65534 (its own mount, default)", "cfs-user")
	row("bindfs (default: one thread)", "bindfs-s")
	row("bindfs --multithreaded", "bindfs-mt")
	row("backing ext4", "ext4")
	print ""
	printf "casefoldfs by default over casefoldfs -s, same round (target ≥ 0.95× with one client, > 1× with four; issue 40): first stat %s, first open %s, second %s; four clients %s.\n", pool("stat1"), pool("orc1"), pool("orc2"), pool("stat4")
	print ""
	print "The daemon'"'"'s CPU time (the time its threads ran, from /proc/PID/task/*/schedstat) per operation, µs (× fsfloor -s'"'"'s; target ≤ 1.5×, issue 40); a first stat is one LOOKUP for every peer:"
	print ""
	print "| peer | first stat | first open + read + close | second |"
	print "|---|--:|--:|--:|"
	cpurow("fsfloor -s", "floor-s")
	cpurow("fsfloor, multi-threaded", "floor-mt")
	cpurow("casefoldfs (default)", "cfs-mt")
	cpurow("casefoldfs -s", "cfs-s")
	cpurow("casefoldfs as uid 65534", "cfs-user")
	cpurow("bindfs (default)", "bindfs-s")
	cpurow("bindfs --multithreaded", "bindfs-mt")
}' "$R"
echo
echo "Section time: $(($(date +%s) - START)) s."
echo

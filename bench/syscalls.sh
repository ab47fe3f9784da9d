#!/bin/sh
# The daemon's own system calls per file (issue 29's profile), counted with
# `strace -c -f -p PID` around one pass of each workload on a fresh mount:
#   stat  fsbench statall miscased: a first LOOKUP by another spelling;
#   orc1  fsbench readall, first pass: LOOKUP, OPEN, READ, RELEASE;
#   orc2  the same again in that mount: OPEN and RELEASE (pages kept).
# Peers: root's daemon and an ordinary user's (uid 65534, no capabilities,
# through fusermount3), each on a tree it filled itself in +F directories
# (exact names for readall). N files per workload, more than the descriptor
# cache's 4,096 slots so that evictions show. Counts do not depend on the
# machine's load, times do: none are taken here (bench/cache.sh).
# Prints, per peer and workload, each system call's count divided by N.
# Usage: bench/syscalls.sh BUILD_DIR (as root). Knobs:
#   CF_SYSCALLS_N=10000          files per workload
#   CF_SYSCALLS_PEERS="root user"
#   CF_SYSCALLS_DAEMON=          a casefoldfs binary to count instead of
#                                BUILD_DIR's (an older build, for before/after)
set -u
O=${1:-build}
N=${CF_SYSCALLS_N:-10000}
PEERS=${CF_SYSCALLS_PEERS:-root user}

. bench/prelude.sh
prelude "mounts, setpriv, strace" setpriv strace
prelude_build "$O" "${CF_SYSCALLS_DAEMON:-}"

T=$(mktemp -d "${TMPDIR:-/var/tmp}/casefold-syscalls.XXXXXX") || exit 1
chmod 755 "$T"   # uid 65534 goes through it to its tree
PID='' FUSE_MODE=
cleanup() {
	unmount_all "$T/root.mnt" "$T/user.mnt"
	[ -z "$PID" ] || kill "$PID" 2>/dev/null || :
	[ -z "$FUSE_MODE" ] || chmod "$FUSE_MODE" /dev/fuse
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
prelude_user "$T"

# mount_peer PEER: its daemon in the foreground, PID set; run: how its clients run.
mount_peer() {
	B=$T/$1.backing M=$T/$1.mnt
	if [ "$1" = user ]; then
		run=as_user fsb=$UF
		setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
			"$UCFS" -f "$B" "$M" 2>>"$T/daemon.log" &
	else
		run='' fsb=$F
		"$CFS" -f "$B" "$M" 2>>"$T/daemon.log" &
	fi
	PID=$!
	wait_mount "$M" "$PID"
}
umount_peer() {
	fusermount3 -u "$M"
	wait "$PID" || die "$1's daemon exited with status $?"
	PID=
}

# count PEER WHAT COMMAND...: COMMAND under the daemon's strace; one line
# per system call: PEER WHAT CALL CALLS/N.
count() {
	peer=$1 what=$2
	shift 2
	strace -c -f -p "$PID" -o "$T/strace" 2>"$T/strace.err" &
	st=$!
	# attached once strace says so for every thread
	i=0
	until grep -q attached "$T/strace.err" 2>/dev/null || [ $i -ge 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	sleep 0.5
	$run "$@" >"$T/out" 2>&1
	grep -qx 'errors 0' "$T/out" || die "$peer $what: $(tr '\n' ' ' <"$T/out")"
	kill -INT "$st"
	wait "$st"
	awk -v p="$peer" -v w="$what" -v n="$N" '
		$NF == "total" || $1 == "%" || $1 ~ /^-/ { next }
		NF >= 5 { printf "%s %s %s %.2f\n", p, w, $NF, $4 / n }' "$T/strace"
}

for peer in $PEERS; do
	mkdir "$T/$peer.backing" "$T/$peer.mnt"
	[ "$peer" = root ] || chown 65534:65534 "$T/$peer.backing" "$T/$peer.mnt"
	mount_peer "$peer"
	for d in stat files; do
		$run mkdir "$M/$d" && $run chattr +F "$M/$d" || die "$peer: $M/$d"
	done
	$run "$fsb" create "$M/stat" "$N" >/dev/null &&
		$run "$fsb" create -s 4096 "$M/files" "$N" >/dev/null || die "$peer: create"
	umount_peer "$peer"
	mount_peer "$peer"
	count "$peer" stat "$fsb" statall miscased "$M/stat" "$N"
	count "$peer" orc1 "$fsb" readall "$M/files" "$N" 4096
	count "$peer" orc2 "$fsb" readall "$M/files" "$N" 4096
	umount_peer "$peer"
done

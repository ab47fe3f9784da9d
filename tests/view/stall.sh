#!/usr/bin/env bash
# One user must not stall root's overlay view for the others (issue 33),
# with the attacks tests/fs/stall.sh and nested.sh make on a tree's mount: uid 65534
# owns a directory of the lower layer and, through the view (allow_other),
#  1. reads 70 of its files on which it holds write leases that it never
#     gives up (each open waits for a break: lease-break-time, 45 s);
#  2. reads 70 of its files once, replaces them by FIFOs in the lower layer
#     behind the view's back, and reads them again (an open of a FIFO waits
#     for a writer that never comes);
#  3. stats into 70 never-answering FUSE filesystems mounted (as its own,
#     allow_other) inside the lower layer.
# Meanwhile root stats files it has not looked up before (each a LOOKUP the
# view answers).  Root's p99 must stay under 50 ms, or 10 times its idle
# p99 (a margin for a loaded machine: the issue asks 10 ms, which a quiet
# one gives, fs/view/DESIGN.md), and no stat may wait 2 s; before, every worker
# of the pool waited and a stat took 20 to 40 s.
# tests/run: alone (its p99 and 2 s bounds would measure other tests' load)
set -u
CF_NEEDS_ROOT="root's view attacked by uid 65534 (setpriv, allow_other)"
. "$(dirname "$0")/../lib/attack.sh"
[ "$mode" = root ] || skip "root's view only"
n=70 probes=300

chmod 755 "$T"
mkdir -p "$B/pub" "$B/atk/L" "$B/atk/F" "$T/u" "$T/w" "$T/out"
for i in $(seq $n); do
	echo secret >"$B/atk/L/l$i"
	echo secret >"$B/atk/F/f$i"
	mkdir -p "$B/atk/d$i/hang"
done
chown -R $attacker_id:$attacker_id "$B/atk" "$T/out"
for i in $(seq $((4 * probes))); do : >"$B/pub/v$i"; done
cfs_mount -o "lowerdir=$B,upperdir=$T/u,workdir=$T/w,allow_other"

read -r idle idle_max < <(p99 1 "$probes")
limit=$((idle * 10 > 50000 ? idle * 10 : 50000))
# judge NAME FIRST: root's p99 over the next $probes fresh names.
judge() {
	local attacked worst start=$SECONDS
	read -r attacked worst < <(p99 "$2" $(($2 + probes - 1)))
	echo "$1: root's stat p99 (max) ${attacked} (${worst}) us, idle ${idle} (${idle_max}) us, limit $limit us ($((SECONDS - start)) s)"
	[ "$attacked" -le "$limit" ] || fail "$1: stat p99 ${attacked} us (limit $limit)"
	[ "$worst" -le 2000000 ] || fail "$1: a stat waited ${worst} us"
}

# ---- 1. leases
hold_leases "$B/atk/L" $n
pids=()
for i in $(seq $n); do
	attacker sh -c "cat '$M/atk/L/l$i' >'$T/out/l$i' 2>&1" &
	pids+=($!)
done
sleep 2
judge leases $((probes + 1))
release_leases
for p in "${pids[@]}"; do wait "$p"; done
echo "leases: attacker's reads: $(grep -lx secret "$T"/out/l* | wc -l) waited for the break," \
	"$(grep -l 'temporarily unavailable' "$T"/out/l* | wc -l) refused (EWOULDBLOCK)"

# ---- 2. FIFOs swapped in behind the view
for i in $(seq $n); do attacker cat "$M/atk/F/f$i" >/dev/null || fail "first read of f$i"; done
for i in $(seq $n); do
	attacker sh -c "rm '$B/atk/F/f$i' && mkfifo '$B/atk/F/f$i'" || fail "fifo swap"
done
pids=()
for i in $(seq $n); do
	attacker timeout 30 sh -c "cat '$M/atk/F/f$i' >'$T/out/f$i' 2>&1" &
	pids+=($!)
done
sleep 2
judge fifos $((2 * probes + 1))
for p in "${pids[@]}"; do wait "$p"; done
grep -q 'No such file' "$T/out/f1" || fail "a read of a swapped FIFO: $(cat "$T/out/f1")"

# ---- 3. never-answering FUSE mounts inside the lower layer
hang_mounts "$B/atk" $n
pids=()
for i in $(seq $n); do
	attacker sh -c "stat '$M/atk/d$i/hang/x' >'$T/out/s$i' 2>&1" &
	pids+=($!)
done
sleep 2
judge mounts $((3 * probes + 1))
end_hangs
for p in "${pids[@]}"; do wait "$p"; done
unmount_hangs
denied=$(grep -l 'Permission denied' "$T"/out/s* | wc -l)
[ "$denied" = $n ] || fail "attacker's stats: $(cat "$T"/out/s* | sort | uniq -c | head -3)"
cfs_umount

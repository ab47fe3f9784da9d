#!/usr/bin/env bash
# A FUSE filesystem that never answers, mounted by another user inside the
# backing tree, must not stall the mount (issue 24, finding 3).  Here root
# stages uid 65534's mount (user_id=65534, allow_other, as fusermount3 would
# make it where /etc/fuse.conf has user_allow_other) of a /dev/fuse nobody
# reads — not even INIT — on each of $B/atk/d1..70/hang; uid 65534 then
# stats into all 70 at once through casefoldfs (in distinct directories:
# the kernel sends one lookup at a time per directory), more than the
# daemon's 64 workers.  The
# daemon does not enter another user's FUSE mount (EACCES, seen without a
# request to it: statx AT_STATX_DONT_SYNC), so root's stats elsewhere keep
# their idle latency (p99 within 10 times idle or 200 ms, none 2 s); before,
# every worker waited in request_wait_answer until the attacker gave up.
#
# Then again against uid 65534's own daemon with allow_other (user_allow_other
# in a private /etc/fuse.conf, bound over the host's in a private mount
# namespace, as userperms.sh does), attacked by uid 4242.
set -u
CF_NEEDS_ROOT="root mounts never-answering FUSE filesystems as uid 65534 (user_id=65534) inside root's and uid 65534's trees"
. "$(dirname "$0")/attack.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || skip "no $PY"
n=70 probes=300

chmod 755 "$T"
mkdir -p "$B/pub"
for i in $(seq $n); do mkdir -p "$B/atk/d$i/hang"; done
chown -R $attacker_id:$attacker_id "$B/atk"
for i in $(seq $((2 * probes))); do : > "$B/pub/v$i"; done
unmount_hangs() { for i in $(seq $n); do umount -l "$B/atk/d$i/hang" 2>/dev/null; done; }
trap 'unmount_hangs; cleanup' EXIT
if [ "$mode" = user ]; then
	chown 65534:65534 "$B" "$M"
	CFS_AS=65534 cfs_mount -o allow_other
else
	cfs_mount -o allow_other
fi

"$PY" - "$B/atk" "$n" $attacker_id > "$T/hang.out" 2>&1 <<'PY' &
import os, subprocess, sys, time
fds = []
for i in range(1, int(sys.argv[2]) + 1):
    fd = os.open("/dev/fuse", os.O_RDWR)
    fds.append(fd)
    subprocess.run(["mount", "-i", "-t", "fuse.hang", "-o",
                    "fd=%d,rootmode=40000,user_id=%s,group_id=%s,allow_other" % (fd, sys.argv[3], sys.argv[3]),
                    "hang", "%s/d%d/hang" % (sys.argv[1], i)], pass_fds=[fd], check=True)
print("mounted", os.getpid(), flush=True)
time.sleep(25)   # then the connection closes: every waiter gets ENOTCONN
PY
for _ in $(seq 100); do grep -q mounted "$T/hang.out" && break; sleep 0.1; done
grep -q mounted "$T/hang.out" || { cat "$T/hang.out"; skip "cannot stage a FUSE mount"; }

read -r idle idle_max < <(p99 1 "$probes")
mkdir "$T/out" && chown $attacker_id:$attacker_id "$T/out"
pids=()
for i in $(seq $n); do
	attacker sh -c "stat '$M/atk/d$i/hang/x' > '$T/out/s$i' 2>&1" &
	pids+=($!)
done
sleep 2
start=$SECONDS
read -r attacked worst < <(p99 $((probes + 1)) $((2 * probes)))
took=$((SECONDS - start))
kill "$(sed -n 's/^mounted //p' "$T/hang.out")" 2>/dev/null
for p in "${pids[@]}"; do wait "$p"; done
unmount_hangs
denied=$(grep -l 'Permission denied' "$T"/out/s* | wc -l)
echo "$mode's daemon: root's stat p99 (max): idle ${idle} (${idle_max}) us, during the attack ${attacked}" \
	"(${worst}) us ($probes stats in ${took} s); attacker's $n stats: $denied EACCES"
limit=$((idle * 10 > 200000 ? idle * 10 : 200000))
[ "$attacked" -le "$limit" ] || fail "stat p99 ${attacked} us during the nested-mount attack"
[ "$worst" -le 2000000 ] || fail "a stat waited ${worst} us during the nested-mount attack"
[ "$denied" = $n ] || fail "attacker's stats: $(cat "$T"/out/s* | sort | uniq -c | head)"
CFS_AS=$([ "$mode" = user ] && echo 65534) cfs_umount
[ "$mode" = user ] || CF_AVAIL_MODE=user "$0" || exit $?

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
# tests/run: alone (its p99 and 2 s bounds would measure other tests' load)
set -u
CF_NEEDS_ROOT="root mounts never-answering FUSE filesystems as uid 65534 (user_id=65534) inside root's and uid 65534's trees"
. "$(dirname "$0")/../lib/attack.sh"
n=70 probes=300

chmod 755 "$T"
mkdir -p "$B/pub"
for i in $(seq $n); do mkdir -p "$B/atk/d$i/hang"; done
chown -R $attacker_id:$attacker_id "$B/atk"
for i in $(seq $((2 * probes))); do : > "$B/pub/v$i"; done
victim_mount

hang_mounts "$B/atk" $n

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
end_hangs
for p in "${pids[@]}"; do wait "$p"; done
unmount_hangs
denied=$(grep -l 'Permission denied' "$T"/out/s* | wc -l)
echo "$mode's daemon: root's stat p99 (max): idle ${idle} (${idle_max}) us, during the attack ${attacked}" \
	"(${worst}) us ($probes stats in ${took} s); attacker's $n stats: $denied EACCES"
limit=$((idle * 10 > 200000 ? idle * 10 : 200000))
[ "$attacked" -le "$limit" ] || fail "stat p99 ${attacked} us during the nested-mount attack"
[ "$worst" -le 2000000 ] || fail "a stat waited ${worst} us during the nested-mount attack"
[ "$denied" = $n ] || fail "attacker's stats: $(cat "$T"/out/s* | sort | uniq -c | head)"
victim_done

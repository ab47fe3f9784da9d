#!/usr/bin/env bash
# A daemon told to stop while another user stalls its watcher exits.  The
# attack of watchstall.sh (a user churns names in a +F directory of 100,000
# names behind the daemon's back while six threads look up other spellings
# through the mount) keeps the entry invalidator waiting in the kernel for
# the directory's lock, which a LOOKUP still queued holds.  The daemon used
# to stop its workers first and then wait for that thread: nothing could
# answer the LOOKUP, so SIGTERM never ended the daemon and the mount stayed
# (seen: still alive 20 s later, the invalidator in
# fuse_reverse_inval_entry).  Now the watcher stops while the workers still
# answer.  Two SIGTERMs, each 3 s into a fresh attack, must each end the
# daemon within 20 s (it took 2-3 s on a quiet 2-core machine); root's
# daemon (fanotify), then a user's (inotify), each attacked by another user.
# tests/run: alone (each SIGTERM must end the daemon within 20 s, under an attack of its own)
set -u
CF_NEEDS_ROOT="root's daemon and uid 65534's, each attacked by another user (setpriv to uids 65534 and 4242)"
. "$(dirname "$0")/../lib/attack.sh"
names=100000 rounds=2 limit_s=20

chmod 755 "$T"
churn_dir $names
[ "$mode" = root ] || chown 65534:65534 "$B" "$M"
stop=$T/stop   # the attack ends when root makes this file
for round in $(seq $rounds); do
	rm -f "$stop"
	CFS_AS=$([ "$mode" = user ] && echo 65534) cfs_mount -o allow_other
	churn_attack 120 "$stop"
	sleep 3   # under way: lookups rebuilding the index, invalidations waiting
	kill -TERM "$CFS_PID"
	start=$SECONDS
	while kill -0 "$CFS_PID" 2>/dev/null && [ $((SECONDS - start)) -lt $limit_s ]; do
		sleep 0.1
	done
	if kill -0 "$CFS_PID" 2>/dev/null; then
		stacks=$(cat /proc/"$CFS_PID"/task/*/stack 2>/dev/null | grep -o 'fuse_[a-z_]*' | sort | uniq -c | tr -s " \n" " ")
		: > "$stop"
		fail "round $round: $mode's daemon still runs ${limit_s} s after SIGTERM under the attack; in the kernel: ${stacks:-?}"
	fi
	wait "$CFS_PID"
	rc=$?
	CFS_PID=
	: > "$stop"
	wait $atk
	grep -q started "$T/attack.out" || fail "the attack did not run: $(cat "$T/attack.out")"
	[ "$rc" = 0 ] || { cat "$T/daemon.log" >&2; fail "round $round: the daemon exited with status $rc"; }
	! mounted || fail "round $round: the mount outlived its daemon"
	echo "$mode's daemon, round $round: SIGTERM under the stall attack ended it in $((SECONDS - start)) s"
done
[ "$mode" = user ] || CF_AVAIL_MODE=user "$0" || exit $?

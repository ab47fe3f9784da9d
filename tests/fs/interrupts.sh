#!/usr/bin/env bash
# Callers killed in the middle of a request (issue 30: the daemon's own
# loop ignores INTERRUPT and answers; a reply to a request that is gone
# must cost nothing).  Readers and creators are killed with SIGKILL while
# their requests are queued behind a stopped daemon, then while the
# daemon is busy answering; afterwards the mount answers as before, the
# daemon's records are whole (no leaked open file: the tree unmounts and
# the daemon exits cleanly, sanitizers included).
. "$(dirname "$0")/lib.sh"

cfs_mount
cd "$M" || fail "cd"
casefolded ci
head -c 4000000 /dev/urandom >ci/Big.bin
for i in $(seq 50); do echo "$i" >"ci/File_$i"; done

# Queued: the daemon is stopped, the callers wait for it, and are killed.
kill -STOP "$CFS_PID"
pids=()
for i in $(seq 8); do
	(cat ci/BIG.BIN >/dev/null; stat "ci/new_$i" >/dev/null 2>&1) &
	pids+=($!)
done
sleep 0.3
kill -9 "${pids[@]}" 2>/dev/null
kill -CONT "$CFS_PID"
for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done

# Busy: callers killed at random points of their requests.
for round in $(seq 20); do
	pids=()
	for i in $(seq 4); do
		(while :; do cat ci/big.bin >/dev/null; ls ci >/dev/null
			echo x >"ci/tmp_${round}_$i"; rm -f "ci/TMP_${round}_$i"; done) 2>/dev/null &
		pids+=($!)
	done
	sleep 0.05
	kill -9 "${pids[@]}" 2>/dev/null
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
done

kill -0 "$CFS_PID" || fail "the daemon died"
cmp -s ci/BIG.BIN "$B/ci/Big.bin" || fail "a read after the kills differs"
[ "$(cat ci/file_50)" = 50 ] || fail "a small read after the kills"
echo after >ci/After || fail "a creation after the kills"
[ "$(cat "$B/ci/After")" = after ] || fail "the creation is not in the backing tree"
cd / || fail "cd /"
cfs_umount
echo "killed callers: 8 queued, 80 busy; the mount answers and the daemon exits cleanly"

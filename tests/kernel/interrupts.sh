#!/usr/bin/env bash
# Callers killed in the middle of a request (issue 30: the daemon's own
# loop ignores INTERRUPT and answers; a reply to a request that is gone
# must cost nothing).  Readers and creators are killed with SIGKILL while
# their requests are queued behind a stopped daemon, then while the
# daemon is busy answering; afterwards the mount answers as before, the
# daemon's records are whole (no leaked open file: the tree unmounts and
# the daemon exits cleanly, sanitizers included).
. "$(dirname "$0")/../lib/fs.sh"

cfs_mount
cd "$M" || fail "cd"
casefolded ci
head -c 4000000 /dev/urandom >ci/Big.bin
for i in $(seq 50); do echo "$i" >"ci/File_$i"; done

kill_callers 20

kill -0 "$CFS_PID" || fail "the daemon died"
cmp -s ci/BIG.BIN "$B/ci/Big.bin" || fail "a read after the kills differs"
[ "$(cat ci/file_50)" = 50 ] || fail "a small read after the kills"
echo after >ci/After || fail "a creation after the kills"
[ "$(cat "$B/ci/After")" = after ] || fail "the creation is not in the backing tree"
cd / || fail "cd /"
cfs_umount
echo "killed callers: 8 queued, 80 busy; the mount answers and the daemon exits cleanly"

#!/usr/bin/env bash
# A worker stuck in its handler (issue 39): the backing tree is itself a
# FUSE mount (fuse-overlayfs) whose daemon is stopped, so a lookup
# through our mount waits in a system call on it.  The daemon must log the
# request (opcode, node, the system call) after a few seconds, once; answer
# it EIO at half the request_timeout, before the kernel would abort the
# whole mount, which then still serves once the backing tree answers again;
# and end at SIGTERM while a worker is still stuck, unmounting.
CF_NEEDS_ROOT="stops a FUSE mount under the daemon's"
. "$(dirname "$0")/../lib/fs.sh"
command -v fuse-overlayfs >/dev/null || skip "no fuse-overlayfs (scripts/install-deps --tests)"
INNERM=$T/innermnt
mkdir "$T/lower" "$T/upper" "$T/work" "$INNERM"
fuse-overlayfs -f -o "lowerdir=$T/lower,upperdir=$T/upper,workdir=$T/work" "$INNERM" 2>>"$T/inner.log" &
INNER_PID=$!
at_exit "kill -CONT $INNER_PID 2>/dev/null; fusermount3 -uz '$INNERM' 2>/dev/null; kill $INNER_PID 2>/dev/null"
wait_mounted "$INNERM" "$INNER_PID" || fail "the fuse-overlayfs mount"
B=$INNERM
field() { getfattr --only-values -n "${CFS_XATTRS}stats" "$M" 2>/dev/null | tr ' ' '\n' | awk -v k="$1" 'p { print; exit } $0 == k { p = 1 }'; }

cfs_mount -o request_timeout=15
timeout=$(field request_timeout)
[ "$timeout" = 15 ] || skip "the kernel took no request_timeout (Linux < 6.14): $timeout"
mkdir "$M/d" && echo x >"$M/d/f" || fail "a file through both mounts"

# A lookup that waits on the stopped inner daemon.
kill -STOP "$INNER_PID"
start=$(date +%s.%N)
err=$(bounded 14 "a lookup on a stuck backing tree" stat "$M/d/new" 2>&1 >/dev/null)
took=$(echo "$(date +%s.%N) - $start" | bc)
case $err in
*"Input/output error"*) ;;
*) fail "the stuck lookup ended with: $err (after $took s), not EIO from the daemon" ;;
esac
echo "the stuck lookup was answered EIO after $took s"
grep -q "LOOKUP of node [0-9]* has waited [0-9]* s in system call" "$T/daemon.log" ||
	{ cat "$T/daemon.log" >&2; fail "no report of the stuck worker in the log"; }
grep -q "LOOKUP of node [0-9]* answered EIO after" "$T/daemon.log" || fail "no note of the EIO answer"
[ "$(grep -c 'has waited' "$T/daemon.log")" = 1 ] || fail "the stuck worker was reported more than once"
kill -CONT "$INNER_PID"
bounded 10 "the mount once the backing answers" cat "$M/d/f" >/dev/null ||
	fail "the mount does not serve after the stuck request"
mounted || fail "the mount is gone"

# SIGTERM while a worker is stuck: the daemon ends, and unmounts.
kill -STOP "$INNER_PID"
stat "$M/d/other" >/dev/null 2>&1 &
caller=$!
sleep 2
kill -TERM "$CFS_PID"
for _ in $(seq 100); do kill -0 "$CFS_PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$CFS_PID" 2>/dev/null && { daemon_stacks >&2; fail "SIGTERM did not end the daemon within 10 s"; }
wait "$CFS_PID"
CFS_PID=
grep -q "ending with a worker still in LOOKUP" "$T/daemon.log" || fail "no note of the worker left behind"
wait "$caller"
kill -CONT "$INNER_PID"
wait_unmounted "$M"
grep -h "of node [0-9]* \\|ending with" "$T/daemon.log"
echo "ok: a stuck worker reported once, answered EIO at half the request_timeout; SIGTERM ends the daemon anyway"

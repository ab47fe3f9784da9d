#!/usr/bin/env bash
# The availability attacks again with FUSE over io_uring: stall.sh (lease
# breaks that never come), nested.sh (never-answering FUSE mounts inside
# the tree), watchstall.sh and stopstall.sh (a stalled watcher, and a stop
# under it), each with -o uring and the fuse module's enable_uring set, on
# root's daemon and on uid 65534's through fusermount3 (each suite runs
# both).  Every mount they make must serve by io_uring (CF_URING_ON), and
# the attacker and the victim's probes run on CPU 0 alone (CF_ATTACK_CPU),
# so that their requests share one queue: a queue's entries each have a
# thread, so a handler that blocks holds its entry, not its CPU's queue.
# (With one entry a queue, stall.sh failed so: a stat waited 16.4 s.)  The
# suite sets enable_uring, and its EXIT step puts the previous value back
# whatever happens.
# tests/run: alone (its suites' p99 bounds, and enable_uring is the whole machine's)
CF_NEEDS_ROOT="only root may set /sys/module/fuse/parameters/enable_uring"
. "$(dirname "$0")/../lib/fs.sh"

P=/sys/module/fuse/parameters/enable_uring
uring_enable

cfs_mount -o uring
stats=$(getfattr --only-values -n "${CFS_XATTRS}stats" "$M" 2>/dev/null)
cfs_umount
case $stats in
*"io_uring off:kernel"*) skip "the kernel offers no FUSE_OVER_IO_URING although $P is Y" ;;
*"io_uring off:"*) fail "io_uring is off: $stats" ;;
esac

. "$(dirname "$0")/../lib/suites.sh"
taskset -c 0 true 2>/dev/null || skip "cannot run on CPU 0 alone (taskset)"
export CF_MOUNT_OPTS="-o uring" CF_URING_ON=1 CF_ATTACK_CPU=0
out=$(again fs/stall fs/nested fs/watchstall fs/stopstall)
rc=$?
echo "$out"
exit $rc

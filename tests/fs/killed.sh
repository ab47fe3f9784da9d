#!/usr/bin/env bash
# kill -9 the daemon in the middle of a workload; unmount, remount: every
# completed operation is there, with its name as created.
. "$(dirname "$0")/../lib/fs.sh"

cfs_mount
mkdir "$M/ci" && chattr +F "$M/ci" || fail "chattr"
mkdir "$M/ci/Sub"
for i in $(seq 100); do echo "$i" > "$M/ci/Sub/Before_$i"; done
# A writer that keeps going until the mount dies under it.
(i=0; while echo "$i" > "$M/ci/Sub/During_$i" 2>/dev/null; do i=$((i + 1)); done) &
writer=$!
wait_for 30 test -e "$B/ci/Sub/During_50"    # in the middle of it
kill -9 "$CFS_PID"
wait "$writer" 2>/dev/null
wait "$CFS_PID" 2>/dev/null
CFS_PID=
fusermount3 -u "$M" 2>/dev/null || fusermount3 -uz "$M" || fail "unmount after kill"

cfs_mount
lsattr -d "$M/ci/sub" | grep -q '^[^ ]*F' || fail "flag lost"
for i in $(seq 100); do
	[ "$(cat "$M/ci/SUB/before_$i")" = "$i" ] || fail "Before_$i lost"
done
during=$(ls "$B/ci/Sub" | grep -c During_)
[ "$during" -gt 0 ] || fail "the writer never ran"
[ "$(ls "$M/ci/Sub" | wc -l)" = $((100 + during)) ] || fail "listing after remount"
names "$M/ci/Sub" | grep -qx Before_1 || fail "names not intact"
touch "$M/ci/Sub/after" && [ -e "$M/ci/sub/AFTER" ] || fail "usable after remount"
cfs_umount
echo "killed: ok ($during files written during the workload)"

#!/usr/bin/env bash
# FUSE over io_uring (Linux 6.14+, offered at INIT only while the fuse
# module's enable_uring is set, which root alone may write).  The suite sets
# it, and its EXIT step puts the previous value back whatever happens: other
# mounts on the machine follow the setting.  Checked: the stats xattr says
# io_uring is on with every queue's entries registered (as many as
# uring.c's fk_uring_entries gives), and counts the requests served
# by the rings; a few hundred files created, written, read, listed, renamed
# and removed in a casefolded directory, contents compared with the backing
# tree and a lookup in another case; a 5 MB write and reads served by the
# daemon (-o nopassthrough), and reads of every size around the read path's
# boundaries (readsizes.py) and the real-tree session (realwork.sh: untar,
# find, grep, diff, git, rm -rf); callers killed while their requests
# wait on a stopped daemon and while it answers; a clean unmount (exit
# status 0, sanitizers included); without -o uring (the default), and with
# enable_uring unset, requests stay on read(2).
# tests/run: alone (enable_uring is the whole machine's: other mounts follow it)
CF_NEEDS_ROOT="only root may set /sys/module/fuse/parameters/enable_uring"
. "$(dirname "$0")/../lib/fs.sh"

P=/sys/module/fuse/parameters/enable_uring
uring_enable

stats() { getfattr --only-values -n "${CFS_XATTRS}stats" "$M" 2>/dev/null; }
field() { stats | tr ' ' '\n' | awk -v k="$1" 'p { print; exit } $0 == k { p = 1 }'; }
# The io_uring field once every entry's thread has registered ("starting" until then).
uring_state() {
	for _ in $(seq 50); do [ "$(field io_uring)" = starting ] || break; sleep 0.1; done
	field io_uring
}

cfs_mount -o uring
case $(uring_state) in
on) ;;
off:kernel) cfs_umount; skip "the kernel offers no FUSE_OVER_IO_URING although $P is Y" ;;
*) fail "io_uring is $(field io_uring): $(stats)" ;;
esac
stats | grep -q "init [a-z0-9_,]*over_io_uring" || fail "INIT's flags lack over_io_uring: $(stats)"
# The kernel's queue count: the possible CPUs ("0-3", "0,2-5").
possible=$(python3 -c '
import sys
n = 0
for r in open("/sys/devices/system/cpu/possible").read().strip().split(","):
    a, _, b = r.partition("-")
    n += int(b or a) - int(a) + 1
print(n)')
[ "$(field uring_queues)" = "$possible" ] ||
	fail "uring_queues $(field uring_queues), expected one per possible CPU ($possible)"
# Entries a queue: its share of the 64 threads, two at least, within an
# eighth of the daemon's descriptors (CF_DAEMON_NOFILE) for the rings.
share=$((64 / possible < 2 ? 2 : 64 / possible))
fds=$((CF_DAEMON_NOFILE / 8 / possible))
entries=$((fds < share ? (fds < 1 ? 1 : fds) : share))
[ "$(field uring_entries)" = "$entries" ] ||
	fail "uring_entries $(field uring_entries), expected $entries: $(stats)"
before=$(field uring_served)

cd "$M" || fail "cd"
casefolded ci
for i in $(seq 300); do
	printf 'file %d\n%0*d\n' "$i" $((i * 7)) 0 >"ci/File_$i.txt" || fail "create File_$i"
done
for i in $(seq 300); do
	cmp -s "ci/FILE_$i.TXT" "$B/ci/File_$i.txt" || fail "File_$i reads back wrong"
	[ "$(stat -c %s "ci/file_$i.txt")" = "$(stat -c %s "$B/ci/File_$i.txt")" ] ||
		fail "File_$i's size"
done
[ "$(names ci | wc -l)" = 300 ] || fail "the listing has $(names ci | wc -l) entries"
[ "$(names ci)" = "$(names "$B/ci")" ] || fail "the listing differs from the backing tree's"
for i in $(seq 2 2 300); do
	mv "ci/file_$i.TXT" "ci/Moved_$i" || fail "rename File_$i"
done
[ -e "$B/ci/Moved_150" ] && [ ! -e "$B/ci/File_150.txt" ] || fail "a rename is not in the tree"
cmp -s ci/MOVED_150 "$B/ci/Moved_150" || fail "a renamed file reads back wrong"
for i in $(seq 300); do
	if [ $((i % 2)) = 0 ]; then rm "ci/moved_$i"; else rm "ci/FILE_$i.TXT"; fi ||
		fail "unlink of file $i"
done
[ -z "$(names ci)" ] && [ -z "$(names "$B/ci")" ] || fail "files left after the unlinks"
served=$(field uring_served)
[ "$((served - before))" -ge 1500 ] ||
	fail "only $((served - before)) requests came by io_uring for the work above: $(stats)"

# Callers killed while their requests wait on a stopped daemon, then while it answers.
head -c 4000000 /dev/urandom >ci/Big.bin
kill_callers 10
kill -0 "$CFS_PID" || fail "the daemon died"
cmp -s ci/BIG.BIN "$B/ci/Big.bin" || fail "a read after the kills differs"
echo after >ci/After || fail "a creation after the kills"
[ "$(cat "$B/ci/After")" = after ] || fail "the creation is not in the backing tree"
[ "$(field io_uring)" = on ] || fail "io_uring after the kills: $(stats)"
cd / || fail "cd /"
cfs_umount

# Reads and writes through the rings too (passthrough leaves them to the
# kernel): 1 MiB requests, and READ's data put straight into the entry.
cfs_mount -o uring,nopassthrough
[ "$(uring_state)" = on ] || fail "-o nopassthrough: $(stats)"
head -c 5000000 /dev/urandom >"$T/data"
cp "$T/data" "$M/ci/Data.bin" || fail "a write through the rings"
cmp -s "$T/data" "$B/ci/Data.bin" || fail "the backing file differs from what was written"
cfs_umount
cfs_mount -o uring,nopassthrough
before=$(field uring_served)
cmp -s "$T/data" "$M/ci/DATA.BIN" || fail "a read through the rings differs"
cmp -s -i 4321000:4321000 -n 7000 "$T/data" "$M/ci/data.bin" ||
	fail "a read at an offset differs"
# 5 MB in READs of 1 MiB at most, beside two lookups and an open.
[ "$(field uring_served)" -ge $((before + 8)) ] ||
	fail "the reads did not come by the rings: $before before, $(stats)"
# Every size around the read path's boundaries (readsizes.py), written
# through the rings and behind the mount, read back after a remount.
mkdir "$M/ci/sizes" "$B/behind" || fail "mkdir"
bounded 120 "io_uring: writing every size" "$CF_ROOT/tests/lib/readsizes.py" write "$M/ci/sizes" ||
	fail "io_uring: writing every size"
"$CF_ROOT/tests/lib/readsizes.py" write "$B/behind" || fail "writing behind the mount"
cfs_umount
cfs_mount -o uring,nopassthrough
for d in ci/sizes behind; do
	bounded 120 "io_uring: reading $d" "$CF_ROOT/tests/lib/readsizes.py" check "$M/$d" ||
		fail "io_uring: reads of $d"
done
rm -rf "$M/ci/sizes" "$M/behind"
# The real-tree session (realwork.sh), every request by the rings.
. "$CF_ROOT/tests/lib/realwork.sh" || fail "realwork.sh"
work "io_uring" "$M/ci" "$B/ci"
cfs_umount

# Not asked (the default): INIT does not take it, nothing comes by the rings.
cfs_mount
[ "$(field io_uring)" = off:not-asked ] || fail "without -o uring: $(stats)"
stats | grep -q over_io_uring && fail "without -o uring: INIT took over_io_uring: $(stats)"
[ "$(cat "$M/ci/after")" = after ] || fail "without -o uring: a read"
cfs_umount

# enable_uring unset: the kernel does not offer it.
echo N >"$P" || fail "unsetting $P"
cfs_mount -o uring
[ "$(field io_uring)" = off:kernel ] || fail "enable_uring N: $(stats)"
[ "$(cat "$M/ci/AFTER")" = after ] || fail "enable_uring N: a read"
cfs_umount
echo "io_uring: $possible queues of $entries entries, $((served - before)) requests served by them for 300 files;" \
	"killed callers; without -o uring, and with enable_uring N, requests come by read(2)"

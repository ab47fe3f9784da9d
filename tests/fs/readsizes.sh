#!/usr/bin/env bash
# Reads of every size around the read path's boundaries (readsizes.py: a
# page, 64 KiB, each pipe size, max_read, a READ split in two; at offset 0,
# unaligned and at the tail; whole and through a descriptor open for
# writing, which the daemon answers read by read), of files written through
# the mount and behind it, read back after a remount, on every kind of
# mount a read reaches the daemon from: root's (passthrough where the
# kernel has it), root's with -o nopassthrough, an ordinary user's own
# (uid 65534, reading as itself) and root's overlay view (its lower layer
# written behind it, its upper through it).  tests/kernel/uring.sh runs the same
# over io_uring.  A read that does not come back within its bound fails the
# test with the daemon's stacks, after aborting the connection (issue 39:
# 126,977-131,056 bytes hung a worker in its own spliced reply).
CF_NEEDS_ROOT="mounts as root and as uid 65534"
CF_USERS_MOUNT=1
. "$(dirname "$0")/../lib/fs.sh"
command -v python3 >/dev/null || skip "no python3"
chmod 755 "$T"
PY=$T/readsizes.py
cp "$(dirname "$0")/../lib/readsizes.py" "$PY" && chmod 755 "$PY" || fail "copying readsizes.py"
AS=()

# round WHAT MOUNT-COMMAND: files through the mount into $M/ci and behind it
# into $BEHIND (a directory the mount shows as behind/), a remount, and
# every read of both.
round() {
	local what=$1
	shift
	"$@"
	"${AS[@]}" mkdir "$M/ci" || fail "$what: mkdir"
	[ -n "$VIEW" ] || "${AS[@]}" chattr +F "$M/ci" || fail "$what: chattr +F"
	bounded 120 "$what: writing through the mount" "${AS[@]}" "$PY" write "$M/ci" ||
		fail "$what: writing through the mount"
	cfs_umount
	"${AS[@]}" "$PY" write "$BEHIND" || fail "$what: writing behind the mount"
	"$@"
	bounded 120 "$what: reading what was written through the mount" "${AS[@]}" "$PY" check "$M/ci" ||
		fail "$what: reads of files written through the mount"
	bounded 120 "$what: reading what was written behind the mount" "${AS[@]}" "$PY" check "$M/behind" ||
		fail "$what: reads of files written behind the mount"
	cfs_umount
}

# fresh NAME: a new backing tree $B with behind/ in it.
fresh() {
	B=$T/$1
	BEHIND=$B/behind
	mkdir -p "$BEHIND" || fail "mkdir $BEHIND"
}

VIEW=
fresh root
round "root, default" cfs_mount
fresh nopassthrough
round "root, -o nopassthrough" cfs_mount -o nopassthrough

# An ordinary user's daemon, read by that user.
fresh user
chown -R 65534:65534 "$B" "$M"
AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
CFS_AS=65534 round "uid 65534's own mount" cfs_mount
AS=()

# Root's overlay view: behind/ is in the lower layer.
VIEW=1
L=$T/lower U=$T/upper W=$T/work
mkdir -p "$L/behind" "$U" "$W"
BEHIND=$L/behind
round "root's overlay view" cfs_start -o "lowerdir=$L,upperdir=$U,workdir=$W" "$M"
echo "ok: every read came back whole on root's, root's -o nopassthrough, a user's and a view"

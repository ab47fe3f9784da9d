#!/usr/bin/env bash
# A real tree, used as people use one: Debian's Python standard library
# (about 1,400 files, 54 MB, sizes of every kind) untarred through the mount
# into a casefolded directory, then find, grep -r, every file read back and
# compared with the source and with the backing copy, a lookup of each by
# another spelling, git add/commit/status, and rm -rf — on root's mount,
# root's with -o nopassthrough and an ordinary user's own (uid 65534,
# working as itself); tests/view/realtree.sh does the same through a view.
# Each step has a bound; one over it fails the test with the daemon's
# stacks (tests/lib/fs.sh's bounded), never hangs it (issue 39: a grep -r as a user
# hung on a 128,361-byte file).
CF_NEEDS_ROOT="mounts as root and as uid 65534"
CF_USERS_MOUNT=1
. "$(dirname "$0")/../lib/fs.sh"
. "$(dirname "$0")/../lib/realwork.sh"

# round WHAT MOUNT-ARGS...: a fresh backing tree, a casefolded ci/ in it.
round() {
	local what=$1
	shift
	B=$T/back-$RANDOM
	mkdir "$B"
	[ -z "${CFS_AS:-}" ] || chown 65534:65534 "$B" "$M"
	cfs_mount "$@"
	"${AS[@]}" mkdir "$M/ci" && "${AS[@]}" chattr +F "$M/ci" || fail "$what: chattr +F"
	work "$what" "$M/ci" "$B/ci"
	cfs_umount
}

round "root, default"
round "root, -o nopassthrough" -o nopassthrough
AS=(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp)
CFS_AS=65534 round "uid 65534's own mount"
AS=()

echo "ok: $FILES files untarred, found, grepped, read back, looked up in another case, committed and removed" \
	"on root's, root's -o nopassthrough and uid 65534's own mount"

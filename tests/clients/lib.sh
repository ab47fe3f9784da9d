# Helpers for the client tests (sourced, not run): a fresh backing tree $B
# and mount point $M under a private temporary directory $T; the daemon
# runs with -f in the background so that its exit status (sanitizer
# reports included) is checked at the unmount.  at_exit FUNCTION adds a
# cleanup step; the EXIT trap runs them, unmounts and removes everything.
set -u

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

CFS=${CF_BUILD:?CF_BUILD must name the build directory}/casefoldfs
# CF_UNPRIV=1: run as an ordinary user, who mounts through fusermount3
# (tests/fs/unprivileged.sh), as in tests/fs/lib.sh.
CF_UNPRIV=${CF_UNPRIV:-}
if [ -n "$CF_UNPRIV" ]; then
	[ -w /dev/fuse ] || skip "/dev/fuse is not usable by uid $(id -u)"
	unmount() { fusermount3 -u "$M"; }
	unmount_lazy() { fusermount3 -uz "$M"; }
else
	[ "$(id -u)" = 0 ] || skip "mounting needs root (or CF_UNPRIV=1 and a usable /dev/fuse)"
	unmount() { umount "$M"; }
	unmount_lazy() { umount -l "$M"; }
fi
[ -c /dev/fuse ] || skip "no /dev/fuse"
[ -x "$CFS" ] || skip "$CFS is not built"
command -v chattr >/dev/null || skip "no chattr"

T=$(mktemp -d /tmp/casefold-clients.XXXXXX) || exit 1
B=$T/back
M=$T/mnt
mkdir "$B" "$M"
CFS_PID=
EXIT_STEPS=

mounted() { grep -qs " $M fuse" /proc/mounts; }
at_exit() { EXIT_STEPS="$1 $EXIT_STEPS"; }
cleanup() {
	for step in $EXIT_STEPS; do "$step"; done
	if mounted; then unmount 2>/dev/null || unmount_lazy; fi
	[ -z "$CFS_PID" ] || kill "$CFS_PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# cfs_mount [OPTIONS...]: mounts $B on $M and waits until it is there, the
# daemon with few descriptors as in tests/fs/lib.sh.
cfs_mount() {
	prlimit --nofile="${CF_DAEMON_NOFILE:-256}:${CF_DAEMON_NOFILE:-256}" \
		"$CFS" -f "$@" "$B" "$M" 2>>"$T/daemon.log" &
	CFS_PID=$!
	for _ in $(seq 200); do
		mounted && return 0
		kill -0 "$CFS_PID" 2>/dev/null || break
		sleep 0.05
	done
	cat "$T/daemon.log" >&2
	fail "casefoldfs $* did not mount"
}

# cfs_umount: unmounts and checks that the daemon exited cleanly.
cfs_umount() {
	unmount || fail "unmount failed"
	wait "$CFS_PID" || { cat "$T/daemon.log" >&2; fail "daemon exited with status $?"; }
	CFS_PID=
}

# casefolded DIR: a new case-insensitive directory, made through the mount.
casefolded() { mkdir -p "$1" && chattr +F "$1" || fail "chattr +F $1"; }

# same_file A B: both names reach one inode.
same_file() { [ "$(stat -c %i "$1")" = "$(stat -c %i "$2")" ] || fail "$1 and $2 differ"; }

# names DIR: the entries of DIR as stored, one a line, sorted bytewise.
names() { (cd "$1" && LC_ALL=C ls -A); }

# tree DIR: type, mode, size, mtime and link target of every entry below
# DIR, then the content hashes of its files, sorted: equal trees print the
# same.
tree() {
	(cd "$1" && LC_ALL=C find . -mindepth 1 -printf '%P|%y|%m|%s|%T@|%l\n' | LC_ALL=C sort &&
		LC_ALL=C find . -type f -exec sha1sum {} + | LC_ALL=C sort)
}

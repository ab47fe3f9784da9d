# Helpers for the overlay view's suites (tests/view/*.sh; sourced, not run),
# on top of tests/lib/fs.sh: $T, $M, the daemon's log and the EXIT cleanup
# are fs.sh's; $B is not used (an overlay view has layers, not one tree).
#
#   ovl_mount OPTIONS [SOURCE]   casefoldfs -f -o OPTIONS [SOURCE] $M, waits
#                                until mounted (cfs_umount unmounts it and
#                                checks the daemon's exit status, as for
#                                cfs_mount)
#   ovl_try OPTIONS MOUNTPOINT   a mount that must be refused: runs the daemon
#                                in the foreground, prints its status and
#                                messages (status "mounted" if it was not)
#   fovl_mount LOWER UPPER WORK MNT / fovl_umount MNT   fuse-overlayfs
#   tree_state DIR               every name of DIR with its type, mode, size,
#                                times (m and c: any write, chmod or xattr
#                                change moves ctime), link target, device
#                                number and content hash: the same output
#                                means the tree was not written
#   view DIR                     what a user sees: names, types, modes,
#                                sizes, link targets, content hashes (no
#                                times or inode numbers, which differ between
#                                two overlay implementations)
#   is_whiteout PATH             a character device 0/0 (overlayfs's form)
#   xget PATH NAME               an xattr's value (empty if none)
#   xset PATH NAME VALUE         sets one (python3: getfattr/setfattr are
#                                not needed)
#   folded_entry DIR NAME        the one entry of DIR whose name is NAME in
#                                some case (ASCII), or fails
. "$(dirname "${BASH_SOURCE[0]}")/../lib/fs.sh"
command -v python3 >/dev/null || skip "no python3"

# ovl_mount OPTIONS [SOURCE]: cfs_start's daemon (tests/lib/fs.sh), as a view.
ovl_mount() { cfs_start -o "$1" "${@:2}" "$M"; }

# ovl_try OPTIONS MOUNTPOINT: for mounts that must fail.  Prints
# "status N: MESSAGES" (the daemon's stderr on one line), or "mounted" after
# unmounting what should not have mounted.
ovl_try() {
	local rc out
	out=$(timeout 20 "$CFS" -f -o "$1" overlay "$2" 2>&1 >/dev/null &
		pid=$!
		for _ in $(seq 100); do
			fuse_mounted "$2" && { fusermount3 -u "$2"; echo @mounted@; }
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.05
		done
		wait "$pid")
	rc=$?
	case $out in *@mounted@*) echo mounted; return ;; esac
	echo "status $rc: $(tr '\n' ' ' <<<"$out")"
}

# fuse-overlayfs, the reference for what overlayfs semantics give when no
# two names differ only in case.
FOVL_PIDS=()
fovl_mount() { # LOWER UPPER WORK MNT (UPPER empty: read-only)
	local opts=lowerdir=$1
	[ -z "$2" ] || opts=$opts,upperdir=$2,workdir=$3
	fuse-overlayfs -f -o "$opts" "$4" 2>>"$T/fovl.log" &
	FOVL_PIDS+=($!)
	at_exit "fuse_mounted '$4' && fusermount3 -uz '$4'"
	wait_mounted "$4" "${FOVL_PIDS[-1]}" || fail "fuse-overlayfs did not mount: $(tail -n 5 "$T/fovl.log")"
}
fovl_umount() { fusermount3 -u "$1" || fail "fusermount3 -u $1"; }

tree_state() {
	(cd "$1" && LC_ALL=C find . -printf '%P|%y|%m|%s|%T@|%C@|%l|%D:%i|%U:%G\n' | LC_ALL=C sort &&
		LC_ALL=C find . -type f -exec sha256sum {} + | LC_ALL=C sort) ||
		fail "cannot read $1"
}
view() {
	(cd "$1" && LC_ALL=C find . -mindepth 1 -printf '%P|%y|%m|%s|%l\n' | LC_ALL=C sort &&
		LC_ALL=C find . -type f -exec sha256sum {} + | LC_ALL=C sort) ||
		fail "cannot read $1"
}

is_whiteout() { [ "$(stat -c '%F %t:%T' "$1" 2>/dev/null)" = "character special file 0:0" ]; }

xget() {
	python3 -c 'import os, sys
try: sys.stdout.write(os.getxattr(sys.argv[1], sys.argv[2], follow_symlinks=False).decode())
except OSError: pass' "$1" "$2"
}
xset() {
	python3 -c 'import os, sys; os.setxattr(sys.argv[1], sys.argv[2], sys.argv[3].encode(), follow_symlinks=False)' \
		"$1" "$2" "$3" || fail "setxattr $2 on $1"
}

folded_entry() { # DIR NAME
	local found
	found=$(cd "$1" && LC_ALL=C ls -A | grep -ix -- "$2") || fail "nothing like $2 in $1"
	[ "$(wc -l <<<"$found")" = 1 ] || fail "several entries like $2 in $1: $(tr '\n' ' ' <<<"$found")"
	echo "$found"
}

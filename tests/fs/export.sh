#!/usr/bin/env bash
# NFS export's side of the FUSE protocol (issue 21, part 2a), driven with
# name_to_handle_at / open_by_handle_at as nfsd drives it (tests/fs/fhandle.c):
# the kernel encodes (node id, generation) in a handle; a handle whose inode
# it still has opens directly; one it forgot (drop_caches: FORGET) or one
# from an earlier mount reaches the daemon as LOOKUP(id, ".").  The daemon
# must answer the right object or ESTALE — never another object, never a
# crash — even when the forgotten node's address has been reused by a new
# node since (its generation differs).  The real NFS server and client are
# tests/fs/nfs.sh.
. "$(dirname "$0")/lib.sh"

[ -z "$CF_UNPRIV" ] || skip "open_by_handle_at needs CAP_DAC_READ_SEARCH"
"${CC:-cc}" -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -O2 -o "$T/fhandle" \
	"$CF_ROOT/tests/fs/fhandle.c" || fail "cannot build the handle helper"
fh() { "$T/fhandle" "$@"; }

# check HANDLE WANT: opening HANDLE gives WANT, or ESTALE when stale is allowed.
check() {
	local got
	got=$(fh open "$M" "$T/$1")
	[ "$got" = "$2" ] || { [ -n "${3:-}" ] && [ "$got" = ESTALE ]; } ||
		fail "handle $1: $got, expected $2${3:+ or ESTALE}"
	echo "  $1: $got"
}

cfs_mount
cd "$M" || fail "cd"
casefolded ci
mkdir -p ci/Sub/Deep
echo hello > ci/File.txt
echo deep > ci/Sub/Deep/X
fh save ci/FILE.TXT "$T/file" && fh save ci/sub/DEEP "$T/dir" && fh save ci "$T/ci" &&
	fh save . "$T/root" || fail "name_to_handle_at"
echo "while the kernel has the inodes:"
check file "file hello"
check dir "dir X"
check ci "dir File.txt Sub"
check root "dir ci"

# The kernel forgets them; new nodes may take the freed addresses.
cd /
sync && echo 3 > /proc/sys/vm/drop_caches
for i in $(seq 50); do echo "new $i" > "$M/ci/new$i"; done
cat "$M"/ci/new* >/dev/null
echo "after FORGET (LOOKUP of \".\"):"
check file "file hello" stale
check dir "dir X" stale
check root "dir ci"    # the root never goes stale
# Handles made now are as good as new.
fh save "$M/ci/new7" "$T/new7" || fail "save new7"
check new7 "file new 7"

# A daemon restarted under the handles: right object or ESTALE.
cfs_umount
cfs_mount
echo "after a restart:"
check file "file hello" stale
check dir "dir X" stale
check new7 "file new 7" stale
check root "dir ci"
cfs_umount

# -o nfs_nodes=N: forgotten nodes stay (with their ids and generations), so
# handles resolve after FORGET; a new lookup of the object gets the same id.
rm -rf "${B:?}"/* && mkdir "$B/d"
cfs_mount -o nfs_nodes=1000
mkdir -p "$M/d/Sub" && echo kept > "$M/d/Sub/File" && echo other > "$M/d/Other"
fh save "$M/d/Sub/File" "$T/kfile" && fh save "$M/d/Sub" "$T/kdir" && fh save "$M/d" "$T/kd" ||
	fail "save"
id1=$(stat -c %i "$M/d/Sub/File")
sync && echo 3 > /proc/sys/vm/drop_caches
echo "nfs_nodes=1000, after FORGET:"
check kfile "file kept"
check kdir "dir File"
check kd "dir Other Sub"
# The object looked up again: the same node (the kernel's inode for the handle).
fh save "$M/d/Sub/File" "$T/kfile2" && cmp -s "$T/kfile" "$T/kfile2" ||
	fail "a forgotten node's object got another handle (node id) on its next lookup"
[ "$(stat -c %i "$M/d/Sub/File")" = "$id1" ] || fail "st_ino changed"
# Removed meanwhile: ESTALE, not another object.
rm "$M/d/Other" && fh save "$M/d" "$T/kd" && echo new > "$M/d/New"
sync && echo 3 > /proc/sys/vm/drop_caches
check kfile "file kept"
check kd "dir New Sub"
cfs_umount

# A small list: the oldest forgotten nodes go, their handles are ESTALE.
cfs_mount -o nfs_nodes=2
for i in 1 2 3 4 5 6; do echo "f$i" > "$M/d/f$i"; fh save "$M/d/f$i" "$T/f$i" || fail "save f$i"; done
sync && echo 3 > /proc/sys/vm/drop_caches
for i in 1 2 3 4 5 6; do check "f$i" "file f$i" stale; done
cfs_umount
echo "export: ok"

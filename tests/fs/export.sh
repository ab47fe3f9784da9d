#!/usr/bin/env bash
# NFS export's side of the FUSE protocol (issue 21, part 2), driven with
# name_to_handle_at / open_by_handle_at as nfsd drives it (tests/fs/fhandle.c):
# the kernel encodes (node id, generation) in a handle; a handle whose inode
# it still has opens directly; one it forgot (drop_caches: FORGET) or one
# from an earlier mount reaches the daemon as LOOKUP(id, "."), and a
# directory is reconnected by LOOKUPs of "..".  The daemon must answer the
# right object or ESTALE — never another object, never a crash.
#
# Root's daemon on a backing filesystem with FILEID_INO32_GEN handles (an
# ext4 image here) derives node ids from them, so its
# handles resolve after FORGET and after a restart; a removed object's is
# ESTALE, even when a new file has its inode number.  Path locators
# (-o nohandles) and filesystems with longer handles (tmpfs) count ids:
# ESTALE after a restart, -o nfs_nodes keeps forgotten ones resolvable.
# The real NFS server and client are tests/fs/nfs.sh.
CF_NEEDS_ROOT="open_by_handle_at, as nfsd uses it, needs CAP_DAC_READ_SEARCH, and the ext4 image is a loop mount"
. "$(dirname "$0")/../lib/fs.sh"

case $CF_MOUNT_OPTS in
*nohandles*) skip "CF_MOUNT_OPTS has nohandles: no ids derived from handles (the suite tests both)" ;;
esac
"${CC:-cc}" -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -O2 -o "$T/fhandle" \
	"$CF_ROOT/tests/fs/fhandle.c" || fail "cannot build the handle helper"
fh() { "$T/fhandle" "$@"; }

# check HANDLE WANT [stale]: opening HANDLE gives WANT, or ESTALE when
# "stale" is allowed.  WANT may be ESTALE itself.
check() {
	local got
	got=$(fh open "$M" "$T/$1")
	[ "$got" = "$2" ] || { [ -n "${3:-}" ] && [ "$got" = ESTALE ]; } ||
		fail "handle $1: $got, expected $2${3:+ or ESTALE}"
	echo "  $1: $got"
}
save() { fh save "$M/$1" "$T/$2" || fail "name_to_handle_at $1"; }
forget() { sync && echo 3 > /proc/sys/vm/drop_caches; }
# forgotten: the daemon has freed the nodes of everything but a few (the
# kernel forgot them), so handles now reach it as LOOKUP of ".".
forgotten() {
	local n
	n=$(getfattr --only-values -n "${CFS_XATTRS}stats" "$M" 2>/dev/null | awk '{ print $2 }')
	[ -n "$n" ] && [ "$n" -lt 5 ] || fail "the daemon still has ${n:-?} nodes after drop_caches"
}

# The backing tree on a small ext4 of its own, whose inode numbers are
# predictable: a removed file's number goes to the next file made.
command -v mke2fs >/dev/null || skip "no mke2fs"
truncate -s 8M "$T/ext4.img" && mke2fs -q -t ext4 -N 256 "$T/ext4.img" || fail "mke2fs"
mkdir "$T/ext4"
mount -o loop "$T/ext4.img" "$T/ext4" 2>/dev/null || skip "cannot mount an ext4 image (loop devices)"
at_exit "umount -l '$T/ext4' 2>/dev/null"
B=$T/ext4/tree
mkdir "$B"

cfs_mount
casefolded "$M/ci"
mkdir -p "$M/ci/Sub/Deep"
echo hello > "$M/ci/File.txt"
echo deep > "$M/ci/Sub/Deep/X"
echo doomed > "$M/ci/Doomed"
save ci/FILE.TXT file && save ci/sub/DEEP dir && save ci ci && save . root && save ci/doomed doomed
echo "while the kernel has the inodes:"
check file "file hello"
check dir "dir X"
check ci "dir Doomed File.txt Sub"
check root "dir ci"
# A node id is its object's backing handle: the mount's handle of a file
# can be computed from the backing tree alone.
fh derive "$B/ci/File.txt" "$T/derived" || fail "derive"
cmp -s "$T/derived" "$T/file" ||
	fail "the mount's handle of ci/File.txt is not the one derived from its backing handle"
# A directory outside the tree, on the same filesystem: its derived handle
# opens nothing (reconnecting it through ".." reaches the filesystem's root
# without passing the mount's).
mkdir -p "$T/ext4/outside/deeper"
fh derive "$T/ext4/outside/deeper" "$T/outside" || fail "derive"
check outside ESTALE

# The kernel forgets them (FORGET): the daemon frees their nodes, whose ids
# resolve again by handle.  The removed file's inode number goes to a new
# file: its handle is ESTALE, not that file.
doomed_ino=$(stat -c %i "$B/ci/Doomed")
rm "$M/ci/Doomed"
forget
echo reborn > "$M/ci/Reborn"
[ "$(stat -c %i "$B/ci/Reborn")" = "$doomed_ino" ] ||
	fail "ext4 gave the removed file's inode number $doomed_ino to no new file"
for i in $(seq 50); do echo "new $i" > "$M/ci/new$i"; done
forget
forgotten
echo "after FORGET (LOOKUP of \".\"):"
check file "file hello"
check dir "dir X"
check doomed ESTALE
check root "dir ci"
save ci/new7 new7
check new7 "file new 7"

# A daemon restarted under the handles: the same objects, the removed one
# still ESTALE, also while the kernel has its inode number's new file.
cfs_umount
cfs_mount
echo "after a restart:"
check file "file hello"
check dir "dir X"
check new7 "file new 7"
check doomed ESTALE
cat "$M/ci/reborn" >/dev/null
check doomed ESTALE
check root "dir ci"
# Renamed and replaced while the daemon was down: the handle follows the
# object, not the name.
cfs_umount
mv "$B/ci/File.txt" "$B/ci/Renamed.txt" && echo replaced > "$B/ci/File.txt"
cfs_mount
echo "after a rename in the backing tree and a restart:"
check file "file hello"
cfs_umount

# -o case_rename: a spelling other than the stored one is an alias, with a
# counted id: its handle opens while the daemon knows the alias, and is
# ESTALE after a restart (never the file of another alias).
rm -rf "${B:?}" && mkdir -p "$B/d"
cfs_mount -o case_rename
chattr +F "$M/d" && echo aliased > "$M/d/Name" && echo other > "$M/d/Other" || fail "setup"
save d/NAME alias && save d/Name own
[ "$(stat -c %i "$M/d/NAME")" = "$(stat -c %i "$M/d/Name")" ] || fail "alias has another st_ino"
echo "case_rename aliases:"
check alias "file aliased"
check own "file aliased"
cfs_umount
cfs_mount -o case_rename
check alias ESTALE
check own "file aliased"
cfs_umount

# Path locators (-o nohandles) count ids: ESTALE after a restart, never
# another object.
cfs_mount -o nohandles
exec 3< "$M/d/Name"    # the kernel keeps the inode
save d/Name pname && save d pdir
echo "-o nohandles:"
check pname "file aliased"
exec 3<&-
forget
check pname "file aliased" stale
cfs_umount
cfs_mount -o nohandles
check pname ESTALE
check pdir ESTALE
cfs_umount

# tmpfs handles (12 bytes) do not fit an id: counted ids, and
# -o nfs_nodes=N keeps forgotten nodes (with their ids and generations), so
# handles resolve after FORGET; a new lookup of the object gets the same id.
B=$T/tmpfs
mkdir "$B"
mount -t tmpfs -o size=4m casefold-export "$B" || fail "cannot mount a tmpfs"
at_exit "umount -l '$B' 2>/dev/null"
mkdir "$B/d"
cfs_mount -o nfs_nodes=1000
mkdir -p "$M/d/Sub" && echo kept > "$M/d/Sub/File" && echo other > "$M/d/Other"
save d/Sub/File kfile && save d/Sub kdir && save d kd
id1=$(stat -c %i "$M/d/Sub/File")
forget
echo "tmpfs, nfs_nodes=1000, after FORGET:"
check kfile "file kept"
check kdir "dir File"
check kd "dir Other Sub"
# The object looked up again: the same node (the kernel's inode for the handle).
save d/Sub/File kfile2
cmp -s "$T/kfile" "$T/kfile2" ||
	fail "a forgotten node's object got another handle (node id) on its next lookup"
[ "$(stat -c %i "$M/d/Sub/File")" = "$id1" ] || fail "st_ino changed"
# Removed meanwhile: ESTALE, not another object.
rm "$M/d/Other" && save d kd && echo new > "$M/d/New"
forget
check kfile "file kept"
check kd "dir New Sub"
cfs_umount
cfs_mount -o nfs_nodes=1000
echo "tmpfs, after a restart:"
check kfile ESTALE
cfs_umount

# A small list: the oldest forgotten nodes go, their handles are ESTALE.
cfs_mount -o nfs_nodes=2
for i in 1 2 3 4 5 6; do echo "f$i" > "$M/d/f$i"; save "d/f$i" "f$i"; done
forget
for i in 1 2 3 4 5 6; do check "f$i" "file f$i" stale; done
cfs_umount
echo "export: ok"

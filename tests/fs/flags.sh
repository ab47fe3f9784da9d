#!/usr/bin/env bash
# The casefold flag through the real chattr/lsattr: set, clear, refusals,
# inheritance, nesting, persistence in the backing tree.
. "$(dirname "$0")/../lib/fs.sh"

cfs_mount
cd "$M" || fail "cd"

# Set and show; FS_IOC_GETFLAGS reports FS_CASEFOLD_FL, as Wine checks.
mkdir ci
chattr +F ci || fail "chattr +F on an empty directory"
lsattr -d ci | grep -q '^[^ ]*F[^ ]* ci$' || fail "lsattr does not show F: $(lsattr -d ci)"
lsattr -d . | grep -q '^[^ ]*F' && fail "the root is not casefolded"

# Refusals: non-empty (both directions), regular files.
touch ci/file
chattr -F ci 2>&1 | grep -q "Directory not empty" || fail "chattr -F on a non-empty dir"
lsattr -d ci | grep -q F || fail "flag lost after a refused -F"
mkdir cs
touch cs/file
chattr +F cs 2>&1 | grep -q "Directory not empty" || fail "chattr +F on a non-empty dir"
chattr +F ci 2>/dev/null || fail "setting an unchanged bit must not check emptiness"
chattr +F ci/file 2>&1 | grep -q "Operation not supported" || fail "chattr +F on a file"
lsattr ci/file >/dev/null || fail "lsattr on a regular file"
lsattr ci/file | grep -q '^[^ ]*F' && fail "files never show F"

# A directory whose entries were all removed is empty again.
rm ci/file
chattr -F ci || fail "chattr -F on an emptied directory"
lsattr -d ci | grep -q '^[^ ]*F' && fail "F still shown after -F"
chattr +F ci || fail "chattr +F again"

# Inheritance: subdirectories, not files; nested plain inside CI and back.
mkdir ci/sub
touch ci/f
lsattr -d ci/sub | grep -q '^[^ ]*F' || fail "subdirectory did not inherit F"
mkdir ci/plain
chattr -F ci/plain || fail "clearing F on an inherited empty subdir"
mkdir ci/plain/inner
lsattr -d ci/plain/inner | grep -q '^[^ ]*F' && fail "plain dir's child inherited F"
chattr +F ci/plain/inner || fail "CI inside CS inside CI"
touch ci/plain/inner/Deep ci/plain/Shallow
[ -e ci/PLAIN/inner/DEEP ] || fail "nested CI lookup"
[ -e ci/PLAIN/shallow ] && fail "the plain directory must stay case-sensitive"
[ -e ci/plain/Shallow ] || fail "exact lookup in the plain directory"

# Modes do not stand in the owner's way, as on ext4: a read-only new
# subdirectory inherits the flag, and its owner can clear it (a user's
# daemon lends itself u+w for the xattr, and gives it back).
mkdir -m 555 ci/ro && lsattr -d ci/ro | grep -q '^[^ ]*F' || fail "mkdir -m 555 lost F"
chattr -F ci/ro && ! lsattr -d ci/ro | grep -q '^[^ ]*F' || fail "chattr -F on a 555 dir"
chattr +F ci/ro && lsattr -d ci/ro | grep -q '^[^ ]*F' || fail "chattr +F on a 555 dir"
[ "$(stat -c %a "$B/ci/ro")" = 555 ] || fail "mode of a 555 dir changed"
if [ -n "$CF_UNPRIV" ]; then
	# A directory the daemon's user may not read: its flag is unknown, so
	# only an exact name is answered; anything else could be wrong.
	mkdir ci/wo && touch ci/wo/Name && chmod 311 ci/wo
	expect OK stat ci/wo/Name
	expect EACCES stat ci/wo/NAME
	expect EACCES create ci/wo/NAME
	chmod 755 ci/wo
	expect OK stat ci/wo/NAME
	[ "$(names "$B/ci/wo")" = Name ] || fail "a name was added to the unreadable directory"
fi

# The flag lives in the backing tree, out of sight through the mount.
getfattr -d -m - ci 2>/dev/null | grep -q casefoldfs && fail "our xattr is visible"
getfattr -n "${CFS_XATTRS}casefold" ci >/dev/null 2>&1 && fail "our xattr is readable"
setfattr -n "${CFS_XATTRS}casefold" -v 1 cs 2>/dev/null && fail "our xattr is writable"
getfattr -n "${CFS_XATTRS}casefold" --only-values "$B/ci" 2>/dev/null | grep -q 1 ||
	fail "backing directory lacks the flag xattr"
# Both stores' names are ours, whichever the tree uses (a tree may carry
# the other one's from a copy): invisible and refused.
for store in trusted user; do
	setfattr -n $store.casefoldfs.casefold -v 1 cs 2>/dev/null && fail "$store flag writable"
	setfattr -n $store.casefoldfs.x -v 1 cs 2>/dev/null && fail "$store.casefoldfs.x writable"
	getfattr -n $store.casefoldfs.casefold ci >/dev/null 2>&1 && fail "$store flag readable"
done
mkdir cs2 && setfattr -n user.casefoldfs.other -v 1 "$B/cs2" || fail "backing xattr"
getfattr -d -m - cs2 2>/dev/null | grep -q casefoldfs && fail "a user.casefoldfs. xattr is listed"
getfattr -n user.casefoldfs.other cs2 >/dev/null 2>&1 && fail "a user.casefoldfs. xattr is readable"
cd /
cfs_umount

# Persistent across mounts.
cfs_mount
lsattr -d "$M/ci" "$M/ci/sub" | grep -c '^[^ ]*F' | grep -q 2 || fail "flags lost on remount"
[ -e "$M/ci/SUB" ] || fail "lookups after remount"
cfs_umount

# A tree without an encoding cannot have casefolded directories.
rm -rf "$B" && mkdir "$B"
cfs_mount -o casefold=none
mkdir "$M/d"
chattr +F "$M/d" 2>&1 | grep -q "Operation not supported" || fail "+F without an encoding"
cfs_umount
echo "flags: ok"

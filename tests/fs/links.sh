#!/usr/bin/env bash
# Hard links across casefolded and plain directories, symlinks whose targets
# use another case, user xattrs, special files.
. "$(dirname "$0")/../lib/fs.sh"

cfs_mount
cd "$M" || fail "cd"
casefolded ci
mkdir cs

# Hard links: CI -> CS and CS -> CI, reached by any spelling in CI.
echo one > ci/Orig
ln ci/ORIG cs/Link || fail "link from CI into CS"
same_file ci/orig cs/Link
[ -e cs/link ] && fail "CS stays case-sensitive"
echo two > cs/Plain
ln cs/Plain ci/Linked || fail "link from CS into CI"
same_file cs/Plain ci/LINKED
[ "$(stat -c %h "$B/cs/Plain")" = 2 ] || fail "backing link count"
rm ci/linked
[ "$(stat -c %h cs/Plain)" = 1 ] || fail "link count after unlink by another spelling"
expect EEXIST link cs/Plain ci/orig

# Symlinks with inexact-case targets resolve through the casefolded dir.
ln -s ORIG ci/sym
[ "$(cat ci/SYM)" = one ] || fail "symlink to another spelling"
[ "$(readlink "$B/ci/sym")" = ORIG ] || fail "symlink target stored as given"
ln -s ../CI/orig cs/up
[ -e cs/up ] && fail "the root is case-sensitive: ../CI must not resolve"
ln -s ../ci/ORIG cs/up2
[ "$(cat cs/up2)" = one ] || fail "symlink through a casefolded component"

# User xattrs, under any spelling, stored on the backing file.
setfattr -n user.color -v blue ci/ORIG || fail "setfattr"
[ "$(getfattr --only-values -n user.color ci/orig)" = blue ] || fail "getfattr"
[ "$(getfattr --only-values -n user.color "$B/ci/Orig")" = blue ] || fail "backing xattr"
getfattr -d ci/Orig | grep -q 'user.color="blue"' || fail "listxattr"
setfattr -x user.color ci/oRiG || fail "removexattr"
getfattr -d ci/Orig | grep -q color && fail "xattr not removed"
getfattr -d -m - ci 2>/dev/null | grep -q casefoldfs && fail "bookkeeping xattr listed"

# Special files and attributes.
mkfifo ci/Pipe && [ -p ci/PIPE ] || fail "fifo"
chmod 600 ci/ORIG && [ "$(stat -c %a "$B/ci/Orig")" = 600 ] || fail "chmod"
truncate -s 10 ci/orig && [ "$(stat -c %s "$B/ci/Orig")" = 10 ] || fail "truncate"
touch -d @1000000000 ci/ORIG && [ "$(stat -c %Y "$B/ci/Orig")" = 1000000000 ] || fail "utimens"
if [ -z "$CF_UNPRIV" ]; then
	chown 1234:5678 ci/Orig && [ "$(stat -c %u:%g "$B/ci/Orig")" = 1234:5678 ] || fail "chown"
else
	# A user's daemon cannot give files away, as on any filesystem.
	chown 1234 ci/Orig 2>/dev/null && fail "chown to another user"
	[ "$(stat -c %u "$B/ci/Orig")" = "$(id -u)" ] || fail "owner of a user's file"
fi

# Symlinks in the backing tree are never followed by the daemon: removing,
# renaming or linking one by another spelling acts on the link itself.
mkdir "$T/outside" && touch "$T/outside/precious"
ln -s "$T/outside" "$B/ci/Evil"
ln ci/EVIL ci/evil2 || fail "hard link to a symlink"
[ -L "$B/ci/evil2" ] || fail "the hard link is not the symlink itself"
mv ci/evil2 ci/Evil3 && rm ci/EVIL3 ci/evil || fail "remove symlinks by other spellings"
[ -e "$T/outside/precious" ] && [ ! -L "$B/ci/Evil" ] || fail "symlink target touched"

# Ownership of new entries follows the caller (allow_other for another user).
cd /
cfs_umount
# (A user's allow_other needs user_allow_other in /etc/fuse.conf: userperms.sh.)
cfs_mount $([ -z "$CF_UNPRIV" ] && echo -o allow_other)
if [ -z "$CF_UNPRIV" ] && command -v setpriv >/dev/null; then
	chmod 755 "$T"
	chmod 1777 "$M/cs"
	setpriv --reuid 4242 --regid 4242 --clear-groups touch "$M/cs/theirs" ||
		fail "unprivileged create"
	[ "$(stat -c %u:%g "$B/cs/theirs")" = 4242:4242 ] || fail "owner of a new file"
	setpriv --reuid 4242 --regid 4242 --clear-groups touch "$M/ci/denied" 2>/dev/null &&
		fail "default_permissions must refuse a write to a root-owned 755 dir"
fi
cfs_umount

# Standard FUSE options pass through: ro.
cfs_mount -o ro
expect EROFS create "$M/cs/new"
[ -e "$M/cs/Plain" ] || fail "read-only mount lost entries"
cfs_umount
echo "links: ok"

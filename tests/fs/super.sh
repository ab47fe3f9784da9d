#!/usr/bin/env bash
# The superblock record: written by the first mount, obeyed by later ones,
# contradictions and unknown encodings refused with exit status 1, hidden
# from the mount.
CF_NEEDS_ROOT="root's trusted flag store, and mounts as uid 65534 beside root's"
CF_USERS_MOUNT=1
. "$(dirname "$0")/../lib/fs.sh"

# try OPTIONS...: a mount that must fail with status 1 and a message.
refused() {
	local out rc
	out=$("$CFS" "$@" "$B" "$M" 2>&1)
	rc=$?
	mounted && { fusermount3 -u "$M"; fail "mounted with $*"; }
	[ "$rc" = 1 ] || fail "casefoldfs $* exited with $rc"
	[ -n "$out" ] || fail "casefoldfs $* said nothing"
	echo "refused $*: $out"
}

refused -o casefold=utf8-99.0.0
[ -e "$B/.casefoldfs" ] && fail "a refused mount wrote a superblock"
cfs_mount -o casefold=utf8-12.1.0,keep_ignorables
cfs_umount
grep -qx 'casefoldfs 2' "$B/.casefoldfs" || fail "no version line"
grep -qx 'flagstore trusted' "$B/.casefoldfs" || fail "root's tree: no flagstore trusted line"
grep -qx 'encoding utf8-12.1.0' "$B/.casefoldfs" || fail "no encoding line"
grep -qx 'flags keep_ignorables' "$B/.casefoldfs" || fail "no flags line"

refused -o casefold=ascii
refused -o strict_encoding
refused -o normalize_all
cfs_mount -o casefold=utf8-12.1.0          # agrees: fine
cfs_umount
cfs_mount -o keep_ignorables               # agrees: fine
cfs_umount

# keep_ignorables came from the record: a ZWJ is now significant.
cfs_mount
mkdir "$M/ci" && chattr +F "$M/ci"
touch "$M/ci/$(printf 'a\xe2\x80\x8db')"
expect ENOENT stat "$M/ci/AB"
expect OK stat "$M/ci/$(printf 'A\xe2\x80\x8dB')"

# Hidden at the root: not listed, not found, not creatable.
ls -a "$M" | grep -q casefoldfs && fail ".casefoldfs is listed"
expect ENOENT stat "$M/.casefoldfs"
expect EPERM create "$M/.casefoldfs"
expect ENOENT unlink "$M/.casefoldfs"
cfs_umount

# A record this build cannot honour.
sed -i 's/^encoding .*/encoding utf8-99.0.0/' "$B/.casefoldfs"
refused
printf 'casefoldfs 3\nencoding utf8-12.1.0\nflags\nflagstore user\n' > "$B/.casefoldfs"
refused
printf 'casefoldfs 2\nencoding utf8-12.1.0\nflags\n' > "$B/.casefoldfs"
refused
printf 'casefoldfs 2\nencoding utf8-12.1.0\nflags\nflagstore elsewhere\n' > "$B/.casefoldfs"
refused
printf 'casefoldfs 1\nencoding utf8-12.1.0\nflags\nflagstore user\n' > "$B/.casefoldfs"
refused
printf 'casefoldfs 1\nencoding utf8-12.1.0\nflags sparkly\n' > "$B/.casefoldfs"
refused

# Other encodings for new trees; an existing mixed-case tree can be mounted.
rm -rf "$B" && mkdir -p "$B/Old/Tree" && touch "$B/Old/Tree/MixedCase"
cfs_mount -o casefold=ascii
grep -qx 'encoding ascii' "$B/.casefoldfs" || fail "ascii recorded"
[ -e "$M/Old/Tree/MixedCase" ] || fail "existing tree visible"
mkdir "$M/ci" && chattr +F "$M/ci" && touch "$M/ci/Hello"
expect OK stat "$M/ci/HELLO"
touch "$M/ci/$(printf '\xc3\x89')"                         # É: not folded in ascii
expect ENOENT stat "$M/ci/$(printf '\xc3\xa9')"
cfs_umount

# Version 1 (before flag stores) is still read, as a trusted store, and
# left as it is.
rm -rf "$B" && mkdir -p "$B/ci" && touch "$B/ci/Old"
printf 'casefoldfs 1\nencoding utf8-12.1.0\nflags\n' > "$B/.casefoldfs"
setfattr -n trusted.casefoldfs.casefold -v 1 "$B/ci"
cfs_mount
expect OK stat "$M/ci/OLD"
mkdir "$M/ci/Sub"
[ "$(getfattr --only-values -n trusted.casefoldfs.casefold "$B/ci/Sub")" = 1 ] ||
	fail "version 1: inherited flag not in trusted.*"
cfs_umount
[ "$(head -n 1 "$B/.casefoldfs")" = "casefoldfs 1" ] || fail "version 1 record rewritten"
refused -o flagstore=user

# Trees and modes (issue 14).  An ordinary user cannot mount a tree whose
# flags only root can read: every directory would look plain.
command -v setpriv >/dev/null || skip "no setpriv (the rest needs uid 65534)"
as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
chown 65534:65534 "$B" "$M" && chmod 755 "$T"
cfs_user_binary
# user_refused PATTERN OPTIONS...: a user's mount that must fail saying PATTERN.
user_refused() {
	local out rc want=$1
	shift
	out=$(as_user "$CFS_USER" "$@" "$B" "$M" 2>&1)
	rc=$?
	mounted && { fusermount3 -u "$M"; fail "uid 65534 mounted with $*"; }
	[ "$rc" = 1 ] || fail "casefoldfs $* as uid 65534 exited with $rc"
	echo "refused as 65534 $*: $out"
	echo "$out" | grep -q "$want" || fail "message lacks \"$want\": $out"
}
# /dev/fuse is usable by uid 65534 here (CF_USERS_MOUNT): the rest always runs.
user_refused "trusted.\* xattrs"
# Nor make one: refused before anything is written.
rm -rf "$B" && mkdir "$B" && chown 65534:65534 "$B"
user_refused "flagstore=trusted needs root" -o flagstore=trusted
[ -e "$B/.casefoldfs" ] && fail "a refused user mount wrote a superblock"

# A user's tree: flagstore user; root mounts it and sees its flags.
CFS_AS=65534 cfs_mount
as_user mkdir "$M/ci" && as_user chattr +F "$M/ci" && as_user touch "$M/ci/Mine" ||
	fail "user: chattr +F"
CFS_AS=65534 cfs_umount
grep -qx 'flagstore user' "$B/.casefoldfs" || fail "user's tree: no flagstore user line"
[ "$(getfattr --only-values -n user.casefoldfs.casefold "$B/ci")" = 1 ] ||
	fail "user's flag not in user.casefoldfs.casefold"
getfattr -n trusted.casefoldfs.casefold "$B/ci" >/dev/null 2>&1 && fail "user wrote trusted"
refused -o flagstore=trusted
cfs_mount
expect OK stat "$M/ci/MINE"
mkdir "$M/ci/Sub" && lsattr -d "$M/ci/Sub" | grep -q '^[^ ]*F' || fail "root: inherit"
[ "$(getfattr --only-values -n user.casefoldfs.casefold "$B/ci/Sub")" = 1 ] ||
	fail "root wrote a user tree's flag elsewhere"
cfs_umount

# Root can make a tree for both modes.
rm -rf "$B" && mkdir "$B"
cfs_mount -o flagstore=user
mkdir "$M/ci" && chattr +F "$M/ci" && touch "$M/ci/Root"
cfs_umount
grep -qx 'flagstore user' "$B/.casefoldfs" || fail "flagstore=user not recorded"
chown -R 65534:65534 "$B"
CFS_AS=65534 cfs_mount
as_user lsattr -d "$M/ci" | grep -q '^[^ ]*F' || fail "user: root's +F not shown"
as_user stat "$M/ci/ROOT" >/dev/null || fail "user: lookup in root's +F directory"
CFS_AS=65534 cfs_umount
echo "super: ok"

#!/usr/bin/env bash
# An ordinary user's mount shared with another user (issue 14): uid 65534
# (A) runs the daemon with allow_other; uid 4242 (B) uses it.  Neither can
# change the casefold flag of a directory the other owns, see or set the
# flag store through the mount, or use A's daemon to read what the backing
# modes keep from them.  The backing tree is the judge.
#
# allow_other needs user_allow_other in /etc/fuse.conf: the test binds its
# own copy over it in a private mount namespace, so the host's stays as is.
CF_NEEDS_ROOT="two other users (65534, 4242) and a private fuse.conf"
CF_USERS_MOUNT=1
. "$(dirname "$0")/../lib.sh"
cf_private_ns "$@"
. "$(dirname "$0")/../lib/fs.sh"
command -v setpriv >/dev/null || skip "no setpriv"
[ -f /etc/fuse.conf ] || skip "no /etc/fuse.conf to bind over"
echo user_allow_other > "$T/fuse.conf" && mount --bind "$T/fuse.conf" /etc/fuse.conf ||
	skip "cannot bind a private fuse.conf"

as_a() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as_b() { setpriv --reuid=4242 --regid=4242 --clear-groups "$@"; }
# flag DIR: the backing directory's flag, 1 or nothing.
flag() { getfattr --absolute-names --only-values -n user.casefoldfs.casefold "$B/$1" 2>/dev/null; }
hidden() { # WHO PATH: the store is invisible and refused through the mount
	local who=$1 p=$2
	"$who" getfattr -d -m - "$M/$p" 2>/dev/null | grep -q casefoldfs && fail "$who: listed in $p"
	"$who" getfattr -n user.casefoldfs.casefold "$M/$p" >/dev/null 2>&1 && fail "$who: read in $p"
	"$who" setfattr -n user.casefoldfs.casefold -v 1 "$M/$p" 2>/dev/null && fail "$who: set in $p"
	"$who" setfattr -x user.casefoldfs.casefold "$M/$p" 2>/dev/null && fail "$who: removed in $p"
	"$who" setfattr -n trusted.casefoldfs.casefold -v 1 "$M/$p" 2>/dev/null && fail "$who: trusted"
	return 0
}

chown 65534:65534 "$B" "$M"
# B's directories, made in the backing tree: one plain, one already +F;
# writable by all, so only ownership stands in A's way.
mkdir -m 777 "$B/b_plain" "$B/b_ci" && chown 4242:4242 "$B/b_plain" "$B/b_ci"
setfattr -n user.casefoldfs.casefold -v 1 "$B/b_ci"
# What A keeps from B, outside the tree, and a link to it inside.
mkdir -m 755 "$T/a_out" && echo private > "$T/a_out/secret" && chmod 600 "$T/a_out/secret"
chown -R 65534:65534 "$T/a_out"
ln -s "$T/a_out/secret" "$B/escape" && chown -h 65534:65534 "$B/escape"

CFS_AS=65534 cfs_mount -o allow_other
as_a mkdir -m 777 "$M/a_plain" "$M/a_ci" && as_a chattr +F "$M/a_ci" || fail "A: chattr +F own dir"
as_a sh -c "echo mine > '$M/a_ci/Private' && chmod 600 '$M/a_ci/Private'" || fail "A: write"
[ "$(flag a_ci)" = 1 ] || fail "A's +F not stored"

# Flags: the owner (as the mount reports it) or nobody.
as_a chattr +F "$M/b_plain" 2>/dev/null && fail "A set +F on B's directory"
as_a chattr -F "$M/b_ci" 2>/dev/null && fail "A cleared +F on B's directory"
as_b chattr +F "$M/a_plain" 2>/dev/null && fail "B set +F on A's directory"
as_b chattr -F "$M/a_ci" 2>/dev/null && fail "B cleared +F on A's directory"
[ -z "$(flag b_plain)" ] && [ "$(flag b_ci)" = 1 ] && [ -z "$(flag a_plain)" ] &&
	[ "$(flag a_ci)" = 1 ] || fail "a flag changed"
as_b lsattr -d "$M/a_ci" | grep -q '^[^ ]*F' || fail "B: lsattr"
# Control: B's own directory, which A's daemon may write (mode 777).
as_b chattr +F "$M/b_plain" || fail "B: chattr +F own directory"
[ "$(flag b_plain)" = 1 ] || fail "B's +F not stored"

# The flag store, for both users, on both kinds of directory.
for d in a_ci a_plain b_ci; do hidden as_a $d; hidden as_b $d; done
[ -z "$(flag a_plain)" ] && [ "$(flag a_ci)" = 1 ] || fail "a flag changed through setfattr"
as_b ls -a "$M" | grep -q casefoldfs && fail "B: .casefoldfs listed"
as_a touch "$M/.casefoldfs" 2>/dev/null && fail "A: created .casefoldfs"

# Modes still hold (default_permissions), in any spelling.
as_b cat "$M/a_ci/PRIVATE" >/dev/null 2>&1 && fail "B read A's 600 file"
as_b cat "$M/escape" >/dev/null 2>&1 && fail "B read A's file outside the tree"
as_a cat "$M/escape" >/dev/null || fail "control: A reads its own file through the link"
as_b sh -c ": > '$M/a_plain/from_b'" || fail "B: create in a 777 directory"
# A user's daemon cannot chown: what B creates is A's.
[ "$(stat -c %u "$B/a_plain/from_b")" = 65534 ] || fail "owner of B's new file"
chmod 755 "$B/a_plain"
as_b sh -c ": > '$M/a_plain/again'" 2>/dev/null && fail "B created in A's 755 directory"
[ -e "$B/a_plain/again" ] && fail "backing entry made for B"
# FS_IOC_SETVERSION reaches the daemon raw: the owner rule is the daemon's.
setver() { /usr/bin/python3 -c 'import fcntl, os, struct, sys
try: fcntl.ioctl(os.open(sys.argv[1], os.O_RDONLY), 0x40087602, struct.pack("<q", 5)); print("OK")
except OSError as e: print(e.errno)' "$1"; }
chmod 644 "$B/a_ci/Private"
[ "$(as_b bash -c "$(declare -f setver); setver '$M/a_ci/private'")" = 1 ] ||
	fail "B set the generation of A's file"
case $(as_a bash -c "$(declare -f setver); setver '$M/a_ci/private'") in
OK|25) ;;  # 25: ENOTTY, a backing filesystem without settable generations
*) fail "A could not set the generation of its file" ;;
esac
CFS_AS=65534 cfs_umount

# A backing filesystem without user.* xattrs (ramfs; tmpfs before Linux
# 6.6): the mount works and says so, chattr +F is EOPNOTSUPP.
mkdir "$T/ram" && mount -t ramfs ramfs "$T/ram" || skip "no ramfs"
trap 'mounted && fusermount3 -uz "$M"; umount -l "$T/ram"; cleanup' EXIT
chown 65534:65534 "$T/ram"
B=$T/ram CFS_AS=65534 cfs_mount
grep -q "keeps no user.\* xattrs: chattr +F will fail" "$T/daemon.log" || fail "no warning"
as_a mkdir "$M/d" || fail "mkdir on ramfs"
as_a chattr +F "$M/d" 2>&1 | grep -q "Operation not supported" || fail "+F without xattrs"
as_a lsattr -d "$M/d" | grep -q '^[^ ]*F' && fail "F shown without a store"
CFS_AS=65534 cfs_umount
echo "userperms: ok"

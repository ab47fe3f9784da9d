#!/usr/bin/env bash
# Permissions with allow_other (default_permissions is always on): uid 65534
# cannot read, list, create, remove or change flags where the backing modes
# forbid it — whatever spelling it uses in a casefolded directory — and can
# where they allow it (the controls).  The backing tree is the judge.
CF_NEEDS_ROOT="root's daemon shared with uid 65534 (allow_other)"
. "$(dirname "$0")/../lib/fs.sh"
command -v setpriv >/dev/null || skip "no setpriv"

# nobody_expect RESULT OP ARGS...: tests/lib/fs.sh's sys, run as uid 65534.
nobody_expect() {
	local want=$1 got
	shift
	got=$(as_nobody bash -c "$(declare -f sys); sys \"\$@\"" _ "$@")
	[ "$got" = "$want" ] || fail "as 65534: $* gave $got, expected $want"
}

chmod 755 "$T"
cfs_mount -o allow_other
cd "$M" || fail "cd"
casefolded ci
echo secret > ci/Secret && chmod 600 ci/Secret
mkdir -m 700 ci/Private && echo hidden > ci/Private/Inner
mkdir -m 755 ci/Open ci/Bare plain plain/Empty && echo public > ci/Open/Public
mkdir ci/Mine && chown 65534:65534 ci/Mine
chmod 755 ci

# Reading, listing.
as_nobody cat ci/SECRET >/dev/null 2>&1 && fail "read a 600 file through another spelling"
as_nobody cat ci/secret >/dev/null 2>&1 && fail "read a 600 file"
as_nobody ls ci/PRIVATE >/dev/null 2>&1 && fail "listed a 700 directory"
nobody_expect EACCES stat ci/private/INNER
as_nobody cat ci/OPEN/PUBLIC | grep -q public || fail "control: read a 644 file"
as_nobody ls ci/open | grep -qx Public || fail "control: list a 755 directory"

# Creating, removing, renaming where the directory is not writable.
nobody_expect EACCES create ci/New
nobody_expect EACCES mkdir ci/NewDir
nobody_expect EACCES create ci/OPEN/new
nobody_expect EACCES unlink ci/OPEN/PUBLIC
nobody_expect EACCES rename ci/open/public ci/open/Moved
nobody_expect EACCES symlink x ci/Open/Sym
nobody_expect OK create ci/MINE/Theirs
nobody_expect EACCES link ci/mine/THEIRS ci/open/Hard
[ "$(stat -c %u "$B/ci/Mine/Theirs")" = 65534 ] || fail "control: owner of a new file"

# Attributes and flags of what is not theirs.
as_nobody chmod 777 ci/SECRET 2>/dev/null && fail "chmod of root's file"
as_nobody setfattr -n user.x -v 1 ci/OPEN/PUBLIC 2>/dev/null && fail "setfattr on root's file"
as_nobody chattr +F plain/Empty 2>/dev/null && fail "chattr +F on root's empty directory"
as_nobody chattr -F ci/BARE 2>/dev/null && fail "chattr -F on root's empty directory"
as_nobody setfattr -n trusted.casefoldfs.casefold -v 1 plain/Empty 2>/dev/null && fail "set our xattr"
getfattr -n trusted.casefoldfs.casefold "$B/plain/Empty" >/dev/null 2>&1 && fail "flag set by 65534"
[ "$(getfattr --only-values -n trusted.casefoldfs.casefold "$B/ci/Bare")" = 1 ] ||
	fail "flag cleared by 65534"
as_nobody getfattr -n trusted.casefoldfs.index ci 2>/dev/null | grep -q names && fail "read index statistics"
as_nobody chattr +F ci/MINE/Theirs 2>/dev/null && fail "chattr +F on a file"
mkdir ci/Mine/Sub && chown 65534:65534 ci/Mine/Sub && chattr -F ci/Mine/Sub
as_nobody chattr +F ci/MINE/sub || fail "control: chattr +F on their own empty directory"
[ "$(getfattr --only-values -n trusted.casefoldfs.casefold "$B/ci/Mine/Sub")" = 1 ] ||
	fail "control: the flag is not in the backing tree"
as_nobody chattr -F ci/MINE 2>/dev/null && fail "chattr -F on a non-empty directory"

# Nothing else of theirs reached the backing tree.
found=$(cd "$B" && find . -uid 65534 | sort | tr '\n' ' ')
[ "$found" = "./ci/Mine ./ci/Mine/Sub ./ci/Mine/Theirs " ] || fail "owned by 65534: $found"
[ "$(cat "$B/ci/Secret")" = secret ] && [ "$(stat -c %a "$B/ci/Secret")" = 600 ] ||
	fail "root's file changed"
cd /
cfs_umount
echo "perms: ok"

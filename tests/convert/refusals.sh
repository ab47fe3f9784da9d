#!/usr/bin/env bash
# convert refuses, before it prints a plan or changes anything, and names
# the real cause: a filesystem that cannot casefold (its rename plan is not
# printed first), a parent directory the caller may not write (not blamed
# on the filesystem), a directory in the tree the caller may not write
# (found by the plan, not halfway through the run).  The permission cases
# run as an ordinary user (uid 65534 on its own mount in root's run), for
# whom a mode is a wall.
CF_USERS_MOUNT=1
. "$(dirname "$0")/lib.sh"

# 1. No casefolding filesystem: collisions that --on-collision=rename would
# rename are not listed first.
mkdir -p "$T/plain/d" && touch "$T/plain/d/Foo" "$T/plain/d/foo"
if chattr +F "$T/plain" 2>/dev/null; then
	echo "$(stat -f -c %T "$T") casefolds here: the plain-filesystem case is not tried"
else
	"$CF" convert --on-collision=rename "$T/plain/d" >"$T/out" 2>"$T/err" &&
		fail "convert on a plain filesystem succeeded"
	grep -q "cannot casefold directories (Operation not supported); ext4 and f2fs need the casefold feature" \
		"$T/err" || fail "plain filesystem: $(cat "$T/err")"
	grep -q "nothing was changed" "$T/err" || fail "plain filesystem: $(cat "$T/err")"
	[ ! -s "$T/out" ] || fail "a plan was printed before the refusal: $(cat "$T/out")"
	[ "$(ls "$T/plain/d" | tr '\n' ' ')" = "Foo foo " ] || fail "the plain tree changed"
fi

# 2 and 3 as an ordinary user, on that user's mount.
me=()
if [ "$(id -u)" = 0 ]; then
	reachable_copy "$CFS" "$CF"
	CFS_USER=${CF_REACHABLE:+$CF_REACHABLE/casefoldfs}
	CF=${CF_REACHABLE:+$CF_REACHABLE/casefold}
	CFS_USER=${CFS_USER:-$CFS} CF=${CF:-$CF_BUILD/casefold}
	chown 65534:65534 "$B" "$M"
	me=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	CFS_AS=65534 cfs_mount
else
	cfs_mount
fi
"${me[@]}" sh -c "mkdir -p '$M/p/d/sub' '$M/q/d/sub' && touch '$M/p/d/a' '$M/q/d/a' '$M/q/d/sub/b'" ||
	fail "cannot make the trees"
flagged() { "${me[@]}" lsattr -d "$1" | cut -d' ' -f1 | grep -q F; }

# 2. A read-only parent: its mode, not the filesystem, is named.
"${me[@]}" chmod 555 "$M/p"
"${me[@]}" "$CF" convert "$M/p/d" >"$T/out" 2>"$T/err" && fail "convert under a read-only parent succeeded"
grep -qF "convert: $M/p/d: its parent $M/p is not writable (Permission denied): convert makes the replacement and the journal beside it; nothing was changed" \
	"$T/err" || fail "read-only parent: $(cat "$T/err")"
grep -q "casefold feature" "$T/err" && fail "read-only parent blamed on the filesystem: $(cat "$T/err")"
! flagged "$M/p/d" || fail "read-only parent: the directory was changed"
"${me[@]}" chmod 755 "$M/p"

# 3. A read-only directory inside: refused by the plan, every entry in place.
"${me[@]}" chmod 555 "$M/q/d/sub"
"${me[@]}" "$CF" convert "$M/q" >"$T/out" 2>"$T/err" && fail "convert of a read-only directory succeeded"
grep -qF "$M/q/d/sub: not writable (Permission denied): its entries must move into its casefolded replacement" \
	"$T/err" || fail "read-only directory: $(cat "$T/err")"
grep -qF "convert: $M/q: nothing was changed" "$T/err" || fail "read-only directory: $(cat "$T/err")"
for d in "$M/q" "$M/q/d" "$M/q/d/sub"; do ! flagged "$d" || fail "$d was converted"; done
"${me[@]}" test -e "$M/q/d/a" -a -e "$M/q/d/sub/b" || fail "entries moved"
[ -z "$("${me[@]}" ls -A "$M" | grep casefold)" ] || fail "leftovers: $("${me[@]}" ls -A "$M")"
"${me[@]}" chmod 755 "$M/q/d/sub"
"${me[@]}" "$CF" convert "$M/q" >"$T/out" 2>&1 || fail "convert once writable: $(cat "$T/out")"
flagged "$M/q/d/sub" || fail "not converted once writable"
cfs_umount
echo "plain filesystem, read-only parent, read-only directory: refused first, with their causes"

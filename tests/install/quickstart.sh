#!/usr/bin/env bash
# scripts/quickstart in an empty directory: it mounts ./casefold, case-
# insensitive at the root, over ./casefold.backing and says how to unmount;
# a second run finds it mounted and succeeds; after an unmount, a third run
# mounts the same tree again, flag and files intact.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "mounting needs root"
[ -c /dev/fuse ] || skip "no /dev/fuse"
command -v findmnt >/dev/null && command -v lsattr >/dev/null || skip "no findmnt or lsattr"

M=$T/casefold
mounted() { [ "$(findmnt -n -o FSTYPE --mountpoint "$M")" = fuse.casefoldfs ]; }
cleanup() {
	if mounted; then umount "$M" 2>/dev/null || umount -l "$M"; fi
	rm -rf "$T"
}
trap cleanup EXIT
quickstart() { (cd "$T" && "$CF_ROOT/scripts/quickstart") >"$T/out" 2>&1; }
unmount() {
	umount "$M" || fail "umount $M"
	for _ in $(seq 100); do mounted || return 0; sleep 0.05; done
	fail "$M is still mounted"
}

quickstart || { cat "$T/out" >&2; fail "quickstart failed"; }
mounted || fail "quickstart did not mount $M"
grep -q "mounted $M (case-insensitive" "$T/out" || fail "no mount message: $(cat "$T/out")"
grep -q "unmount with: fusermount3 -u $M" "$T/out" || fail "no unmount hint"
grep -q "$T/casefold.backing" "$T/out" || fail "the backing directory is not named"
[ "$(findmnt -n -o SOURCE --mountpoint "$M")" = "$T/casefold.backing" ] || fail "wrong source"
lsattr -d "$M" | cut -d' ' -f1 | grep -q F || fail "the root is not casefolded"
echo hello >"$M/README"
[ "$(cat "$M/readme")" = hello ] || fail "README is not readme"
[ -f "$T/casefold.backing/README" ] || fail "the backing tree lacks README"

quickstart || { cat "$T/out" >&2; fail "second quickstart failed"; }
grep -q "$M is already mounted" "$T/out" || fail "second run: $(cat "$T/out")"
grep -q "unmount with:" "$T/out" || fail "second run: no unmount hint"
[ "$(findmnt -n --mountpoint "$M" | wc -l)" = 1 ] || fail "mounted twice"

unmount
quickstart || { cat "$T/out" >&2; fail "quickstart after an unmount failed"; }
mounted || fail "not mounted again"
lsattr -d "$M" | cut -d' ' -f1 | grep -q F || fail "the root lost its flag"
[ "$(cat "$M/ReadMe")" = hello ] || fail "the file is not there"
unmount

# The same as an ordinary user (uid 65534, in a directory of its own): the
# mount is the user's, through fusermount3, and needs no root.  The build
# is already there from the runs above; /dev/fuse as Debian has it (0666).
command -v setpriv >/dev/null || skip "no setpriv for the ordinary user's run"
chmod 0666 /dev/fuse || skip "cannot make /dev/fuse usable by users"
chmod 755 "$T" && mkdir "$T/user" && chown 65534:65534 "$T/user"
M=$T/user/casefold
quickstart() {
	(cd "$T/user" && setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$T/user" \
		"$CF_ROOT/scripts/quickstart") >"$T/out" 2>&1
}
quickstart || { cat "$T/out" >&2; fail "quickstart as uid 65534 failed"; }
mounted || fail "quickstart as uid 65534 did not mount $M"
findmnt -n -o OPTIONS --mountpoint "$M" | grep -q "user_id=65534" || fail "not the user's mount"
grep -q "unmount with: fusermount3 -u $M" "$T/out" || fail "user: no unmount hint"
as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as_user lsattr -d "$M" | cut -d' ' -f1 | grep -q F || fail "user: the root is not casefolded"
as_user sh -c "echo hi > '$M/README' && [ \"\$(cat '$M/readme')\" = hi ]" || fail "user: README"
[ "$(stat -c %u "$T/user/casefold.backing/README")" = 65534 ] || fail "user: owner"
grep -qx 'flagstore user' "$T/user/casefold.backing/.casefoldfs" || fail "user: flag store"
quickstart && grep -q "$M is already mounted" "$T/out" || fail "user: second run"
as_user fusermount3 -u "$M" || fail "user: fusermount3 -u"
mounted && fail "user: still mounted"
echo "quickstart: mount, idempotent rerun, remount, as root and as uid 65534: ok"

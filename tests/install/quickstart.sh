#!/usr/bin/env bash
# scripts/quickstart in an empty directory: it mounts ./casefold, case-
# insensitive at the root, over ./casefold.backing and says how to unmount;
# a second run finds it mounted and succeeds; after an unmount, a third run
# mounts the same tree again, flag and files intact.  Then as uid 65534:
# with /dev/fuse mode 0600 it refuses, saying why and what root must do;
# with a usable /dev/fuse it mounts as that user.  Both /dev/fuse modes are
# the test's own (a private mount namespace): the host's is left as it is.
# Run from the folder that holds the checkout, or where ./casefold has
# files, it refuses to mount over them.
CF_NEEDS_ROOT="mounts as root, and as uid 65534 with /dev/fuse modes of its own"
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root: $CF_NEEDS_ROOT"
cf_may_mount
cf_private_ns "$@"
. "$(dirname "$0")/lib.sh"
command -v findmnt >/dev/null && command -v lsattr >/dev/null || skip "no findmnt or lsattr"

M=$T/casefold
qs_cleanup() {
	if mounted; then umount "$M" 2>/dev/null || umount -l "$M"; fi
	rm -rf "$T"
}
at_exit qs_cleanup
quickstart() { (cd "$T" && "$CF_ROOT/scripts/quickstart") >"$T/out" 2>&1; }

# From the folder that holds a checkout named casefold: ./casefold is the
# checkout, which must not be mounted over.
mkdir "$T/holder" && ln -s "$CF_ROOT" "$T/holder/casefold"
(cd "$T/holder" && casefold/scripts/quickstart) >"$T/out" 2>&1 &&
	fail "quickstart mounted over its own checkout: $(cat "$T/out")"
grep -qF "$T/holder/casefold is this checkout itself: run scripts/quickstart from inside it" "$T/out" ||
	fail "quickstart beside its checkout: $(cat "$T/out")"
[ -z "$(findmnt -n --mountpoint "$T/holder/casefold")" ] || fail "mounted over the checkout"
rm "$T/holder/casefold"
mkdir "$T/holder/casefold" && echo keep >"$T/holder/casefold/notes"
(cd "$T/holder" && "$CF_ROOT/scripts/quickstart") >"$T/out" 2>&1 &&
	fail "quickstart mounted over a directory with files: $(cat "$T/out")"
grep -qF "$T/holder/casefold is a directory with files: mounting there would hide them" "$T/out" ||
	fail "quickstart over files: $(cat "$T/out")"
[ "$(cat "$T/holder/casefold/notes")" = keep ] || fail "the files were hidden"

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
# is already there from the runs above (copied, with the sources, where
# uid 65534 cannot enter the checkout).
command -v setpriv >/dev/null || skip "no setpriv for the ordinary user's run"
chmod 755 "$T" && mkdir "$T/user" && chown 65534:65534 "$T/user"
M=$T/user/casefold
src=$CF_ROOT
if ! as_nobody test -x "$CF_ROOT/scripts/quickstart" -a -x "$CF_ROOT/build/casefoldfs"; then
	src=$T/src
	excl=(--exclude=./.git)
	for d in "$CF_ROOT"/build/*/; do   # other build directories (O=build/...)
		[ -e "$d/paths" ] && excl+=("--exclude=./build/$(basename "$d")")
	done
	mkdir "$src" && (cd "$CF_ROOT" && tar "${excl[@]}" -cf - .) | tar -C "$src" -xpf - &&
		chown -R 65534:65534 "$src" || fail "cannot copy the checkout for uid 65534"
	echo "uid 65534 cannot enter $CF_ROOT: quickstart runs from a copy in $src"
fi
quickstart() {
	(cd "$T/user" && as_nobody env HOME="$T/user" "$src/scripts/quickstart") >"$T/out" 2>&1
}

# A machine where only root may open /dev/fuse (the kernel's mode 0600, no
# udev rule): quickstart still builds everything, then says why it cannot
# mount and what root must do.
fuse_bind 0600
[ "$src" = "$CF_ROOT" ] || rm -f "$src/build/casefold"   # the copy: quickstart must rebuild it
quickstart && fail "quickstart as uid 65534 with /dev/fuse 0600 succeeded: $(cat "$T/out")"
as_nobody "$src/build/casefold" cmp --nocase README readme >/dev/null ||
	fail "quickstart with /dev/fuse 0600 left no working build/casefold: $(cat "$T/out")"
for says in "built $src/build/casefold and $src/build/casefoldfs (the casefold tool works without FUSE)" \
	"cannot mount as nobody: /dev/fuse is mode 600" "sudo chmod 0666 /dev/fuse" \
	'KERNEL=="fuse", MODE="0666"' "udevadm trigger"; do
	grep -qF "$says" "$T/out" || fail "quickstart with /dev/fuse 0600 does not say '$says': $(cat "$T/out")"
done
mounted && fail "mounted with /dev/fuse 0600"

# /dev/fuse as Debian has it (0666).
fuse_bind 0666
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

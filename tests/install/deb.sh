#!/usr/bin/env bash
# The Debian packages, as a Debian user gets them: dpkg-buildpackage -b
# builds libcasefold0, libcasefold-dev, casefold and casefoldfs from a copy
# of the tree (nocheck: the suite itself is the check); lintian finds no
# error or warning; the programs carry dpkg-buildflags' hardening (PIE,
# relro, bind now, stack protector, fortified calls); installed with dpkg,
# casefoldfs mounts through mount -t fuse.casefoldfs (found by mount.fuse3
# in /usr/bin) and an fstab line, the installed casefold runs, a program
# builds with pkg-config --cflags --libs libcasefold and runs against the
# installed library; dpkg --purge leaves nothing behind: no file of the
# packages, no dpkg record.
#
# It installs into the real system, so it runs only as root, only where
# none of the four packages is installed already; it runs in a private
# mount namespace, so its mounts never reach the host.
# tests/run: alone (installs and purges packages: dpkg is the whole machine's)
CF_NEEDS_ROOT="installs packages with dpkg"
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root: $CF_NEEDS_ROOT"
cf_private_ns "$@"
for tool in dpkg-buildpackage dh lintian fakeroot readelf pkg-config unshare mount.fuse3; do
	command -v "$tool" >/dev/null || skip "no $tool (scripts/install-deps --tests)"
done
[ -f "$CF_ROOT/debian/control" ] || skip "no debian/ in $CF_ROOT"
pkgs="libcasefold0 libcasefold-dev casefold casefoldfs"
for p in $pkgs; do
	if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -qv "not-installed"; then
		skip "$p is installed on this machine: not touching it"
	fi
done

# The version is the header's.
version=$(sed -n 's/^#define CF_VERSION_STRING "\(.*\)"/\1/p' "$CF_ROOT/include/casefold.h")
debversion=$(cd "$CF_ROOT" && dpkg-parsechangelog -S Version)
[ "${debversion%%-*}" = "$version" ] ||
	fail "debian/changelog is at $debversion, include/casefold.h at $version"

# 1. Build, from a copy without build products.
src=$T/casefold-$version
mkdir "$src" && (cd "$CF_ROOT" && tar --exclude=./build --exclude=./.git \
	--exclude=./debian/.debhelper --exclude=./debian/tmp -cf - .) | tar -C "$src" -xf - ||
	fail "cannot copy the tree"
start=$SECONDS
(cd "$src" && DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -us -uc -b) \
	>"$T/build.log" 2>&1 || { tail -n 40 "$T/build.log" >&2; fail "dpkg-buildpackage failed"; }
echo "dpkg-buildpackage -b: $((SECONDS - start)) s"
arch=$(dpkg --print-architecture)
debs=()
for p in $pkgs; do
	debs+=("$T/${p}_${debversion}_$arch.deb")
	[ -f "${debs[-1]}" ] || fail "${debs[-1]##*/} was not built"
done
grep -q -- '-D_FORTIFY_SOURCE=2' "$T/build.log" && grep -q -- '-fstack-protector-strong' "$T/build.log" ||
	fail "the build did not use dpkg-buildflags' CPPFLAGS/CFLAGS"
grep -q -- '-Werror ' "$T/build.log" && fail "the package build uses -Werror"

# 2. lintian: no error, no warning (overrides, if any, say why in debian/).
start=$SECONDS
lintian --fail-on error,warning "$T/casefold_${debversion}_$arch.changes" >"$T/lintian.log" 2>&1 ||
	{ cat "$T/lintian.log" >&2; fail "lintian"; }
echo "lintian: $((SECONDS - start)) s, $(grep -c '^[EW]:' "$T/lintian.log") errors and warnings"

# 3. Hardening of what the packages ship.
mkdir "$T/x"
for d in "${debs[@]}"; do dpkg-deb -x "$d" "$T/x"; done
libdir=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
for f in usr/bin/casefold usr/bin/casefoldfs "usr/lib/$libdir/libcasefold.so.$version"; do
	e=$T/x/$f
	[ -f "$e" ] || fail "$f is not in the packages"
	readelf -lW "$e" | grep -q GNU_RELRO || fail "$f: no relro"
	readelf -dW "$e" | grep -Eq 'FLAGS.*(BIND_NOW|NOW)' || fail "$f: no bind now"
	readelf -hW "$e" | grep -q 'Type:.*DYN' || fail "$f: not position independent"
	readelf -sW --dyn-syms "$e" | grep -q '__stack_chk_fail' || fail "$f: no stack protector"
done
for f in usr/bin/casefold usr/bin/casefoldfs; do
	readelf -sW --dyn-syms "$T/x/$f" | grep -Eq '__[a-z0-9_]+_chk@' || fail "$f: no fortified calls"
done

# 4. Install.  Every file of the packages must be new to this machine.
for d in "${debs[@]}"; do dpkg-deb -c "$d"; done | awk '$1 !~ /^d/ { print substr($6, 2) }' |
	sort -u >"$T/files"
[ "$(wc -l <"$T/files")" -gt 10 ] || fail "too few files in the packages"
while read -r f; do
	[ -e "$f" ] || [ -L "$f" ] && skip "$f exists already: not installing over it"
done <"$T/files"
purged=
purge() { [ -n "$purged" ] || dpkg --purge $pkgs >"$T/purge.log" 2>&1; purged=1; }
at_exit purge
dpkg -i "${debs[@]}" >"$T/install.log" 2>&1 || { cat "$T/install.log" >&2; fail "dpkg -i"; }
while read -r f; do [ -e "$f" ] || fail "$f is not installed"; done <"$T/files"

# 5. The installed CLI, man pages and library.
[ "$(command -v casefold)" = /usr/bin/casefold ] || fail "casefold is not /usr/bin/casefold"
[ "$(/usr/bin/casefold fold --hex "$(printf 'Stra\xc3\x9fe')")" = 73747261737365 ] ||
	fail "casefold fold: $(/usr/bin/casefold fold --hex "$(printf 'Stra\xc3\x9fe')")"
/usr/bin/casefold cmp --nocase README readme >/dev/null || fail "casefold cmp"
[ "$(/usr/bin/casefold --version | grep -o "$version")" = "$version" ] || fail "casefold --version"
for f in /usr/bin/casefold /usr/bin/casefoldfs; do
	ldd "$f" | grep -q "libcasefold.so.0 => /.*/$libdir/libcasefold.so.0" ||
		fail "$f does not use the packaged library: $(ldd "$f")"
done
dpkg-query -W -f='${Depends}\n' casefold casefoldfs | grep -c 'libcasefold0 (>= ' | grep -qx 2 ||
	fail "casefold and casefoldfs do not depend on libcasefold0: $(dpkg-query -W -f='${Depends}\n' casefold casefoldfs)"
for page in casefold.1 casefoldfs.8 libcasefold.3; do
	man -w "${page%.*}" | grep -q "/usr/share/man/.*/$page" || fail "man cannot find $page"
done
cat >"$T/prog.c" <<'C'
#include <stdio.h>
#include <casefold.h>

int main(void)
{
	cf_encoding enc;
	char out[CF_FOLD_MAX];
	ssize_t n;

	if (cf_encoding_init(&enc, "utf8-12.1.0", 0) < 0)
		return 1;
	n = cf_casefold(&enc, "Stra\xc3\x9f" "e", 7, out, sizeof(out));
	printf("%.*s %d\n", (int)(n > 0 ? n : 0), out, cf_name_match(&enc, "README", 6, "readme", 6));
	return n < 0;
}
C
# As a user of the package builds: the system's cc, nothing of this tree.
# shellcheck disable=SC2046
cc -o "$T/prog" "$T/prog.c" $(pkg-config --cflags --libs libcasefold) || fail "cannot build with pkg-config"
ldd "$T/prog" | grep -q "libcasefold.so.0 => /lib/$libdir/libcasefold.so.0\|libcasefold.so.0 => /usr/lib/$libdir/libcasefold.so.0" ||
	fail "prog does not use the installed library: $(ldd "$T/prog")"
[ "$("$T/prog")" = "strasse 1" ] || fail "prog printed $("$T/prog")"

# 6. mount -t fuse.casefoldfs and fstab (this test runs in a private mount
# namespace: cf_private_ns above); no casefoldfs of /usr/local may answer
# instead of the package's.
if [ -c /dev/fuse ] && [ -z "${CF_NO_FUSE:-}" ]; then
	B=$T/back M=$T/mnt
	mkdir "$B" "$M"
	[ -e /usr/local/bin/casefoldfs ] && mount --bind /usr/bin/casefoldfs /usr/local/bin/casefoldfs
	[ "$(env -i /bin/sh -c "command -v casefoldfs")" = /usr/bin/casefoldfs ] ||
		fail "casefoldfs on the default PATH is $(env -i /bin/sh -c "command -v casefoldfs")"
	at_exit 'mounted && umount -l "$M"'
	mount -t fuse.casefoldfs "$B" "$M" -o casefold=utf8-12.1.0 || fail "mount -t fuse.casefoldfs"
	mounted || fail "not mounted"
	mkdir "$M/d" && chattr +F "$M/d" && echo hi >"$M/d/Readme" || fail "chattr +F"
	[ "$(cat "$M/d/README")" = hi ] || fail "not case-insensitive"
	unmount
	printf '%s %s fuse.casefoldfs casefold=utf8-12.1.0,nofail,noauto 0 0\n' "$B" "$M" >"$T/fstab"
	mount -T "$T/fstab" "$M" || fail "mount from fstab"
	[ "$(cat "$M/d/readme")" = hi ] || fail "fstab mount: not case-insensitive"
	unmount
	echo "mount -t fuse.casefoldfs and fstab with the package's casefoldfs: ok"
else
	echo "no mount: ${CF_NO_FUSE:+tests/run --no-fuse}${CF_NO_FUSE:-no /dev/fuse}"
fi

# 7. Purge: nothing of the packages is left, not even dpkg's record.
purge
grep -q "Purging configuration files" "$T/purge.log" || [ -s "$T/purge.log" ] || fail "dpkg --purge said nothing"
while read -r f; do
	[ -e "$f" ] || [ -L "$f" ] && fail "$f is left after the purge"
done <"$T/files"
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -qv "not-installed" &&
		fail "$p is still known to dpkg: $(dpkg-query -W -f='${Status}' "$p")"
	[ -z "$(ls /var/lib/dpkg/info/"$p".* /var/lib/dpkg/info/"$p":*.* 2>/dev/null)" ] ||
		fail "dpkg's files of $p are left"
done
ldconfig -p | grep -q libcasefold && fail "ldconfig still knows libcasefold"
echo "build, lintian, hardening, install, CLI, pkg-config, mount, purge: ok"

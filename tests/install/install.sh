#!/usr/bin/env bash
# make install into a temporary DESTDIR: a program builds against the
# installed pkg-config file and runs; only the public API is exported; the
# man pages render without warnings and agree with --help; make uninstall
# leaves the tree exactly as it found it.  Twice, as a packager does: the
# build under test was made with the default PREFIX, installed first with
# it, then with PREFIX=/usr — every installed file must name the PREFIX
# given to make install, never the other — then with the default again.
# tests/run: alone (runs make install on the build under test, which rewrites its path files)
. "$(dirname "$0")/lib.sh"
command -v pkg-config >/dev/null || skip "no pkg-config"
command -v groff >/dev/null && command -v man >/dev/null || skip "no groff or man"

# install_check PREFIX OTHER: the whole check with PREFIX; no installed text
# file may name OTHER's lib, include or our programs there.
install_check() {
PREFIX=$1
local other=$2
D=$T/dest${PREFIX//\//-}
P=$D$PREFIX
# The directories a real prefix already has: uninstall must not remove them.
mkdir -p "$P"/bin "$P"/include "$P"/lib/pkgconfig "$P"/share/man/man{1,3,8}
(cd "$D" && find . | sort) >"$T/before"

cf_make install "$D"
for f in bin/casefold bin/casefoldfs include/casefold.h include/casefold_ext4.h \
	 lib/libcasefold.a lib/libcasefold.so lib/libcasefold.so.0 lib/pkgconfig/libcasefold.pc \
	 share/man/man1/casefold.1 share/man/man3/libcasefold.3 share/man/man8/casefoldfs.8; do
	[ -e "$P/$f" ] || fail "$f not installed"
done

# The shared library: its soname, and exactly the functions the headers
# declare CF_API, each with the version node of the linker script.
so=$(readlink -f "$P/lib/libcasefold.so")
readelf -d "$so" | grep -q 'SONAME.*\[libcasefold\.so\.0\]' || fail "soname is not libcasefold.so.0"
sed -n 's/^CF_API [^(]*[ *]\([a-z0-9_]*\)(.*/\1/p' "$P"/include/casefold*.h | sort >"$T/api"
nm -D --defined-only "$so" | awk '$2 == "T" { print $3 }' >"$T/exported"
grep -v '@@CASEFOLD_0$' "$T/exported" && fail "symbols outside version node CASEFOLD_0"
sed 's/@.*//' "$T/exported" | sort >"$T/exported.names"
diff "$T/api" "$T/exported.names" || fail "exported functions differ from the headers' CF_API"
nm -D --defined-only "$so" | awk '$2 ~ /[BDR]/' | grep . && fail "data symbols exported"
[ "$(wc -l <"$T/api")" -gt 20 ] || fail "too few CF_API functions found"

# A tiny program, compiled only with what pkg-config says.
cat >"$T/prog.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <casefold.h>
#include <casefold_ext4.h>

int main(void)
{
	cf_encoding enc;
	char out[CF_FOLD_MAX];
	uint32_t major, minor;
	ssize_t n;

	if (cf_encoding_load(&enc, "utf8-12.1.0", 0) < 0)
		return 1;
	n = cf_casefold(&enc, "Stra\xc3\x9f" "e", 7, out, sizeof(out));
	if (n < 0 || cf_ext4_name_hash(&enc, CF_EXT4_HASH_HALF_MD4, NULL, "a", 1, &major, &minor) < 0)
		return 1;
	printf("%.*s %s %d\n", (int)n, out, CF_VERSION_STRING,
	       cf_name_match(&enc, "README", 6, "readme", 6));
	return 0;
}
C
export PKG_CONFIG_PATH=$P/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$D
pkg-config --exists libcasefold || fail "pkg-config cannot find libcasefold"
version=$(sed -n 's/^#define CF_VERSION_STRING "\(.*\)"/\1/p' "$CF_ROOT/include/casefold.h")
[ "$(pkg-config --modversion libcasefold)" = "$version" ] || fail "pkg-config version"
flags=$(pkg-config --cflags --libs libcasefold)
case $flags in *"-I$P/include"*"-L$P/lib"*) ;; *) fail "pkg-config gave $flags" ;; esac
[ "$(pkg-config --variable=prefix libcasefold)" = "$D$PREFIX" ] ||
	fail "libcasefold.pc: prefix is not $PREFIX: $(cat "$P/lib/pkgconfig/libcasefold.pc")"
grep -rlIE -- "$other/(lib|include|bin/casefold)\b" "$D" &&
	fail "installed files name $other, not $PREFIX"
cc=${CC:-cc}
# shellcheck disable=SC2086
$cc ${SAN:+-fsanitize=address,undefined} -o "$T/prog" "$T/prog.c" $flags || fail "cannot build against the pkg-config file"
LD_LIBRARY_PATH=$P/lib ldd "$T/prog" | grep -q "libcasefold.so.0 => $P/lib/" || fail "prog does not use the installed library"
out=$(LD_LIBRARY_PATH=$P/lib "$T/prog") || fail "prog failed"
[ "$out" = "strasse $version 1" ] || fail "prog printed '$out'"
# Static linking works from the same flags.
# shellcheck disable=SC2086
$cc ${SAN:+-fsanitize=address,undefined} -o "$T/prog.static" "$T/prog.c" \
	$(pkg-config --cflags libcasefold) "$P/lib/libcasefold.a" || fail "cannot link libcasefold.a"
[ "$("$T/prog.static")" = "$out" ] || fail "static program differs"

# The man pages: no warnings from groff or man, and the same text as --help.
for page in "$P"/share/man/man*/*; do
	warn=$(LC_ALL=C.UTF-8 groff -man -ww -z -K utf8 "$page" 2>&1)
	[ -z "$warn" ] || fail "groff warns on $page: $warn"
	warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >"$T/page.txt")
	[ -z "$warn" ] && [ -s "$T/page.txt" ] || fail "man -l $page: $warn"
	grep -q "$version" "$T/page.txt" || fail "$page does not carry version $version"
done
render() { LC_ALL=C.UTF-8 MANWIDTH=200 man -l "$1" 2>/dev/null | tr -s ' \n' '  '; }
fsman=$(render "$P/share/man/man8/casefoldfs.8")
"$P/bin/casefoldfs" --help | sed -n '/^casefoldfs options:/,/^$/p' | grep -- '^    -o' >"$T/fsopts"
[ -s "$T/fsopts" ] || fail "casefoldfs --help lists no options"
while read -r line; do
	opt=${line%%  *}
	help=$(printf '%s\n' "${line#"$opt"}" | sed 's/^ *//')
	[[ $fsman == *"$opt"* && $fsman == *"$help"* ]] || fail "casefoldfs(8) lacks '$opt' / '$help'"
done <"$T/fsopts"
climan=$(render "$P/share/man/man1/casefold.1")
for verb in $("$P/bin/casefold" --help | sed -n '/^Verbs:/,/^$/p' | awk 'NR > 1 && NF { print $1 }'); do
	[[ $climan == *"casefold $verb"* ]] || fail "casefold(1) lacks the verb $verb"
done
[[ $fsman == *" $PREFIX/bin/casefoldfs"* ]] || fail "casefoldfs(8) does not name $PREFIX/bin/casefoldfs"
libman=$(render "$P/share/man/man3/libcasefold.3")
while read -r fn; do
	[[ $libman == *"$fn("* ]] || fail "libcasefold(3) lacks $fn"
done <"$T/api"

cf_make uninstall "$D"
(cd "$D" && find . | sort) >"$T/after"
diff "$T/before" "$T/after" || fail "uninstall left files behind"
echo "PREFIX=$PREFIX: install, build against pkg-config, man pages, uninstall: ok"
}

install_check /usr/local /usr
install_check /usr /usr/local
install_check /usr/local /usr

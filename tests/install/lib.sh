# Helpers for the install tests (sourced, not run): a private temporary
# directory $T, removed on exit, and `make install` into a DESTDIR.
set -u

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

: "${CF_BUILD:?CF_BUILD must name the build directory}" "${CF_ROOT:?}"
command -v make >/dev/null || skip "no make"

T=$(mktemp -d /tmp/casefold-install.XXXXXX) || exit 1
PREFIX=/usr/local

# A sanitized build installs a sanitized library: programs linked with it
# need the same runtime, and make must not rebuild it without.
SAN=
if nm -D "$CF_BUILD/libcasefold.so" 2>/dev/null | grep -q ' U __asan_init'; then
	SAN=1
fi

# cf_make TARGET DESTDIR: runs the top-level Makefile on the build under test.
cf_make() {
	make -s -C "$CF_ROOT" O="$CF_BUILD" ${SAN:+SAN=1} PREFIX="$PREFIX" DESTDIR="$2" "$1" \
		>"$T/make.log" 2>&1 || { cat "$T/make.log" >&2; fail "make $1 DESTDIR=$2"; }
}

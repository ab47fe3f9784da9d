# Helpers for the install tests (sourced, not run): a private temporary
# directory $T, removed on exit, and `make install` into a DESTDIR.
#   mounted    casefoldfs is mounted on $M (by type: mount -t, fstab and
#              quickstart mount it as the system does)
#   unmount    umount $M, and wait until it is gone
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
command -v make >/dev/null || skip "no make"

T=$(mktemp -d /tmp/casefold-install.XXXXXX) || exit 1
at_exit "rm -rf '$T'"
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

mounted() { fuse_mounted "$M" fuse.casefoldfs; }
unmount() {
	umount "$M" || fail "umount $M"
	wait_unmounted "$M"
}

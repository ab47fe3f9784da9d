# Helpers for the client tests (sourced, not run): the mount of
# tests/lib/fs.sh — a fresh backing tree $B and mount point $M under a
# private temporary directory $T, the daemon with -f in the background so
# that its exit status (sanitizer reports included) is checked at the
# unmount, skip/fail/at_exit of tests/lib.sh — plus what only the clients
# need.
. "$(dirname "${BASH_SOURCE[0]}")/../lib/fs.sh"
command -v chattr >/dev/null || skip "no chattr"

# tree DIR: type, mode, size, mtime and link target of every entry below
# DIR, then the content hashes of its files, sorted: equal trees print the
# same.
tree() {
	(cd "$1" && LC_ALL=C find . -mindepth 1 -printf '%P|%y|%m|%s|%T@|%l\n' | LC_ALL=C sort &&
		LC_ALL=C find . -type f -exec sha1sum {} + | LC_ALL=C sort)
}

#!/usr/bin/env bash
# The superblock record: written by the first mount, obeyed by later ones,
# contradictions and unknown encodings refused with exit status 1, hidden
# from the mount.
. "$(dirname "$0")/lib.sh"

# try OPTIONS...: a mount that must fail with status 1 and a message.
refused() {
	local out rc
	out=$("$CFS" "$@" "$B" "$M" 2>&1)
	rc=$?
	mounted && { fusermount3 -u "$M"; fail "mounted with $*"; }
	[ "$rc" = 1 ] || fail "casefoldfs $* exited with $rc"
	[ -n "$out" ] || fail "casefoldfs $* said nothing"
	echo "refused $*: $out"
}

refused -o casefold=utf8-99.0.0
[ -e "$B/.casefoldfs" ] && fail "a refused mount wrote a superblock"
cfs_mount -o casefold=utf8-12.1.0,keep_ignorables
cfs_umount
grep -qx 'casefoldfs 1' "$B/.casefoldfs" || fail "no version line"
grep -qx 'encoding utf8-12.1.0' "$B/.casefoldfs" || fail "no encoding line"
grep -qx 'flags keep_ignorables' "$B/.casefoldfs" || fail "no flags line"

refused -o casefold=ascii
refused -o strict_encoding
refused -o normalize_all
cfs_mount -o casefold=utf8-12.1.0          # agrees: fine
cfs_umount
cfs_mount -o keep_ignorables               # agrees: fine
cfs_umount

# keep_ignorables came from the record: a ZWJ is now significant.
cfs_mount
mkdir "$M/ci" && chattr +F "$M/ci"
touch "$M/ci/$(printf 'a\xe2\x80\x8db')"
expect ENOENT stat "$M/ci/AB"
expect OK stat "$M/ci/$(printf 'A\xe2\x80\x8dB')"

# Hidden at the root: not listed, not found, not creatable.
ls -a "$M" | grep -q casefoldfs && fail ".casefoldfs is listed"
expect ENOENT stat "$M/.casefoldfs"
expect EPERM create "$M/.casefoldfs"
expect ENOENT unlink "$M/.casefoldfs"
cfs_umount

# A record this build cannot honour.
sed -i 's/^encoding .*/encoding utf8-99.0.0/' "$B/.casefoldfs"
refused
printf 'casefoldfs 2\nencoding utf8-12.1.0\nflags\n' > "$B/.casefoldfs"
refused
printf 'casefoldfs 1\nencoding utf8-12.1.0\nflags sparkly\n' > "$B/.casefoldfs"
refused

# Other encodings for new trees; an existing mixed-case tree can be mounted.
rm -rf "$B" && mkdir -p "$B/Old/Tree" && touch "$B/Old/Tree/MixedCase"
cfs_mount -o casefold=ascii
grep -qx 'encoding ascii' "$B/.casefoldfs" || fail "ascii recorded"
[ -e "$M/Old/Tree/MixedCase" ] || fail "existing tree visible"
mkdir "$M/ci" && chattr +F "$M/ci" && touch "$M/ci/Hello"
expect OK stat "$M/ci/HELLO"
touch "$M/ci/$(printf '\xc3\x89')"                         # É: not folded in ascii
expect ENOENT stat "$M/ci/$(printf '\xc3\xa9')"
cfs_umount
echo "super: ok"

#!/usr/bin/env bash
# normalize_all: plain directories ignore canonical equivalence (NFC = NFD)
# but stay case-sensitive and name-preserving; the root can be casefolded
# only while empty, and then the superblock file stays out of reach.
. "$(dirname "$0")/../lib/fs.sh"

cfs_mount -o normalize_all
cd "$M" || fail "cd"
mkdir plain
touch "plain/$(printf 'caf\xc3\xa9')"                    # NFC café
expect OK stat "plain/$(printf 'cafe\xcc\x81')"          # NFD
expect ENOENT stat "plain/$(printf 'CAFE\xcc\x81')"      # still case-sensitive
expect EEXIST excl "plain/$(printf 'cafe\xcc\x81')"
[ "$(names "$B/plain")" = "$(printf 'caf\xc3\xa9')" ] || fail "stored name"
touch "$B/plain/$(printf 'A\xcc\x8a')"                   # behind our back, NFD
expect OK stat "plain/$(printf '\xc3\x85')"
rm "plain/$(printf '\xc3\x85')"
[ -e "$B/plain/$(printf 'A\xcc\x8a')" ] && fail "rm by the NFC spelling"
cd /
cfs_umount

# Root: +F only while empty (the hidden superblock does not count).
rm -rf "$B" && mkdir "$B"
cfs_mount
chattr +F "$M" || fail "chattr +F on an empty root"
touch "$M/Top"
expect OK stat "$M/TOP"
expect ENOENT stat "$M/.CASEFOLDFS"
expect EPERM create "$M/.casefoldfs"
chattr -F "$M" 2>&1 | grep -q "Directory not empty" || fail "chattr -F on a non-empty root"
grep -q '^encoding' "$B/.casefoldfs" || fail "superblock damaged"
cfs_umount
echo "normalize: ok"

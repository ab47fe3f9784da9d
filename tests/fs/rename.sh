#!/usr/bin/env bash
# Rename as ext4 with casefold: case-only renames are no-ops, a fold-equal
# target keeps its stored name, temporary-name renames change case, moves
# between casefolded and plain directories, cold-cache directory renames.
. "$(dirname "$0")/../lib/fs.sh"

cfs_mount
cd "$M" || fail "cd"
casefolded ci
mkdir cs

# A case-only rename returns 0 and changes nothing (coreutils mv refuses it).
touch ci/Foo
expect OK rename ci/Foo ci/FOO
[ "$(names "$B/ci")" = Foo ] || fail "case-only rename changed the stored name"
mv ci/Foo ci/tmp && mv ci/tmp ci/FOO || fail "rename through a temporary name"
[ "$(names "$B/ci")" = FOO ] || fail "rename through a temporary name: $(names "$B/ci")"

# Renaming a onto B while b exists: b is replaced and its name survives.
echo A > ci/a
echo b > ci/b
expect OK rename ci/a ci/B
[ "$(names "$B/ci" | tr '\n' ' ')" = "FOO b " ] || fail "a onto B: $(names "$B/ci" | tr '\n' ' ')"
[ "$(cat "$B/ci/b")" = A ] || fail "b does not hold a's file"

# Renaming to an equivalent (NFD) name of another entry.
touch "ci/$(printf '\xc3\xa9t\xc3\xa9')"                   # NFC été
echo x > ci/src
expect OK rename ci/src "ci/$(printf 'E\xcc\x81TE\xcc\x81')"
names "$B/ci" | grep -qx "$(printf '\xc3\xa9t\xc3\xa9')" || fail "NFC stored name lost"
[ "$(cat "ci/$(printf '\xc3\xa9t\xc3\xa9')")" = x ] || fail "equivalent-name rename content"

# Between casefolded and plain directories, names are kept as given.
touch cs/Plain
expect OK rename cs/Plain ci/PlainMoved
[ -e ci/plainmoved ] && [ -e "$B/ci/PlainMoved" ] || fail "move into CI dir"
expect OK rename ci/PLAINMOVED cs/Back
[ -e "$B/cs/Back" ] && [ ! -e "$B/ci/PlainMoved" ] || fail "move out of CI dir"
touch cs/x cs/X
[ "$(names cs | grep -ic '^x$')" = 2 ] || fail "plain directory keeps x and X"
expect OK rename cs/x ci/y
expect OK rename cs/X ci/Y
[ "$(names "$B/ci" | grep -ic '^y$')" = 1 ] || fail "X onto y in CI dir must replace"

# Directories: rename a casefolded directory with a cold cache (remount).
mkdir ci/SubDir
touch ci/SubDir/Inner
cd /
cfs_umount
cfs_mount
expect OK rename "$M/ci/subdir" "$M/ci/Renamed"
[ -e "$B/ci/Renamed/Inner" ] || fail "cold-cache directory rename"
[ -e "$M/ci/RENAMED/inner" ] || fail "renamed directory keeps its flag and entries"
lsattr -d "$M/ci/renamed" | grep -q '^[^ ]*F' || fail "renamed directory lost F"
expect ENOENT stat "$M/ci/subdir"
cfs_umount
echo "rename: ok"

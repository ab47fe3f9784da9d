#!/usr/bin/env bash
# strict_encoding: invalid UTF-8 in a casefolded directory is EINVAL for
# create and lookup; unassigned code points are fine; plain directories and
# non-strict trees take any bytes.
. "$(dirname "$0")/lib.sh"

cfs_mount -o strict_encoding
cd "$M" || fail "cd"
casefolded ci
mkdir cs
bad=$(printf 'bad\xff')
expect EINVAL create "ci/$bad"
expect EINVAL mkdir "ci/$bad"
expect EINVAL stat "ci/$bad"
touch cs/mv
expect EINVAL rename cs/mv "ci/$bad"
touch "$B/ci/$bad"                                  # made behind our back
expect EINVAL stat "ci/$bad"
expect EINVAL unlink "ci/$bad"
rm "$B/ci/$bad"
expect OK create "ci/$(printf 'unassigned\xf0\xb0\x80\x80')"   # U+30000 (unassigned in 12.1)
expect OK create "ci/$(printf 'nonchar\xef\xbf\xbe')"           # U+FFFE
expect OK create "cs/$bad"
expect OK stat "cs/$bad"
cd /
cfs_umount

# The flag is recorded: a later mount without the option is still strict.
cfs_mount
expect EINVAL create "$M/ci/$bad"
cfs_umount
echo "strict: ok"

#!/usr/bin/env bash
# strict_encoding: invalid UTF-8 in a casefolded directory is EINVAL for
# create, and for lookup when it cannot be folded (a stray continuation byte
# can); unassigned code points are fine; plain directories and non-strict
# trees take any bytes.
. "$(dirname "$0")/../lib/fs.sh"

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
# A stray continuation byte folds (Linux passes it through): looking such a
# name up is ENOENT, not EINVAL; creating it fails validation.  Made behind
# our back, it is found by any spelling that folds the same, as on Linux.
stray=$(printf 'cont\x80')
expect ENOENT stat "ci/$stray"
expect EINVAL create "ci/$stray"
expect ENOENT stat "ci/$stray"
touch "$B/ci/$stray"
expect OK stat "ci/$(printf 'CONT\x80')"
expect OK unlink "ci/$(printf 'Cont\x80')"
[ -e "$B/ci/$stray" ] && fail "unlink by another spelling left $stray"
# Over 255 bytes: EINVAL when the name cannot be folded, as Linux decides
# that before looking at the length; ENAMETOOLONG when it can.
x255=$(printf '%0255d' 0 | tr 0 x)
expect EINVAL stat "ci/$x255$(printf '\xff')"
expect ENAMETOOLONG stat "ci/$x255$(printf '\x80')"
expect ENAMETOOLONG stat "cs/$x255$(printf '\xff')"
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

#!/usr/bin/env bash
# An inode number that the backing filesystem reuses must not bring back
# the node of the object that had it (issue 13, found by make stress with
# 16 processes: a new directory answered EEXIST and ESTALE from the index
# and file handle of a removed one).  The kernel keeps a removed directory's
# node alive while a process has it as its working directory; the daemon
# holds no descriptor on it (a small descriptor cache, filled with other
# files), so the backing filesystem frees its inode number, and new
# directories are made through the mount until one gets it.  That one must
# behave as itself: empty, +F, usable by every spelling.
. "$(dirname "$0")/../lib/fs.sh"

cfs_mount -o fd_cache=16
# Path locators (a user's daemon, or -o nohandles) hold a descriptor of an
# object that loses its name while the kernel knows it (tree/locator.h):
# the removed directory's inode stays allocated, its number never reused.
getfattr --only-values -n "${CFS_XATTRS}stats" "$M" | grep -qw "handles no" &&
	skip "a daemon with path locators (a user's, or -o nohandles) holds the removed directory open: its inode number cannot come back"
cd "$M" || fail "cd"
casefolded ci
mkdir ci/Old && touch ci/Old/Inside || fail "setup"
old=$(stat -c %i "$B/ci/Old")
(cd ci/Old && exec sleep 60) &
holder=$!
in_old() { [ "$(readlink "/proc/$holder/cwd")" = "$M/ci/Old" ]; }
wait_for 10 in_old
rm ci/Old/Inside
for i in $(seq 100); do : >"ci/filler$i"; done   # Old's descriptor out of the cache
rmdir ci/Old || fail "rmdir"
found=
for i in $(seq 300); do
	mkdir "ci/New$i" || fail "mkdir New$i"
	if [ "$(stat -c %i "$B/ci/New$i")" = "$old" ]; then
		found=New$i
		break
	fi
done
[ -n "$found" ] || { kill "$holder"; skip "the backing filesystem did not reuse inode $old"; }
echo "ci/$found reuses the inode number of the removed ci/Old"
touch "ci/$found/Inside2" || fail "create in ci/$found"
[ -e "$B/ci/$found/Inside2" ] || fail "ci/$found/Inside2 is not in the backing tree"
[ "$(ls "ci/$found")" = Inside2 ] || fail "ci/$found lists: $(ls "ci/$found" 2>&1)"
stat "ci/$found/INSIDE2" >/dev/null || fail "ci/$found/INSIDE2 by another spelling"
mkdir "ci/$found/inside2" 2>/dev/null && fail "ci/$found took inside2 beside Inside2"
mkdir "ci/$found/Sub" || fail "mkdir in ci/$found"
lsattr -d "ci/$found" | grep -q F || fail "ci/$found is not +F"
kill "$holder"
wait "$holder" 2>/dev/null
cd /
cfs_umount
echo "reuse: ok"

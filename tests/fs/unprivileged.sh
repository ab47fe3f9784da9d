#!/usr/bin/env bash
# The suites that make sense without privileges, again as uid 65534 on that
# user's own mount (issue 14): the daemon mounts through fusermount3, cannot
# chown, and keeps its flags in user.* xattrs.  Run as root, which only
# makes /dev/fuse usable by users the way Debian's udev rule does (mode
# 0666, left so: other users' mounts are what Debian allows anyway) and
# drops to 65534 for each suite.
set -u
tests=$(cd "$(dirname "$0")/.." && pwd)
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root to drop privileges"
command -v setpriv >/dev/null || skip "no setpriv"
[ -c /dev/fuse ] || skip "no /dev/fuse"
[ -u "$(command -v fusermount3)" ] || skip "fusermount3 is not set-uid root"
[ -x "${CF_BUILD:?}/casefoldfs" ] || skip "casefoldfs is not built"
# The user must reach the build and the scripts.
setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$CF_BUILD/casefoldfs" ||
	skip "uid 65534 cannot run $CF_BUILD/casefoldfs"
chmod 0666 /dev/fuse || skip "cannot make /dev/fuse usable by users"

# Not here: samba (smbd runs as root), perms (root's allow_other; a user's
# is userperms.sh), limits (tmpfs mounts), super (crosses modes itself),
# index, scale and stress (long; stress_model and kill_stress cover the
# random operations), differential (a VM).
suites="fs/lookup fs/reserved fs/version fs/indexmem fs/flags fs/rename fs/links fs/normalize fs/strict fs/cache fs/behind fs/killed
	fs/hostile fs/stress_model fs/kill_stress clients/git clients/rsync_tar
	clients/python_coreutils"
. "$tests/fs/suites.sh"
AGAIN_AS=(setpriv --reuid=65534 --regid=65534 --clear-groups env CF_UNPRIV=1 HOME=/tmp)
# shellcheck disable=SC2086  # the suites are words
again ${CF_UNPRIV_SUITES:-$suites}
rc=$?
[ "$rc" != 77 ] || skip "every suite skipped"
exit $rc

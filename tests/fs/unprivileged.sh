#!/usr/bin/env bash
# The suites that make sense without privileges, again as uid 65534 on that
# user's own mount (issue 14): the daemon mounts through fusermount3, cannot
# chown, and keeps its flags in user.* xattrs.  Run as root, which makes
# /dev/fuse usable by users for this test only (fuse_for_users: Debian's
# udev rule gives it mode 0666, a machine without udev 0600) and drops to
# 65534 for each suite.  An ordinary user's `make check` runs those suites
# as that user directly.  Where uid 65534 cannot enter the checkout, the
# tests and the build are copied to a directory it can.
CF_NEEDS_ROOT="drops to uid 65534 (as an ordinary user, the suites run as you)"
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root: $CF_NEEDS_ROOT"
command -v setpriv >/dev/null || skip "no setpriv"
fuse_for_users "$@"
[ -u "$(command -v fusermount3)" ] || skip "fusermount3 is not set-uid root"
[ -x "$CF_BUILD/casefoldfs" ] || skip "casefoldfs is not built"
tests=$CF_ROOT/tests build=$CF_BUILD
reachable_copy "$CF_ROOT/tests" "$CF_BUILD/casefoldfs" "$CF_BUILD/casefold"
if [ -n "$CF_REACHABLE" ]; then
	tests=$CF_REACHABLE/tests build=$CF_REACHABLE
	echo "uid 65534 cannot enter $CF_ROOT: running copies in $CF_REACHABLE"
fi

# Not here: samba (smbd runs as root), perms (root's allow_other; a user's
# is userperms.sh), limits (tmpfs mounts), super (crosses modes itself),
# index, scale and stress (long; stress_model and kill_stress cover the
# random operations), convert/crash (long; convert/basic and refusals cover
# a user's convert), differential (a VM); those that stage two users or
# need root's powers themselves (deep, export, heldfds, kernelopens,
# logflood, nested, stall, stopstall, trustedlist, watchstall, watchlimit, overlay_create, overlay_stall) and requests (the
# speed issue's).  The rest of the suites a user can run are in
# unprivileged_more.sh: each run stays within tests/run's 900 s.
suites="fs/lookup fs/reserved fs/version fs/indexmem fs/flags fs/rename fs/links fs/normalize fs/strict fs/cache fs/behind fs/unreported fs/killed
	fs/hostile fs/stress_model fs/kill_stress fs/overlay fs/overlay_hostile fs/overlay_mods
	fs/overlay_stress clients/git clients/rsync_tar clients/python_coreutils"
. "$tests/fs/suites.sh"
AGAIN_AS=(setpriv --reuid=65534 --regid=65534 --clear-groups
	env CF_UNPRIV=1 HOME=/tmp CF_ROOT="${tests%/tests}" CF_BUILD="$build")
# shellcheck disable=SC2086  # the suites are words
again ${CF_UNPRIV_SUITES:-$suites}
rc=$?
[ "$rc" != 77 ] || skip "every suite skipped"
exit $rc

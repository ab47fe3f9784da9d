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

# Not here, each for a reason it skips with as a user: samba (smbd runs as
# root), acl, perms, races, walk and indexstamp (root's daemon shared with
# other users; a user's sharing is userperms.sh), super (crosses modes
# itself), flagcaps, kernelopens and passthrough (root's capabilities),
# limits (a tmpfs mount), reuse (a user's daemon holds a removed directory
# open: its inode number cannot come back), and those that stage two users
# or need root's powers themselves (deep, export, heldfds, logflood,
# nested, stall, stopstall, trustedlist, watchstall, watchlimit, userperms,
# view/create, view/stall), and openbyname, which runs uid 65534's daemon
# itself.  Not here though a user can run them:
# scale and convert/crash (long; stress_model, kill_stress and
# convert/basic cover the same ground as a user), differential (a VM;
# clientopts runs it with a user's mount options).  The rest of the suites
# a user can run are in unprivileged_more.sh: each run stays within
# tests/run's 900 s.
suites="fs/lookup fs/reserved fs/version fs/indexmem fs/flags fs/rename fs/links fs/normalize fs/strict fs/cache fs/behind fs/unreported fs/killed
	fs/hostile fs/stress_model fs/kill_stress view/overlay view/hostile view/mods
	view/stress clients/git clients/rsync_tar clients/python_coreutils
	fs/index fs/firstattrs kernel/interrupts kernel/request_timeout kernel/requests"
. "$tests/lib/suites.sh"
AGAIN_AS=(setpriv --reuid=65534 --regid=65534 --clear-groups
	env CF_UNPRIV=1 HOME=/tmp CF_ROOT="${tests%/tests}" CF_BUILD="$build")
# shellcheck disable=SC2086  # the suites are words
out=$(again ${CF_UNPRIV_SUITES:-$suites})
rc=$?
echo "$out"
# A suite on these lists that skips for want of root, or of a usable
# /dev/fuse (this run's own set-up), has broken the lists' promise.
wrong=$(sed -n 's/^skip \([^:]*\): SKIP: \(needs root\|\/dev\/fuse\).*/\1/p' <<<"$out")
[ -z "$wrong" ] || fail "listed as suites a user can run, but skipped as uid 65534:" $wrong
[ "$rc" != 77 ] || skip "every suite skipped"
exit $rc

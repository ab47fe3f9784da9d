#!/usr/bin/env bash
# Another user cannot take the inotify watches of a user's daemon's owner
# (issue 34, finding 4): each mount takes at most a quarter of the owner's
# fs.inotify.max_user_watches, beyond which directories go unwatched (the
# timeout).  uid 65534's daemon (allow_other, cache=inotify) is made to
# answer for more directories than that: uid 4242 walks a quarter of the
# limit and 2,000 more, made in its own directory of the backing tree.
# The daemon's watches must stay within the quarter (before: one per
# directory, up to the whole limit), and the owner can still add one.
set -u
CF_AVAIL_MODE=user
CF_NEEDS_ROOT="uid 65534's daemon attacked by uid 4242 (setpriv, and a private /etc/fuse.conf for allow_other)"
. "$(dirname "$0")/../lib/attack.sh"
max=$(cat /proc/sys/fs/inotify/max_user_watches) || skip "no inotify limit to read"
quarter=$((max / 4)) dirs=$((max / 4 + 2000))
[ "$dirs" -le 120000 ] || skip "max_user_watches $max: too many directories to make here"

chmod 755 "$T"
mkdir "$B/atk"
"$PY" -c '
import os, sys
for i in range(int(sys.argv[2])):
    os.mkdir("%s/d%d" % (sys.argv[1], i))' "$B/atk" $dirs
chown -R $attacker_id "$B/atk"
chown 65534:65534 "$B" "$M"
CFS_AS=65534 cfs_mount -o allow_other,cache=inotify
attacker find "$M/atk" -maxdepth 1 -type d -printf . | wc -c > "$T/found" ||
	fail "the attacker's walk"
watches=$(cat /proc/"$CFS_PID"/fdinfo/* 2>/dev/null | grep -c '^inotify wd:')
echo "user's daemon after $(cat "$T/found") directories: $watches watches" \
	"(max_user_watches $max, a quarter $quarter)"
[ "$watches" -le "$quarter" ] || fail "$watches watches, more than a quarter of $max"
[ "$watches" -ge 1000 ] || fail "only $watches watches: the walk did not reach the daemon"
setpriv --reuid=65534 --regid=65534 --clear-groups "$PY" -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(0)
sys.exit(0 if fd >= 0 and libc.inotify_add_watch(fd, b"/tmp", 2) >= 0 else 1)' ||
	fail "the owner cannot add an inotify watch"
grep -q "this mount takes at most $quarter watches" "$T/daemon.log" ||
	fail "the bound is not logged: $(tail -3 "$T/daemon.log")"
CFS_AS=65534 cfs_umount

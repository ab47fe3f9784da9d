#!/usr/bin/env bash
# A first answer's attributes stand (issue 40): subdirectories made in a
# +F directory, each given its flag by the daemon before the MKDIR's
# answer, are used at once — a file made in each, its mode read.  An
# ordinary user's inotify reports the daemon's own flag as a change; an
# invalidation of it that lands while the kernel makes the new inode
# leaves the inode without the answer's attributes (mode 0: EACCES) on
# kernels without aff12041b4b2, so the daemon sends none for a change its
# answer already carried (fs/tree/dcache.c, dcache_told).
. "$(dirname "$0")/../lib/fs.sh"
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
n=${CF_FIRSTATTRS_DIRS:-3000}

cfs_mount
casefolded "$M/ci"
/usr/bin/python3 - "$M/ci" "$n" <<'PY' || fail "subdirectories used at once"
import os, stat, sys
top, n = sys.argv[1], int(sys.argv[2])
bad = []
want = 0o755 & ~os.umask(os.umask(0))
for i in range(n):
    d = os.path.join(top, "Dir%d" % i)
    other = os.path.join(top, "dir%d" % i)
    try:
        os.mkdir(d, 0o755)
        os.close(os.open(os.path.join(d, "File"), os.O_CREAT | os.O_WRONLY, 0o644))
        mode = stat.S_IMODE(os.stat(other).st_mode)
        if mode != want:
            bad.append("%s: mode %o" % (d, mode))
    except OSError as e:
        bad.append("%s: %s" % (d, e))
print("%d subdirectories made and used, %d went wrong%s" % (n, len(bad), ": " + "; ".join(bad[:5]) if bad else ""))
sys.exit(1 if bad else 0)
PY
[ "$(find "$B/ci" -name File | wc -l)" = "$n" ] || fail "not every file is in the backing tree"
cfs_umount
echo "firstattrs: ok"

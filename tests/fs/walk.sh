#!/usr/bin/env bash
# No cheap denial of service through the daemon's descriptors (issue 16,
# finding 2).  The daemon runs at RLIMIT_NOFILE 256 (tests/lib/fs.sh).  uid 65534
# walks 50,000 files in a +F tree — lookups in another case, open, read,
# close, with several readers at once — while uid 65533 keeps working in
# its own directory (create, write, close, fsync, rename, mkdir, symlink,
# unlink) through other spellings.  Neither may see any error, and the tree
# holds exactly what the second user left.  Then a third user holds open
# every descriptor the daemon can get but one: the second user may be
# refused new descriptors (EMFILE), but close() may not fail (flush needed
# a new descriptor), and no creating call may fail after it made its entry.
CF_NEEDS_ROOT="root's daemon shared with other uids (allow_other, chown)"
. "$(dirname "$0")/../lib/fs.sh"
command -v setpriv >/dev/null || skip "no setpriv"
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3 (the users run it)"
files=${CF_WALK_FILES:-50000}

chmod 755 "$T"
mkdir "$B/tree"
setfattr -n trusted.casefoldfs.casefold -v 1 "$B/tree"
python3 - "$B/tree" "$files" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for d in range(n // 1000):
    p = os.path.join(root, "Dir%02d" % d)
    os.mkdir(p)
    os.setxattr(p, "trusted.casefoldfs.casefold", b"1")
    for i in range(1000):
        with open(os.path.join(p, "File%04d" % i), "w") as f:
            f.write("%d/%d\n" % (d, i))
PY
mkdir "$B/work" "$B/hold" "$B/work2" && chown 65533:65533 "$B/work" "$B/work2" &&
	chown 65532:65532 "$B/hold"
setfattr -n trusted.casefoldfs.casefold -v 1 "$B/work"
touch "$B/work2/keep" && chown 65533:65533 "$B/work2/keep"
cfs_mount -o allow_other

setpriv --reuid=65533 --regid=65533 --clear-groups /usr/bin/python3 - "$M/work" "$T/walked" <<'PY' &
import os, sys
d, stop = sys.argv[1], sys.argv[2]
errors, ops, i = [], 0, 0
def step(f, *a):
    global ops
    try:
        f(*a); ops += 1
    except OSError as e:
        errors.append("%s%s: %s" % (f.__name__, a, e))
def write(p, data):
    fd = os.open(p, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
    try:
        os.write(fd, data); os.fsync(fd)
    finally:
        os.close(fd)
while not os.path.exists(stop) or i % 50 or i < 50:
    p = lambda n: os.path.join(d, "%s%d" % (n, i % 50))
    step(write, p("f"), b"x" * 100)
    step(os.rename, p("f"), p("g"))
    step(os.mkdir, p("d"))
    step(os.symlink, "g", p("l"))
    step(os.unlink, p("L"))
    step(os.rmdir, p("D"))
    if i % 2:
        step(os.unlink, p("G"))
    i += 1
print("worker: %d operations, %d errors" % (ops, len(errors)))
for e in errors[:10]:
    print("  " + e)
sys.exit(1 if errors else 0)
PY
worker=$!

setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 - "$M/tree" "$files" <<'PY'
import os, sys, threading
root, n = sys.argv[1], int(sys.argv[2])
errors, done = [], [0]
def walk(k):
    for d in range(k, n // 1000, 4):
        for i in range(1000):
            p = os.path.join(root, "dir%02d" % d, "FILE%04d" % i)
            try:
                with open(p) as f:
                    if f.read() != "%d/%d\n" % (d, i):
                        errors.append("%s: wrong content" % p)
                done[0] += 1
            except OSError as e:
                errors.append("%s: %s" % (p, e))
t = [threading.Thread(target=walk, args=(k,)) for k in range(4)]
[x.start() for x in t]
[x.join() for x in t]
print("walker: %d files read, %d errors" % (done[0], len(errors)))
for e in errors[:10]:
    print("  " + e)
sys.exit(1 if errors or done[0] != n else 0)
PY
walk_rc=$?
touch "$T/walked"
wait "$worker"
work_rc=$?
[ "$walk_rc" = 0 ] || fail "the walker saw errors"
[ "$work_rc" = 0 ] || fail "the worker saw errors"
# The worker's tree: what it left (g of the even slots), nothing else.
left=$(cd "$B/work" && LC_ALL=C ls | tr '\n' ' ')
want=$(for j in $(seq 0 2 48); do echo "g$j"; done | LC_ALL=C sort | tr '\n' ' ')
[ "$left" = "$want" ] || fail "the worker's directory holds: $left"
[ -z "$(find "$B/work" -mindepth 1 ! -user 65533)" ] || fail "entries not owned by the worker"

# ---- At the limit.  A third user holds open as many files as the daemon
# can give: its last open failed, and it closes one, so the daemon has one
# descriptor free (its cache gives back what it holds when it runs out).  The
# worker may be refused descriptors (EMFILE: what callers hold open is
# theirs), but close() must succeed, and a creating call that fails must
# leave nothing behind.
setpriv --reuid=65532 --regid=65532 --clear-groups /usr/bin/python3 - "$M/hold" <<'PY' >"$T/held" &
import os, signal, sys
fds = []
try:
    for i in range(100000):
        fds.append(os.open(os.path.join(sys.argv[1], "h%d" % i), os.O_CREAT | os.O_RDWR, 0o600))
except OSError:
    pass
# The last open failed: the daemon had no descriptor left.  One back.
os.close(fds.pop())
print(len(fds), flush=True)
signal.pause()
PY
holder=$!
for _ in $(seq 300); do [ -s "$T/held" ] && break; sleep 0.1; done
[ -s "$T/held" ] || fail "the holder did not start"
echo "the holder keeps $(cat "$T/held") files open"
setpriv --reuid=65533 --regid=65533 --clear-groups /usr/bin/python3 - "$M/work2" <<'PY'
import errno, os, stat, sys
d = sys.argv[1]
bad, refused, closed = [], 0, 0
limit = (errno.EMFILE, errno.ENFILE)
for i in range(200):
    p = os.path.join(d, "n%d" % i)
    for make in (lambda: os.mkdir(p), lambda: os.symlink("t", p),
                 lambda: os.mknod(p, stat.S_IFREG | 0o600), lambda: os.mkfifo(p),
                 lambda: os.close(os.open(p, os.O_CREAT | os.O_WRONLY, 0o600))):
        try:
            make()
        except OSError as e:
            if e.errno not in limit:
                bad.append("%s: %s" % (p, e))
            refused += 1
            if os.path.lexists(p):
                bad.append("%s: made, yet the call failed: %s" % (p, e))
            continue
        (os.rmdir if os.path.isdir(p) and not os.path.islink(p) else os.unlink)(p)
    # An open that gets through must close, with or without a write.
    try:
        fd = os.open(os.path.join(d, "keep"), os.O_RDWR)
    except OSError as e:
        if e.errno not in limit:
            bad.append("open: %s" % e)
        continue
    try:
        os.write(fd, b"data")
    finally:
        try:
            os.close(fd); closed += 1
        except OSError as e:
            bad.append("close: %s" % e)
print("at the limit: %d creations refused, %d opens closed, %d failures" % (refused, closed, len(bad)))
for b in bad[:10]:
    print("  " + b)
sys.exit(1 if bad or closed == 0 else 0)
PY
limit_rc=$?
kill "$holder"; wait "$holder" 2>/dev/null
[ "$limit_rc" = 0 ] || fail "at the limit: failures above"
kill -0 "$CFS_PID" || fail "the daemon died"
cfs_umount
echo "walk: ok ($files files)"

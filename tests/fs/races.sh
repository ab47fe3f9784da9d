#!/usr/bin/env bash
# Root acts on descriptors, not names (issue 16, finding 4).  The daemon
# creates as root and then hands the new entry to the caller; a writer of
# the backing tree swaps names under it meanwhile.  While uid 65534 creates
# files, fifos, directories and symlinks through the mount in a shared 1777
# directory (plain and +F), a swapper in the backing tree keeps putting hard
# links of root's 0600 file, and root's directories, onto the names being
# created, and fold-equal spellings of them next to them (so that create
# meets an existing entry after the kernel's negative lookup).  Bounded
# time.  Afterwards root's objects must still be root's, unchanged, and
# nothing the user did may have written root's file.
CF_NEEDS_ROOT="root's daemon creating for other users (allow_other)"
. "$(dirname "$0")/../lib/fs.sh"
command -v setpriv >/dev/null || skip "no setpriv"
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3 (the users run it)"
secs=${CF_RACE_SECONDS:-6}

chmod 755 "$T"
mkdir -m 700 "$B/vault"
echo root > "$B/vault/victim" && chmod 600 "$B/vault/victim"
for i in 0 1 2 3; do mkdir -m 700 "$B/vault/vdir$i"; done
cfs_mount -o allow_other
mkdir "$M/ci" "$M/cs" && chattr +F "$M/ci" || fail "setup"
chmod 1777 "$M/ci" "$M/cs"

python3 - "$B" "$secs" <<'PY' &
# The swapper: root in the backing tree.
import os, sys, time
b, secs = sys.argv[1], float(sys.argv[2])
victim = os.path.join(b, "vault", "victim")
vdir = [os.path.join(b, "vault", "vdir%d" % i) for i in range(4)]
vino = [os.stat(v).st_ino for v in vdir]
def put_back(name, i):
    # Only root's directory goes back: never whatever the user has there.
    if os.lstat(name).st_ino == vino[i]:
        os.rename(name, vdir[i])
end = time.time() + secs
while time.time() < end:
    for d in ("ci", "cs"):
        for i in range(4):
            name = os.path.join(b, d, "n%d" % i)
            tmp = os.path.join(b, d, ".swap")
            for f in (
                lambda: os.link(victim, tmp),
                lambda: os.rename(tmp, name),        # onto a new file/fifo/symlink
                lambda: os.unlink(name),
                lambda: os.rename(vdir[i], name),
                lambda: put_back(name, i),
                lambda: os.link(victim, os.path.join(b, d, "N%d" % i)),
                lambda: os.unlink(os.path.join(b, d, "N%d" % i)),
            ):
                try:
                    f()
                except OSError:
                    pass
# Put root's directories back and take root's links away.
victim_ino = os.stat(victim).st_ino
for d in ("ci", "cs"):
    for i in range(4):
        try:
            put_back(os.path.join(b, d, "n%d" % i), i)
        except OSError:
            pass
    for n in os.listdir(os.path.join(b, d)):
        p = os.path.join(b, d, n)
        if os.lstat(p).st_ino == victim_ino:
            os.unlink(p)
PY
swapper=$!

setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 - "$M" "$secs" <<'PY' ||
# The user: creates and removes through the mount.
import errno, os, stat, sys, time
m, secs = sys.argv[1], float(sys.argv[2])
fatal = (errno.EIO, errno.ENOTCONN, errno.ECONNABORTED)
done = refused = 0
end = time.time() + secs
def write_new(p):
    fd = os.open(p, os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o600)
    try:
        os.write(fd, b"user\n")
    finally:
        os.close(fd)
while time.time() < end:
    for d in ("ci", "cs"):
        for i in range(4):
            p = os.path.join(m, d, "n%d" % i)
            for f in (
                lambda: write_new(p),
                lambda: os.chmod(p, 0o666),
                lambda: os.unlink(p),
                lambda: os.mknod(p, stat.S_IFREG | 0o600),
                lambda: os.unlink(p),
                lambda: os.mkfifo(p, 0o600),
                lambda: os.unlink(p),
                lambda: os.mkdir(p, 0o700),
                lambda: os.chmod(p, 0o777),
                lambda: os.rmdir(p),
                lambda: os.symlink("x", p),
                lambda: os.unlink(p),
                lambda: write_new(os.path.join(m, d, "n%d" % i)),
                lambda: write_new(os.path.join(m, d, "N%d" % i)),
                lambda: os.unlink(p),
            ):
                try:
                    f(); done += 1
                except OSError as e:
                    if e.errno in fatal:
                        raise
                    refused += 1
print("user: %d operations done, %d refused" % (done, refused))
PY
	fail "the user's operations failed"
wait "$swapper"

# Root's objects are root's, and root's file holds what root wrote.
[ "$(stat -c '%u %a %h' "$B/vault/victim")" = "0 600 1" ] ||
	fail "root's file is now $(stat -c '%u %a %h' "$B/vault/victim")"
[ "$(cat "$B/vault/victim")" = root ] || fail "the user wrote root's 0600 file: $(cat "$B/vault/victim")"
for i in 0 1 2 3; do
	[ "$(stat -c '%u %a' "$B/vault/vdir$i")" = "0 700" ] ||
		fail "root's directory vdir$i is now $(stat -c '%u %a' "$B/vault/vdir$i")"
done
found=$(find "$B" -user 65534 -inum "$(stat -c %i "$B/vault/victim")")
[ -z "$found" ] || fail "root's file given to the user: $found"
kill -0 "$CFS_PID" || fail "the daemon died"
cfs_umount
echo "races: ok"

#!/usr/bin/env bash
# A hostile backing tree: fold-equal names and invalid UTF-8 made behind the
# daemon's back, a directory swapped for a symlink to outside the tree while
# operations run, a directory deleted while mounted.  The daemon must never
# touch anything outside the tree (a canary directory outside must not
# change), never crash, and log what it found.
. "$(dirname "$0")/../lib/fs.sh"
command -v python3 >/dev/null || skip "no python3"

canary=$T/canary
mkdir -p "$canary/sub" && echo canary > "$canary/c" && setfattr -n user.c -v 1 "$canary/c"
snapshot() {
	(cd "$canary" && find . -printf '%p %y %m %u %s %T@ %C@\n' | sort &&
		cat c && getfattr -dR -m - . 2>/dev/null)
}
before=$(snapshot)
# What changed, for the failure message: which name, and which of type,
# mode, owner, size, mtime, ctime, content or xattrs.
canary_same() { [ "$(snapshot)" = "$before" ] || { diff <(echo "$before") <(snapshot); false; }; }

cfs_mount
mkdir "$M/ci" && chattr +F "$M/ci" || fail "chattr"

# ---- Fold-equal names made in the backing tree: the exact name first,
# then the smallest in byte order; reported, and capped for thousands.
touch "$B/ci/Foo" "$B/ci/foo" "$B/ci/FOO"
same_file "$M/ci/fOO" "$B/ci/FOO"
same_file "$M/ci/foo" "$B/ci/foo"
expect EEXIST excl "$M/ci/fOo"
grep -q 'stored names "[Ff][Oo][Oo]" and "[Ff][Oo][Oo]" are equal under folding' "$T/daemon.log" ||
	fail "fold-equal names not reported"
mkdir "$B/ci/many"
setfattr -n "${CFS_XATTRS}casefold" -v 1 "$B/ci/many"
python3 -c '
import itertools, os, sys
for v in itertools.product(*[(c, c.upper()) for c in "abcdefghij"]):
    open(os.path.join(sys.argv[1], "".join(v)), "w").close()' "$B/ci/many"
[ -e "$M/ci/many/ABCDEFGHIJ" ] || fail "lookup among 1,024 fold-equal names"
stats=$(getfattr --absolute-names --only-values -n "${CFS_XATTRS}index" "$M/ci/many")
echo "1,024 fold-equal names: $stats"
case $stats in *"collisions 1023 "*) ;; *) fail "collisions not counted: $stats" ;; esac
lines=$(grep -c 'are equal under folding' "$T/daemon.log")
[ "$lines" -le 20 ] || fail "$lines log lines for one hostile directory"
grep -q 'in all, 1023 stored names equal under folding' "$T/daemon.log" || fail "no summary"

# ---- Invalid UTF-8 in the backing tree: opaque bytes, exact matches only.
bad=$'Bad\xff\xfe' trunc=$'caf\xc3'
touch "$B/ci/$bad" "$B/ci/$trunc"
[ -e "$M/ci/$bad" ] && [ -e "$M/ci/$trunc" ] || fail "invalid names not reachable exactly"
[ -e "$M/ci/${bad,,}" ] && fail "an invalid name matched in another case"
names "$M/ci" | grep -qx "$bad" || fail "invalid name not listed"
rm "$M/ci/$bad" && [ ! -e "$B/ci/$bad" ] || fail "unlink of an invalid name"

# ---- A directory swapped for a symlink to outside, while operations run.
mkdir "$M/ci/dir" "$M/cs"
swapper() {
	local end=$((SECONDS + 4)) n
	while [ $SECONDS -lt $end ]; do
		for n in dir DIR; do
			mv -T "$B/ci/dir" "$B/ci/dir.real" 2>/dev/null || continue
			# -n: where the mount's own renames left a symlink to the
			# canary under this name, plain ln would make its link
			# inside the canary.
			ln -sn "$canary" "$B/ci/$n" 2>/dev/null
			ln -sfn "$canary/sub" "$B/cs/link"
			rm -f "$B/ci/$n"
			mv -T "$B/ci/dir.real" "$B/ci/dir"
		done
	done
}
swapper &
swapper_pid=$!
python3 - "$M" <<'PY' || fail "operations during the swaps"
import errno, fcntl, os, sys, time
m = sys.argv[1]
ok = refused = 0
end = time.time() + 4
while time.time() < end:
    for name in ("dir", "DIR", "Dir"):
        p = os.path.join(m, "ci", name)
        for f in (
            # By name, never following the last component.
            lambda: os.lstat(p),
            lambda: os.setxattr(p, "user.x", b"1", follow_symlinks=False),
            lambda: os.chown(p, 0, 0, follow_symlinks=False),
            lambda: os.utime(p, (1, 1), follow_symlinks=False),
            lambda: os.rename(p, os.path.join(m, "ci", "moved")),
            lambda: os.rename(os.path.join(m, "ci", "moved"), p),
            lambda: os.unlink(p),
            lambda: os.link(p, os.path.join(m, "cs", "hard"), follow_symlinks=False),
            lambda: os.unlink(os.path.join(m, "cs", "hard")),
            lambda: os.unlink(os.path.join(m, "cs", "link")),
            lambda: os.close(os.open(p, os.O_RDONLY | os.O_NOFOLLOW)),
        ):
            try:
                f(); ok += 1
            except OSError as e:
                if e.errno in (errno.EIO, errno.ENOTCONN, errno.ECONNABORTED):
                    raise
                refused += 1
        # Through a descriptor of the real directory: *at() calls on it.
        try:
            d = os.open(p, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            fd = os.open("x", os.O_CREAT | os.O_WRONLY | os.O_TRUNC, dir_fd=d)
            os.write(fd, b"inside\n"); os.close(fd)
            os.mkdir("sub", dir_fd=d); os.rmdir("sub", dir_fd=d)
            os.rename("x", "y", src_dir_fd=d, dst_dir_fd=d)
            fcntl.ioctl(d, 0x80086601, bytes(8))
            os.unlink("y", dir_fd=d)
            ok += 1
        except OSError as e:
            if e.errno in (errno.EIO, errno.ENOTCONN, errno.ECONNABORTED):
                raise
            refused += 1
        finally:
            os.close(d)
print("during the swaps: %d operations done, %d refused" % (ok, refused))
PY
wait "$swapper_pid"
kill -0 "$CFS_PID" || fail "the daemon died during the swaps"
changed=$(canary_same) || fail "the canary outside the tree changed: $changed"
[ -e "$canary/x" ] || [ -e "$canary/y" ] || [ -e "$canary/moved" ] && fail "created outside"

# ---- A directory deleted while mounted, with a descriptor still open on it.
mkdir "$M/ci/gone" && echo x > "$M/ci/gone/f"
exec {held}<"$M/ci/gone"
rm -rf "$B/ci/gone"
sleep 1.1   # let the kernel's cached entries expire
[ -e "$M/ci/GONE" ] && fail "a deleted directory is still found"
python3 - "$held" <<'PY' || fail "a deleted directory accepted a new entry"
import errno, os, sys
d = int(sys.argv[1])
try:
    os.close(os.open("new", os.O_CREAT | os.O_WRONLY, dir_fd=d))
    sys.exit(1)
except OSError as e:
    sys.exit(0 if e.errno == errno.ENOENT else 1)
PY
exec {held}<&-
grep -q 'was removed from the backing tree behind our back' "$T/daemon.log" ||
	fail "deleted directory not reported"
mkdir "$B/ci/Gone" && [ -d "$M/ci/gone" ] || fail "a directory recreated behind our back"

changed=$(canary_same) || fail "the canary outside the tree changed: $changed"
cfs_umount

# ---- Strict mounts report stored names they cannot reach.
rm -rf "$B" && mkdir "$B"
cfs_mount -o strict_encoding
mkdir "$M/ci" && chattr +F "$M/ci"
touch "$B/ci/$bad" "$B/ci/ok"
[ -e "$M/ci/OK" ] || fail "strict lookup"
grep -q 'is not valid UTF-8 and cannot be reached' "$T/daemon.log" || fail "unreachable name not reported"
cfs_umount
echo "hostile: ok"

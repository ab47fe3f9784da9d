#!/usr/bin/env bash
# Opens of files whose nodes hold no descriptor any more: an ordinary
# user's daemon opens such a file by its name under its parent and keeps
# the descriptor only if it is the node's object (tree/locator.c,
# open_by_name).  uid 65534's daemon (as root; as a user, the user's own)
# with a 16-slot descriptor cache:
#  - 300 files read twice by other spellings each give their own bytes;
#  - while the backing tree swaps one file's name for a FIFO, a symbolic
#    link to a file outside the tree, a directory and a hard link of a
#    longer file, and back, unseen by the daemon (-o cache=timeout), opens
#    of it through the mount (the cache emptied before each) give one of
#    the two files' own bytes or fail
#    cleanly: none waits (a FIFO opened by name without O_NONBLOCK holds
#    the worker until a writer comes), none reads the outside file or the
#    longer file's bytes under the first one's size.
CF_USERS_MOUNT=1  # as root, the daemon runs as uid 65534
. "$(dirname "$0")/../lib/fs.sh"
py=$(command -v python3) || skip "no python3"
run=()
if [ "$(id -u)" = 0 ]; then
	command -v setpriv >/dev/null || skip "no setpriv"
	chmod 755 "$T"
	chown 65534:65534 "$B" "$M"
	CFS_AS=65534
	run=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	py=/usr/bin/python3  # a user's python (root's may be under its home)
	[ -x "$py" ] || skip "no /usr/bin/python3"
fi
cfs_mount -o fd_cache=16
"${run[@]}" mkdir "$M/ci" "$M/churn" && "${run[@]}" chattr +F "$M/ci" || fail "mkdir, chattr +F"

# ---- Files read twice by other spellings, the cache far smaller than them.
"${run[@]}" "$py" - "$M/ci" <<'PY' || fail "files read by name"
import os, sys
d = sys.argv[1]
for i in range(300):
    with open(os.path.join(d, "File%03d" % i), "w") as f:
        f.write("file %d\n" % i * (i % 7 + 1))
for rnd in (1, 2):
    for i in range(300):
        with open(os.path.join(d, "fILE%03d" % i)) as f:
            got = f.read()
        if got != "file %d\n" % i * (i % 7 + 1):
            sys.exit("pass %d: fILE%03d read %r" % (rnd, i, got[:40]))
PY

# ---- One name swapped behind the daemon's back while it is opened, no
# watch telling (-o cache=timeout): opens reach the node the kernel last
# looked up under the name, whatever is there now.
cfs_umount
"$py" -c 'import os, sys
for i in range(20000): os.mkdir("%s/c%d" % (sys.argv[1], i))' "$B/churn" ||
	fail "churn directories"
echo outside >"$T/outside"
printf 'real\n' >"$B/ci/f"
printf 'the other file\n' >"$B/other"
chmod 644 "$B/ci/f" "$B/other"
# swapper KIND...: for 4 s, f's name given to each KIND in turn, then
# back; "other" by renames over the name, which is then never missing (a
# lookup that missed would leave the kernel a negative entry to keep).
ln "$B/ci/f" "$B/real"
swapper() {
	local end=$((SECONDS + 4)) kind
	while [ $SECONDS -lt $end ]; do
		for kind; do
			if [ "$kind" = other ]; then
				ln "$B/other" "$B/ci/f.new" && mv -T "$B/ci/f.new" "$B/ci/f" &&
					ln "$B/real" "$B/ci/f.new" && mv -T "$B/ci/f.new" "$B/ci/f" ||
					return 1
				continue
			fi
			mv -T "$B/ci/f" "$B/ci/f.real" || return 1
			case $kind in
			fifo) mkfifo -m 644 "$B/ci/f" ;;
			link) ln -s "$T/outside" "$B/ci/f" ;;
			dir) mkdir "$B/ci/f" ;;
			esac
			rm -rf "$B/ci/f"
			mv -T "$B/ci/f.real" "$B/ci/f" || return 1
		done
	done
}
cat >"$T/reader.py" <<'PY'
import errno, os, stat, sys, time
m = sys.argv[1]
real, other = b"real\n", b"the other file\n"
opened = refused = churn = 0
end = time.time() + 4
while time.time() < end:
    # 20 first lookups of directories take the 16 slots (a directory's
    # node caches the descriptor its flag is read from; a file's is made
    # from the name alone): f's node has no descriptor left.
    for i in range(churn, churn + 20):
        os.stat(os.path.join(m, "churn", "c%d" % i))
    churn = (churn + 20) % 20000
    try:
        fd = os.open(os.path.join(m, "ci", "F"), os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError as e:
        if e.errno in (errno.EIO, errno.ENOTCONN, errno.ECONNABORTED):
            raise
        refused += 1
        continue
    err = None
    try:
        st = os.fstat(fd)
        got = os.read(fd, 100)
    except OSError as e:
        if e.errno in (errno.EIO, errno.ENOTCONN, errno.ECONNABORTED):
            raise
        got, err = None, e
    finally:
        os.close(fd)
    if stat.S_ISREG(st.st_mode) and got not in (real, other):
        sys.exit("read %r (%s) from a regular file of %d bytes" % (got, err, st.st_size))
    if stat.S_ISFIFO(st.st_mode) and got:
        sys.exit("read %r from the FIFO" % got)
    opened += 1
print("%s: %d opens, %d refused" % (sys.argv[2], opened, refused))
if opened == 0:
    sys.exit("no open succeeded")
PY
# swaps TIMEOUT KIND...: the reader against the swapper, on a fresh mount
# whose kernel keeps what it looked up for TIMEOUT seconds.
swaps() {
	local timeout=$1 swapper_pid rc
	shift
	cfs_mount -o fd_cache=16,cache=timeout,timeout="$timeout"
	swapper "$@" &
	swapper_pid=$!
	timeout 60 "${run[@]}" "$py" "$T/reader.py" "$M" "swaps to $*"
	rc=$?
	wait "$swapper_pid" || fail "the swapper lost the file"
	[ "$rc" = 0 ] || fail "opens during swaps to $* (exit $rc: 124 is a wait)"
	kill -0 "$CFS_PID" || fail "the daemon died during swaps to $*"
	cfs_umount
}
# Whatever is there, and looked up again often: nothing waits, nothing
# outside is read.
swaps 0.2 fifo link dir other

# ---- The same swaps one at a time, the kernel keeping its entries: each
# open goes to the node it looked up before, which has no descriptor left
# (40 first lookups of directories elsewhere take the cache), so the
# daemon opens by name and must find another object there: ESTALE, and
# the kernel's one retry looks the name up afresh.
for g in g1 g2 g3; do printf 'real\n' >"$B/ci/$g" && chmod 644 "$B/ci/$g" || fail "$g"; done
cfs_mount -o fd_cache=16,cache=timeout,timeout=60
evicted=0
evict() {
	"${run[@]}" "$py" -c 'import os, sys
for i in range(int(sys.argv[2]), int(sys.argv[2]) + 40): os.stat("%s/churn/c%d" % (sys.argv[1], i))' \
		"$M" "$evicted" || fail "stats of churn directories"
	evicted=$((evicted + 40))
}
# read_g NAME: what opening NAME (by another spelling) through the mount reads.
read_g() {
	timeout 20 "${run[@]}" "$py" -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
sys.stdout.write(os.read(fd, 100).decode()); os.close(fd)' "$M/ci/${1^^}"
}
for g in g1 g2 g3; do
	[ "$(read_g $g)" = real ] || fail "$g does not read as the file"
done
evict
ln "$B/other" "$B/ci/g1.new" && mv -T "$B/ci/g1.new" "$B/ci/g1" || fail "swap"
got=$(read_g g1) rc=$?
[ "$rc" = 0 ] && [ "$got" = "the other file" ] ||
	fail "g1, now another file, read \"$got\" (exit $rc): not that file's bytes"
mv -T "$B/ci/g2" "$B/ci/g2.real" && mkfifo -m 644 "$B/ci/g2" || fail "swap"
got=$(read_g g2) rc=$?
[ "$rc" = 0 ] && [ -z "$got" ] || fail "g2, now a FIFO, read \"$got\" (exit $rc: 124 is a wait)"
rm "$B/ci/g3" && ln -s "$T/outside" "$B/ci/g3" || fail "swap"
got=$(read_g g3 2>&1) && fail "g3, now a symbolic link, opened: \"$got\""
[[ $got == *"Too many levels of symbolic links"* ]] || fail "g3, now a symbolic link: $got"
cfs_umount
[ "$(cat "$T/outside")" = outside ] || fail "the file outside the tree changed"
[ "$(cat "$B/ci/f")" = real ] || fail "the swapped file changed"
[ "$(cat "$B/other")" = "the other file" ] || fail "the other file changed"
echo "openbyname: ok"

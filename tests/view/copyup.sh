#!/usr/bin/env bash
# Copy-up (issue 33): a lower directory copied up keeps its extended
# attributes, as fuse-overlayfs's copy does, live and after a remount; and
# once a file is copied up and written, every later open reads the new
# bytes, even while a descriptor opened on the lower file before the
# copy-up is still open; that one reads the copy from then on (overlayfs
# would go on showing it the lower file; the view cannot, fs/view/DESIGN.md).
# Then the race: a reader looping reads (each one asking the daemon: the
# pages are dropped before it) through a descriptor opened before the
# copy-up, while another thread's open copies the file up and rewrites it,
# shorter or in place; afterwards every new open, and that descriptor,
# must read the copy's bytes (CF_COPYUP_ROUNDS rounds).
. "$(dirname "$0")/lib.sh"

L=$T/low U=$T/upper W=$T/work
mkdir -p "$L/D/E" "$L/C" "$U" "$W"
echo f >"$L/D/f"
xset "$L/D" user.tag keep
xset "$L/D/E" user.tag deeper
xset "$L/C" user.tag chmod
printf 'old bytes\n' >"$L/r"
printf 'old\n' >"$L/s"
printf 'old bytes, longer than the new\n' >"$L/q"
rounds=${CF_COPYUP_ROUNDS:-200}
mkdir "$L/race"
for i in $(seq "$rounds"); do head -c 65536 /dev/zero | tr '\0' o >"$L/race/f$i"; done
opts="lowerdir=$L,upperdir=$U,workdir=$W"
ovl_mount "$opts" overlay

echo x >>"$M/D/f" || fail "append D/f"
echo y >"$M/D/E/g" || fail "create D/E/g"
chmod 700 "$M/C" || fail "chmod C"
check_tags() {
	[ "$(xget "$M/D" user.tag)" = keep ] || fail "$1: D lost user.tag ($(xget "$M/D" user.tag))"
	[ "$(xget "$M/D/E" user.tag)" = deeper ] || fail "$1: D/E lost user.tag"
	[ "$(xget "$M/C" user.tag)" = chmod ] || fail "$1: C lost user.tag"
	[ "$(xget "$U/D" user.tag)" = keep ] || fail "$1: the upper copy of D has no user.tag"
}
check_tags live

# Readers: a descriptor opened before another process copies up and
# writes; a later open must see the new bytes.
exec 3<"$M/r"
[ "$(head -c 3 <&3)" = old ] || fail "first read"
cat "$M/r" >/dev/null
printf 'new bytes, longer\n' >"$M/r" || fail "rewrite r"
[ "$(cat "$M/r")" = "new bytes, longer" ] || fail "a later open reads $(cat "$M/r")"
exec 3<&-
[ "$(cat "$M/r")" = "new bytes, longer" ] || fail "after the old descriptor closed: $(cat "$M/r")"
# The same with an append by a second process while the first holds it.
exec 3<"$M/s"
cat "$M/s" >/dev/null
sh -c "echo more >>'$M/s'" || fail "append s"
[ "$(cat "$M/s")" = "$(printf 'old\nmore')" ] || fail "s after an append reads $(cat "$M/s" | tr '\n' ' ')"
exec 3<&-
# A rewrite shorter than the lower file, then a read through a descriptor
# opened before it: the kernel keeps one page cache for the node, filled
# by whichever file reads, so that read must not bring the lower file's
# bytes into it (every later open then read "old " until a remount).  The
# old descriptor reads the copy from the copy-up on (fs/view/DESIGN.md).
exec 3<"$M/q"
cat "$M/q" >/dev/null
sh -c "printf 'new\n' >'$M/q'" || fail "rewrite q"
got=$(cat <&3)
[ "$got" = new ] || fail "the descriptor opened before the copy-up reads $got"
[ "$(cat "$M/q")" = new ] || fail "a later open of q reads $(cat "$M/q")"
exec 3<&-

python3 - "$M/race" "$rounds" <<'PY' || fail "a read in flight during a copy-up left the lower bytes"
import os, sys, threading, time
race, rounds = sys.argv[1], int(sys.argv[2])
for i in range(1, rounds + 1):
    path = os.path.join(race, "f%d" % i)
    fd = os.open(path, os.O_RDONLY)
    assert os.pread(fd, 4, 0) == b"oooo", "round %d: the lower file" % i
    stop = threading.Event()
    def reader():
        while not stop.is_set():
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.pread(fd, 65536, 0)
    t = threading.Thread(target=reader)
    t.start()
    time.sleep(0.002 * (i % 5))
    if i % 2:
        want = b"new %d\n" % i
        w = os.open(path, os.O_WRONLY | os.O_TRUNC)
    else:
        want = b"N" * 65536
        w = os.open(path, os.O_WRONLY)
    os.write(w, want)
    os.close(w)
    time.sleep(0.002)
    stop.set()
    t.join()
    for what, got in (("the old descriptor", os.pread(fd, 65536, 0)),
                      ("a new open", open(path, "rb").read())):
        if got != want:
            sys.exit("round %d: %s reads %r..., not %r..." % (i, what, got[:8], want[:8]))
    os.close(fd)
PY
cd / || fail cd
cfs_umount
ovl_mount "$opts" overlay
check_tags "after a remount"
[ "$(cat "$M/r")" = "new bytes, longer" ] || fail "r after a remount"
[ "$(cat "$M/q")" = new ] || fail "q after a remount"
cfs_umount
echo "copy-up: directories keep their xattrs, later opens see the copy"

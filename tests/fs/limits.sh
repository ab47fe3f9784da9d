#!/usr/bin/env bash
# Resource exhaustion in the daemon: too few file descriptors (a low
# RLIMIT_NOFILE) and a full backing filesystem (a small tmpfs).  Callers
# must get EMFILE/ENFILE or ENOSPC, the daemon must keep running, nothing
# written before may change, and everything works again once resources
# are back.
. "$(dirname "$0")/../lib/fs.sh"
command -v python3 >/dev/null || skip "no python3"

# hold DIR COUNT: opens DIR/f0..f<COUNT-1> (O_CREAT), writes each name into
# its file, keeps all open, then prints "ok N", "opened I..." (which ones: a
# descriptor the daemon frees lets a later one succeed after a refusal) and
# one "ERRNAME N" per error.
hold() {
	python3 - "$@" <<'PY'
import errno, os, sys
d, n = sys.argv[1], int(sys.argv[2])
fds, errs, opened = [], {}, []
for i in range(n):
    try:
        fd = os.open("%s/f%d" % (d, i), os.O_CREAT | os.O_WRONLY, 0o644)
        os.write(fd, b"f%d" % i)
        fds.append(fd)
        opened.append(str(i))
    except OSError as e:
        errs[errno.errorcode[e.errno]] = errs.get(errno.errorcode[e.errno], 0) + 1
print("ok", len(fds))
print("opened", " ".join(opened))
for k, v in sorted(errs.items()):
    print(k, v)
PY
}

# ---- Too few descriptors: the daemon holds one per open file.
mkdir "$B/many"
CF_DAEMON_NOFILE=48 cfs_mount
out=$(hold "$M/many" 200)
echo "$out" | tr '\n' ' '; echo
ok=$(echo "$out" | awk '$1 == "ok" {print $2}')
other=$(echo "$out" | awk '$1 != "ok" && $1 != "opened" && $1 != "EMFILE" && $1 != "ENFILE"')
[ -z "$other" ] || fail "errors other than EMFILE/ENFILE: $other"
echo "$out" | grep -q EMFILE || fail "200 open files within a limit of 48 descriptors"
[ "$ok" -gt 0 ] || fail "no file could be opened at all"
kill -0 "$CFS_PID" || fail "the daemon died out of descriptors"
# With the descriptors back, every file opened is there with its contents,
# and new ones can be made and found by any spelling.
for i in $(echo "$out" | awk '$1 == "opened" { $1 = ""; print }'); do
	[ "$(cat "$M/many/f$i")" = "f$i" ] || fail "many/f$i lost its contents"
done
mkdir "$M/ci" && chattr +F "$M/ci" && echo after > "$M/ci/After" &&
	[ "$(cat "$M/ci/AFTER")" = after ] || fail "not usable after running out of descriptors"
fusermount3 -u "$M" || fail "unmount"
wait_gone() { for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.05; done; return 1; }
wait_gone "$CFS_PID" || fail "daemon still running after unmount"
grep -q "AddressSanitizer\|runtime error" "$T/daemon.log" && fail "sanitizer report: $(cat "$T/daemon.log")"
CFS_PID=

# ---- A full backing filesystem.
rm -rf "$B" && mkdir "$B"
[ "$(id -u)" = 0 ] ||
	skip "needs root for its second half: the full backing filesystem is a small tmpfs, which only root can mount (the descriptor half passed)"
mount -t tmpfs -o size=1m,nr_inodes=48 casefold-test "$B" || skip "cannot mount tmpfs"
trap 'mounted && fusermount3 -uz "$M"; umount -l "$B"; cleanup' EXIT
cfs_mount
mkdir "$M/ci" && chattr +F "$M/ci" || fail "chattr on an empty tmpfs"
printf 'precious\n' > "$M/ci/Keep" && sync "$M/ci/Keep" || fail "write before filling"
dd if=/dev/zero of="$M/ci/Filler" bs=64k count=64 2>"$T/dd.err" && fail "1 MiB tmpfs took 4 MiB"
grep -q "No space left on device" "$T/dd.err" || fail "filling: $(cat "$T/dd.err")"
out=$(hold "$M/ci" 100)
echo "$out" | tr '\n' ' '; echo
other=$(echo "$out" | awk '$1 != "ok" && $1 != "opened" && $1 != "ENOSPC"')
[ -z "$other" ] || fail "errors other than ENOSPC when full: $other"
echo "$out" | grep -q ENOSPC || fail "100 files in a tmpfs of 48 inodes"
mkdir "$M/ci/Sub" 2>"$T/mkdir.err" || grep -q "No space" "$T/mkdir.err" || fail "mkdir: $(cat "$T/mkdir.err")"
# The flag is all or nothing: what lsattr shows is what the backing holds.
mkdir "$M/ci/Sub" 2>/dev/null
if [ -d "$B/ci/Sub" ]; then
	[ "$(getfattr --only-values -n trusted.casefoldfs.casefold "$B/ci/Sub" 2>/dev/null)" = 1 ] ||
		fail "a subdirectory made on a full disk lost its inherited flag"
fi
kill -0 "$CFS_PID" || fail "the daemon died on a full disk"
[ "$(cat "$M/ci/KEEP")" = precious ] || fail "data written before the disk filled changed"
rm "$M/ci/FILLER" && rm -f "$M"/ci/f* || fail "removing on a full disk"
echo again > "$M/ci/Again" && [ "$(cat "$M/ci/again")" = again ] || fail "not usable after freeing space"
cfs_umount
cfs_mount
[ "$(cat "$M/ci/keep")" = precious ] || fail "lost after remount"
cfs_umount
[ "$(ls -A "$B" | sort | tr '\n' ' ')" = ".casefoldfs ci " ] || fail "leftovers: $(ls -A "$B")"

# A first mount on a full filesystem cannot write its superblock: it fails
# cleanly and leaves no temporary file.
rm -rf "${B:?}"/* "$B/.casefoldfs"
dd if=/dev/zero of="$B/fill" bs=64k count=64 2>/dev/null
for i in $(seq 60); do touch "$B/i$i" 2>/dev/null || break; done
"$CFS" -f "$B" "$M" 2>"$T/full.err" && fail "mounted without a superblock"
cat "$T/full.err"
[ -e "$B/.casefoldfs" ] || [ -e "$B/.casefoldfs.tmp" ] && fail "partial superblock left behind"
echo "limits: ok"

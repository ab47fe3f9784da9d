#!/usr/bin/env bash
# The installed casefoldfs through the system's mount conventions:
# mount -t fuse.casefoldfs and an fstab line (mount.fuse3 runs casefoldfs
# from the shell's default PATH, here /usr/local/bin), umount, findmnt;
# detached, the daemon logs to syslog, and with -f to stderr.
#
# Runs in a private mount namespace: the DESTDIR's bin is bound on
# /usr/local/bin and a /dev with our own /dev/log socket on /dev, so
# nothing of the host is touched.
# tests/run: alone (runs make install on the build under test)
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root: mount -t and fstab mounts, its build bound over /usr/local/bin"
cf_may_mount
for tool in mount.fuse3 unshare findmnt chattr python3; do
	command -v "$tool" >/dev/null || skip "no $tool"
done

if [ "${1:-}" != --inside ]; then
	cf_make install "$T/dest"
	unshare -m --propagation private "$0" --inside "$T"
	exit
fi

# ---- inside the namespace ------------------------------------------------
rmdir "$T" && T=$2      # lib.sh made a directory of its own: use the outer one
B=$T/back M=$T/mnt
mkdir "$B" "$M"
LOG_PID= FG_PID=

mount_cleanup() {
	if mounted; then umount "$M" 2>/dev/null || umount -l "$M"; fi
	[ -z "$FG_PID" ] || kill "$FG_PID" 2>/dev/null
	[ -z "$LOG_PID" ] || kill "$LOG_PID" 2>/dev/null
}
at_exit mount_cleanup

# No program of the host's by that name may answer instead of ours.
mount --bind "$T/dest$PREFIX/bin" "$PREFIX/bin"
[ "$(env -i /bin/sh -c 'command -v casefoldfs')" = "$PREFIX/bin/casefoldfs" ] ||
	skip "casefoldfs is not found first in the shell's default PATH"

# syslog(3) writes datagrams to /dev/log: collect them in $T/syslog.
mkdir "$T/dev"
for n in null zero full random urandom tty fuse; do
	[ -e "/dev/$n" ] || continue
	touch "$T/dev/$n" && mount --bind "/dev/$n" "$T/dev/$n"
done
ln -s /proc/self/fd "$T/dev/fd"
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "ab", buffering=0) as log:
    print("ready", flush=True)
    while True:
        log.write(s.recv(65536) + b"\n")
' "$T/dev/log" "$T/syslog" >"$T/logger.out" &
LOG_PID=$!
for _ in $(seq 100); do [ -s "$T/logger.out" ] && break; sleep 0.05; done
[ -s "$T/logger.out" ] || fail "the syslog listener did not start"
mount --rbind "$T/dev" /dev

# A collision made behind the daemon's back is logged when the directory's
# index is built, at the first lookup of a name not stored.
collide() {
	mkdir "$M/$1" && chattr +F "$M/$1" || fail "chattr +F $M/$1"
	touch "$B/$1/name" "$B/$1/NAME"
	stat "$M/$1/Name" >/dev/null 2>&1
}

# 1. mount -t, with the options of the issue.
mount -t fuse.casefoldfs "$B" "$M" -o casefold=utf8-12.1.0,strict_encoding ||
	fail "mount -t fuse.casefoldfs failed"
mounted || fail "not mounted"
read -r fstype source options < <(findmnt -n -o FSTYPE,SOURCE,OPTIONS --mountpoint "$M")
[ "$fstype" = fuse.casefoldfs ] || fail "findmnt type $fstype"
[ "$source" = "$B" ] || fail "findmnt source $source"
[[ ,$options, == *,default_permissions,* ]] || fail "findmnt options $options"
grep -qx 'encoding utf8-12.1.0' "$B/.casefoldfs" && grep -qx 'flags strict_encoding' "$B/.casefoldfs" ||
	fail "the options did not reach the daemon: $(cat "$B/.casefoldfs")"
mkdir "$M/d" && chattr +F "$M/d" && touch "$M/d/Readme" || fail "chattr +F through mount -t"
[ "$(stat -c %i "$M/d/README")" = "$(stat -c %i "$M/d/readme")" ] || fail "not case-insensitive"
touch "$M/d/$(printf 'bad\377')" 2>/dev/null && fail "strict_encoding was not applied"
collide c1
for _ in $(seq 100); do grep -q 'casefoldfs\[[0-9]*\]: stored names' "$T/syslog" && break; sleep 0.05; done
grep -Eq 'casefoldfs\[[0-9]+\]: stored names "(NAME|name)" and "(NAME|name)"' "$T/syslog" ||
	fail "no collision report in syslog: $(cat "$T/syslog")"
grep -q 'casefoldfs: ' "$T/syslog" && fail "syslog lines repeat the program name"
umount "$M" || fail "umount failed"
wait_unmounted "$M"

# 2. A contradicting option fails the mount, and nothing is mounted.
mount -t fuse.casefoldfs "$B" "$M" -o casefold=utf8-15.0.0 2>"$T/refused" &&
	fail "a contradicting encoding was accepted"
grep -q 'casefoldfs:.*' "$T/refused" || fail "no message for a refused mount"
mounted && fail "mounted despite the refusal"

# 3. An fstab line, with the generic options mount and mount.fuse3 handle.
printf '%s %s fuse.casefoldfs casefold=utf8-12.1.0,strict_encoding,nofail,noauto 0 0\n' \
	"$B" "$M" >"$T/fstab"
mount -T "$T/fstab" "$M" || fail "mount from fstab failed"
[ "$(findmnt -n -o FSTYPE --mountpoint "$M")" = fuse.casefoldfs ] || fail "fstab mount type"
[ "$(stat -c %i "$M/d/README")" = "$(stat -c %i "$M/d/Readme")" ] || fail "fstab mount lookups"
findmnt --fstab -F "$T/fstab" -n -o TARGET | grep -qx "$M" || fail "findmnt --fstab"
umount "$M" || fail "umount of the fstab mount failed"
wait_unmounted "$M"

# 4. -f: foreground, messages on stderr and none in syslog.
lines=$(wc -l <"$T/syslog")
"$PREFIX/bin/casefoldfs" -f "$B" "$M" 2>"$T/fg.log" &
FG_PID=$!
wait_mounted "$M" "$FG_PID" || fail "casefoldfs -f did not mount: $(cat "$T/fg.log")"
collide c2
for _ in $(seq 100); do grep -q 'stored names' "$T/fg.log" && break; sleep 0.05; done
grep -Eq '^casefoldfs: stored names "(NAME|name)" and "(NAME|name)"' "$T/fg.log" ||
	fail "no collision report on stderr: $(cat "$T/fg.log")"
[ "$(wc -l <"$T/syslog")" = "$lines" ] || fail "-f logged to syslog"
umount "$M" || fail "umount of the -f mount failed"
wait "$FG_PID" || fail "casefoldfs -f exited with $?"
FG_PID=
echo "mount -t, fstab, umount, findmnt, syslog and -f: ok"

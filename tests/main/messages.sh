#!/usr/bin/env bash
# Every refusal of casefoldfs is one sentence that names the cause and the
# fix, and mounts nothing: numbers out of their ranges (signs, overflow,
# zero where zero means nothing, trailing junk), an option that is a typo
# of a known one (the suggestion), a mount point already mounted (by the
# same daemon, as root and as a user), an overlay work directory that does
# not exist, and /dev/fuse: missing, or (as a user) of mode 0600.
# A detached daemon's messages reach a file a user can read: -o logfile,
# or, where no system log listens on /dev/log, the default file it names.
# Root runs it in a private mount namespace, whatever /dev/fuse's mode:
# its last parts bind over /dev/fuse and /dev/log there, and hide /dev.
CF_USERS_MOUNT=1
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" != 0 ] || cf_private_ns "$@"
. "$(dirname "$0")/../lib/fs.sh"

# refused WANT CMD...: CMD fails, says WANT (a fixed string) in one line,
# mounts nothing.
mounts() { grep -c " $M fuse" /proc/mounts; }
refused() {
	local want=$1 before
	shift
	before=$(mounts)
	"$@" >"$T/out" 2>&1 && fail "$* succeeded: $(cat "$T/out")"
	grep -qF -- "$want" "$T/out" || fail "$* said '$(cat "$T/out")', not '$want'"
	[ "$(wc -l <"$T/out")" = 1 ] || fail "$* said more than one line: $(cat "$T/out")"
	[ "$(mounts)" = "$before" ] || fail "$* mounted"
}

# 1. Numbers.
for o in fd_cache=-1 fd_cache=99999999999 fd_cache=15 fd_cache=5x "fd_cache= 5" fd_cache=; do
	refused "fd_cache must be a whole number of descriptors from 16 to 1048576, not \"${o#*=}\"" \
		"$CFS" -o "$o" "$B" "$M"
done
for o in index_mem=0 index_mem=-5 index_mem=1048577 index_mem=+5; do
	refused "index_mem must be a whole number of MiB from 1 to 1048576, not \"${o#*=}\"" \
		"$CFS" -o "$o" "$B" "$M"
done
for o in nfs_nodes=-1 nfs_nodes=100000001 nfs_nodes=18446744073709551616; do
	refused "nfs_nodes must be a whole number of objects from 0 to 100000000, not \"${o#*=}\"" \
		"$CFS" -o "$o" "$B" "$M"
done
# The ends of the ranges mount.
cfs_mount -o fd_cache=1048576,index_mem=1,nfs_nodes=100000000
cfs_umount
cfs_mount -o fd_cache=16,index_mem=1048576,nfs_nodes=0
cfs_umount

# 2. Typos get the closest known option; what is close to nothing is
# libfuse's to refuse.
refused 'unknown option "fd_cach=5"; did you mean "fd_cache=N"?' "$CFS" -o fd_cach=5 "$B" "$M"
refused 'unknown option "casefold_nonemtpy"; did you mean "casefold_nonempty"?' \
	"$CFS" -o casefold_nonemtpy "$B" "$M"
refused 'unknown option "alow_other"; did you mean "allow_other"?' "$CFS" -o alow_other "$B" "$M"
refused 'unknown option "lowerdirs=a"; did you mean "lowerdir=DIR[:DIR...]"?' \
	"$CFS" -o lowerdirs=a "$B" "$M"
"$CFS" -o zzzqqq "$B" "$M" >"$T/out" 2>&1 && fail "-o zzzqqq was accepted"
grep -q "did you mean" "$T/out" && fail "-o zzzqqq got a suggestion: $(cat "$T/out")"
! mounted || fail "-o zzzqqq mounted"

# 3. A missing overlay work directory is named.
mkdir "$T/lower" "$T/upper"
refused "workdir $T/nowork: No such file or directory (it must be an empty directory on upperdir's filesystem)" \
	"$CFS" -o "lowerdir=$T/lower,upperdir=$T/upper,workdir=$T/nowork" "$M"

# 4. Mounting on a mount point that is mounted already: refused, and the
# first mount still serves.
cfs_mount
echo kept >"$M/file"
refused "$M is already mounted (fuse.casefoldfs, from $B); unmount it first (fusermount3 -u $M, or as root umount $M)" \
	"$CFS" "$B" "$M"
refused "$M is already mounted (fuse.casefoldfs, from $B)" \
	"$CFS" -o "lowerdir=$T/lower" "$M"
[ "$(mounts)" = 1 ] || fail "two mounts on $M"
[ "$(cat "$M/file")" = kept ] || fail "the first mount no longer serves"
cfs_umount

# 5. Logging of a detached daemon: a collision made behind its back is
# logged when the directory's index is built.
collide() { # LOGFILE: makes a collision in a new +F directory, waits for its line
	local d=c$RANDOM
	mkdir "$M/$d" && chattr +F "$M/$d" || fail "chattr +F"
	touch "$B/$d/name" "$B/$d/NAME"
	stat "$M/$d/Name" >/dev/null 2>&1
	for _ in $(seq 100); do grep -q "$M: stored names" "$1" 2>/dev/null && return 0; sleep 0.05; done
	fail "no collision report in $1: $(cat "$1" 2>&1)"
}
detached_umount() {
	fusermount3 -u "$M" || fail "fusermount3 -u"
	wait_unmounted "$M"
}
"$CFS" -o "logfile=$T/cfs.log" "$B" "$M" 2>"$T/out" || fail "mount with logfile: $(cat "$T/out")"
[ ! -s "$T/out" ] || fail "a mount with -o logfile said: $(cat "$T/out")"
collide "$T/cfs.log"
grep -Eq "^[0-9-]+ [0-9:]+ casefoldfs\[[0-9]+\] $M: stored names \"(NAME|name)\" and" "$T/cfs.log" ||
	fail "log line: $(cat "$T/cfs.log")"
detached_umount
refused "logfile $T/no/such/dir/log: No such file or directory" \
	"$CFS" -o "logfile=$T/no/such/dir/log" "$B" "$M"

# No system log: the daemon names the file it logs to.  Only where nothing
# listens on /dev/log, or as root in a private namespace where a plain file
# hides it (and a tmpfs the host's /var/log).
no_syslog=
if ! [ -e /dev/log ]; then
	no_syslog=1
elif [ "$(id -u)" = 0 ] && [ -n "${CF_PRIVATE_NS:-}" ]; then
	: >"$T/notasocket" && mount --bind "$T/notasocket" /dev/log && no_syslog=1
fi
if [ -n "$no_syslog" ]; then
	mkdir "$T/home"
	if [ "$(id -u)" = 0 ]; then
		mount -t tmpfs casefold-varlog /var/log || fail "cannot hide /var/log"
		want=/var/log/casefoldfs.log
	else
		want=$T/home/.local/state/casefoldfs.log
	fi
	HOME=$T/home XDG_STATE_HOME= "$CFS" "$B" "$M" 2>"$T/out" || fail "detached mount: $(cat "$T/out")"
	grep -qxF "casefoldfs: no system log listens on /dev/log: messages go to $want" "$T/out" ||
		fail "the detached daemon did not name its log: $(cat "$T/out")"
	collide "$want"
	detached_umount
	echo "without syslog: logged to $want"
else
	echo "a system log listens on /dev/log here: the fallback file is not tried"
fi

# 6. As an ordinary user (root's run: uid 65534; a user's run: itself).
if [ "$(id -u)" = 0 ]; then
	B=$T/userback                  # the tree above keeps root's flag store
	mkdir "$B" && chown 65534:65534 "$B" "$M"
	CFS_AS=65534 cfs_mount
	refused "$M is already mounted (fuse.casefoldfs, from $B); unmount it first" \
		as_nobody "$CFS_USER" "$B" "$M"
	cfs_umount
	# /dev/fuse as the kernel leaves it without udev rules.
	fuse_bind 0600
	refused 'casefoldfs: cannot mount as nobody: /dev/fuse is mode 600 (owner root), which nobody cannot open; root can let every user mount with chmod 0666 /dev/fuse' \
		as_nobody "$CFS_USER" "$B" "$M"
	refused 'casefoldfs: cannot mount as nobody: /dev/fuse is mode 600' \
		as_nobody "$CFS_USER" -o "lowerdir=$T/lower" "$M"
	echo "/dev/fuse 0600 and a second mount, as uid 65534: refused with their reasons"
	# No /dev/fuse at all (the module not loaded, a container started
	# without the device): a /dev of its own, with only /dev/null, for the
	# one command, as root and as a user.
	no_dev_fuse() {
		unshare -m sh -c 'mount -t tmpfs -o size=16k casefold-dev /dev &&
			mknod -m 666 /dev/null c 1 3 && exec "$@"' sh "$@"
	}
	for as in "" "setpriv --reuid=65534 --regid=65534 --clear-groups"; do
		# shellcheck disable=SC2086  # $as is words
		refused 'casefoldfs: cannot mount: there is no /dev/fuse; load the fuse module (as root: modprobe fuse), or start this container with the device' \
			no_dev_fuse $as "$CFS_USER" "$B" "$M"
	done
	echo "no /dev/fuse, as root and as uid 65534: refused with its reason"
fi
echo "numbers, typos, workdir, mounted mount points, /dev/fuse, log files: ok"

#!/usr/bin/env bash
# What the common operations cost in FUSE requests (issue 13).  Every
# request is a round trip to the daemon (about 16 µs on these machines,
# `sh bench/wine.sh`), so these counts are the design: fs/tree/DESIGN.md,
# "Kernel caches" and "Cost per request".  Counted by opcode in the
# daemon's request log (-d) around each step.
. "$(dirname "$0")/../lib/fs.sh"
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
case $(findmnt -no FSTYPE -T "$B") in
ext2 | ext3 | ext4 | xfs | btrfs | tmpfs | f2fs) ;;
*) skip "backing filesystem $(findmnt -no FSTYPE -T "$B") keeps FLUSH for writers" ;;
esac

cfs_mount -d
cd "$M" || fail "cd"
casefolded ci
printf 'data\n' >ci/Game.dat
mkdir ci/Sub
# Not a synchronisation: the kernel's entry and attribute timeouts (1 s)
# are what this waits out, so that every dentry and attribute from the
# setup has expired.
sleep 1.1


# requests STEP COMMAND...: runs COMMAND, waits for the kernel's
# asynchronous requests (RELEASE), and leaves "OPCODE COUNT" lines in
# $T/step for count.  The directory's own dentry is fresh first: its
# revalidation is not the step's.
requests() {
	local step=$1 before
	shift
	stat ci >/dev/null
	before=$(stat -c %s "$T/daemon.log")
	"$@" || fail "$step: $* failed"
	quiet_log
	tail -c +$((before + 1)) "$T/daemon.log" | grep -ao 'opcode: [A-Z_]*' |
		awk '{ n[$2]++ } END { for (o in n) print o, n[o] }' >"$T/step"
	echo "$step: $(sort "$T/step" | tr '\n' ' ')"
}
count() { awk -v o="$1" '$1 == o { n = $2 } END { print n + 0 }' "$T/step"; }
want() { # STEP OPCODE N
	[ "$(count "$2")" = "$3" ] || fail "$1: $(count "$2") $2, expected $3"
}

# Wine's open of a name in another case (stat, open, fstatfs, close),
# twice: one LOOKUP (the spelling is the kernel's for entry_timeout), and an
# OPEN, a STATFS and a RELEASE each time; no FLUSH for a read-only open.
# Python runs from / so that its start-up probes (sitecustomize...) stay
# off the mount.
wine_open() {
	(cd / && python3 - "$M/$1") <<'PY'
import os, sys
for _ in range(2):
    os.stat(sys.argv[1])
    fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
    os.fstat(fd)
    os.fstatvfs(fd)
    os.close(fd)
PY
}
requests "open by another spelling, twice" wine_open ci/GAME.DAT
want "open by another spelling, twice" LOOKUP 1
for o in OPEN STATFS RELEASE; do want "open by another spelling, twice" "$o" 2; done
want "open by another spelling, twice" FLUSH 0

# A miss, then the same miss: the kernel keeps the negative entry.
miss() { ! stat "$1" 2>/dev/null && ! stat "$1" 2>/dev/null; }
requests "a miss twice" miss ci/NoSuch.dll
want "a miss twice" LOOKUP 1

# Wine's probe of a directory's flag before it gives up on a miss: open,
# FS_IOC_GETFLAGS, close is one IOCTL, no OPENDIR/RELEASEDIR.
probe() {
	(cd / && python3 - "$M/$1") <<'PY'
import fcntl, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
flags = struct.unpack("l", fcntl.ioctl(fd, 0x80086601, b"\0" * 8))[0]
os.close(fd)
sys.exit(0 if flags & 0x40000000 else 1)
PY
}
requests "flag probe" probe ci/Sub
want "flag probe" IOCTL 1
want "flag probe" OPENDIR 0
want "flag probe" RELEASEDIR 0

# Rewriting a file on a local backing filesystem: no FLUSH at close (the
# write reported any error), the file's data as written.  Root's daemon
# passes the file through where the kernel can (fs/kernel/DESIGN.md,
# "Passthrough"): the kernel then writes the backing file itself, no WRITE.
rewrite() { printf 'new\n' >"$1"; }
requests "rewrite" rewrite ci/game.DAT
want "rewrite" FLUSH 0
if getfattr --only-values -n "${CFS_XATTRS}stats" "$M" 2>/dev/null | grep -q "passthrough on"; then
	want "rewrite" WRITE 0
else
	want "rewrite" WRITE 1
fi
[ "$(cat "$B/ci/Game.dat")" = new ] || fail "rewrite: the backing file holds $(cat "$B/ci/Game.dat")"

# A creation by a new name: LOOKUP (the miss) and CREATE, no FLUSH.
create() { : >"$1"; }
requests "create" create ci/New.txt
want "create" CREATE 1
want "create" FLUSH 0
[ -e "$B/ci/New.txt" ] || fail "create: nothing in the backing tree"
# Where changes behind our back are watched (cache=auto: fanotify for
# root, inotify for a user), what the kernel learnt outlives the unwatched
# timeout: a warm stat by another spelling costs nothing (issue 20).
quiet_stat() { stat "$@" >/dev/null; }
quiet_stat ci/GAME.DAT ci/Sub   # warm again: the rewrite above moved the attributes
sleep 1.2
requests "warm stat, after the unwatched timeout" quiet_stat ci/GAME.DAT ci/Sub
want "warm stat, after the unwatched timeout" LOOKUP 0
want "warm stat, after the unwatched timeout" GETATTR 0

# A directory filled as tar or rsync fill one (a miss, then the creation of
# that very name, 50 times): no epoch bump, so the names stay cached.
mkdir ci/filled
fill() { for i in $(seq 50); do : >"ci/filled/file$i"; done; }
fill
stat_all() { for i in $(seq 50); do stat "ci/filled/file$i"; done >/dev/null; }
requests "50 names created one by one, then stat" stat_all
want "50 names created one by one, then stat" LOOKUP 0
# The daemon's own rename and removal there: the kernel keeps the moved
# name and the others (an ordinary user's inotify names no process: the
# daemon recognises its own events, fs/echo.c).
mv ci/filled/file1 ci/filled/moved1 && rm ci/filled/file2 || fail "mv, rm"
stat_moved() { stat ci/filled/moved1 >/dev/null && stat_rest; }
stat_rest() { for i in $(seq 3 50); do stat "ci/filled/file$i"; done >/dev/null; }
requests "a rename and a removal, then stat" stat_moved
want "a rename and a removal, then stat" LOOKUP 0
# The daemon's own changes to a directory's attributes (a chmod, its
# times) are no flag change: the miss handed out there stays cached.  An
# ordinary user's inotify reports them as it reports a change behind our
# back; the daemon finds the flag as it read it (fs/tree/notice.c).
mkdir ci/attrs && miss ci/attrs/NoSuch || fail "mkdir ci/attrs"
chmod 700 ci/attrs && touch ci/attrs && sleep 0.3 || fail "chmod, touch"
requests "a directory's own chmod and times, then the miss again" miss ci/attrs/NoSuch
want "a directory's own chmod and times, then the miss again" LOOKUP 0
# The daemon's own chmod of a file: the SETATTR's answer gave the kernel
# the new attributes, and the notice of the chmod (an ordinary user's
# inotify reports it) asks for nothing again.  A notice the reader takes
# before the answer has noted its ctime still invalidates (dcache_told:
# one request more, never a stale answer), so the step has five tries;
# a daemon that invalidates at every notice fails all five.
for try in 1 2 3 4 5; do
	chmod "6${try}0" ci/game.DAT && sleep 0.3 || fail "chmod"
	requests "stat after our own chmod" quiet_stat ci/game.DAT
	[ "$(count GETATTR)" = 0 ] && break
done
want "stat after our own chmod" GETATTR 0

# A warm git status in a casefolded work tree: git probes missing names in
# .git, then creates and removes index.lock; none of that expires the
# kernel's other dentries (fs/tree/DESIGN.md, "The dentry epoch").
if command -v git >/dev/null; then
	mkdir ci/repo && cd ci/repo && git init -q && for i in $(seq 100); do echo "$i" >"f$i"; done &&
		git add . && git -c user.email=t@t -c user.name=t commit -qm t || fail "git setup"
	# Past the racy-git second, so that status leaves the index alone.
	sleep 1.1 && git status >/dev/null && git status >/dev/null && sleep 0.5
	cd "$M" || fail "cd"
	requests "warm git status" git -C ci/repo status --porcelain
	# At most index.lock, whose dentry its unlink left uncached.
	[ "$(count LOOKUP)" -le 1 ] || fail "warm git status: $(count LOOKUP) LOOKUP"
fi

# A directory whose names the kernel has never seen (made behind our
# back), listed with every name's attributes (ls -l, find, a Windows
# program's FindNextFile), then removed (rm -rf): the dentries come with
# the listing (READDIRPLUS), no LOOKUP per name, neither for the stats nor
# for the removals.
mkdir ci/listed && : >ci/listed/probe || fail "mkdir ci/listed"
for i in $(seq 40); do : >"$B/ci/listed/entry$i"; done
# The notices of those creations must be behind us, or one could drop a
# dentry the listing made: they come in order, so once the kernel has
# forgotten the probe removed after them, they have all been seen.
rm "$B/ci/listed/probe"
i=0
while [ -e ci/listed/probe ]; do
	i=$((i + 1))
	[ $i -lt 200 ] || fail "the removal of ci/listed/probe behind our back never showed"
	sleep 0.05
done
requests "a listing with attributes" ls -l ci/listed
want "a listing with attributes" LOOKUP 0
[ "$(count READDIRPLUS)" -ge 1 ] || fail "a listing with attributes: no READDIRPLUS"
requests "rm -rf of what was listed" rm -rf ci/listed
want "rm -rf of what was listed" LOOKUP 0
want "rm -rf of what was listed" UNLINK 40
cd /
cfs_umount

# With -o opens=kernel (root's only) an open costs no request at all:
# Wine's open is its STATFS alone, and the pages the first cat read stay
# in the kernel's cache across opens and spellings: two more reads ask
# nothing.  (Until the epoch was known from INIT, its probe, a bump at the
# first lookup by another spelling, dropped the file's inode and pages.)
if [ -z "$CF_UNPRIV" ]; then
	cfs_mount -d -o opens=kernel
	cd "$M" || fail "cd"
	cat ci/Sub/../Game.dat >/dev/null   # the first OPEN and FLUSH, answered ENOSYS: the last ones
	requests "kernel opens: open by another spelling, twice" wine_open ci/GAME.DAT
	for o in OPEN RELEASE FLUSH; do want "kernel opens: open by another spelling, twice" "$o" 0; done
	want "kernel opens: open by another spelling, twice" STATFS 2
	read_twice() { cat "$1" "$1" >/dev/null; }
	requests "kernel opens: read twice" read_twice ci/Game.dat
	want "kernel opens: read twice" READ 0
	want "kernel opens: read twice" OPEN 0
	cd /
	cfs_umount
fi
echo "requests: ok"

# Helpers for the casefoldfs integration tests (sourced, not run): the one
# library of every group that mounts (tests/fs, tests/kernel, tests/main,
# tests/view through its own lib.sh, tests/clients, tests/convert).
#
# Every test gets a fresh backing tree $B and mount point $M under a private
# temporary directory $T.  The daemon runs in the foreground in the
# background (-f), so its exit status — sanitizer reports included — is
# checked at every unmount.  The EXIT trap unmounts and removes everything.
#
# As root the daemon runs as root.  With CF_UNPRIV=1 the test runs as an
# ordinary user (tests/fs/unprivileged.sh starts the suites as uid 65534):
# the daemon mounts through fusermount3, like any user's, and the tree keeps
# its flags in user.* xattrs.  $CFS_XATTRS is the prefix of the tree's
# bookkeeping xattrs either way.
#
# As an ordinary user a suite runs the same way on that user's own mount
# (CF_UNPRIV=1 is implied), unless it says before sourcing this file why it
# needs root (CF_NEEDS_ROOT=REASON): then it skips with that reason.  A
# suite that mounts as another user (CFS_AS) sets CF_USERS_MOUNT=1 first:
# /dev/fuse is made usable by users for that suite only (fuse_for_users).
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

CFS=$CF_BUILD/casefoldfs
cf_may_mount
CF_UNPRIV=${CF_UNPRIV:-}
if [ "$(id -u)" != 0 ]; then
	[ -z "${CF_NEEDS_ROOT:-}" ] || skip "needs root: $CF_NEEDS_ROOT"
	CF_UNPRIV=1
fi
if [ -n "$CF_UNPRIV" ]; then
	[ "$(id -u)" != 0 ] || fail "CF_UNPRIV=1 is for a test run as an ordinary user"
	[ -r /dev/fuse ] && [ -w /dev/fuse ] ||
		skip "/dev/fuse (mode $(fuse_mode)) is not usable by uid $(id -u); root can make it so (README: /dev/fuse)"
	CFS_XATTRS=user.casefoldfs.
else
	CFS_XATTRS=trusted.casefoldfs.
	[ -z "${CF_USERS_MOUNT:-}" ] || fuse_for_users "$@"
fi
export CFS_XATTRS CF_UNPRIV  # for tests/lib/stress.py
command -v fusermount3 >/dev/null || skip "no fusermount3"
command -v perl >/dev/null || skip "no perl"
[ -x "$CFS" ] || skip "$CFS is not built"

T=$(mktemp -d /tmp/casefoldfs-test.XXXXXX) || exit 1
B=$T/back
M=$T/mnt
mkdir "$B" "$M"
CFS_PID=

mounted() { fuse_mounted "$M"; }

cfs_cleanup() {
	if mounted; then
		fusermount3 -u "$M" 2>/dev/null || fusermount3 -uz "$M"
	fi
	# A daemon that SIGTERM does not end within 5 s is stuck: its
	# threads' stacks, then SIGKILL (a test must not leave it behind).
	local i
	if [ -n "$CFS_PID" ] && kill "$CFS_PID" 2>/dev/null; then
		for ((i = 0; i < 100; i++)); do
			kill -0 "$CFS_PID" 2>/dev/null || break
			sleep 0.05
		done
	fi
	if [ -n "$CFS_PID" ] && kill -0 "$CFS_PID" 2>/dev/null; then
		daemon_stacks >&2
		kill -9 "$CFS_PID"
		echo "casefoldfs $CFS_PID did not end at SIGTERM within 5 s" >&2
	fi
	rm -rf "$T"
}
at_exit cfs_cleanup

# The daemon runs with few descriptors (CF_DAEMON_NOFILE, default 256), so
# every suite proves that its descriptors do not grow with the inodes the
# kernel remembers; CF_MOUNT_OPTS adds options to every mount (e.g.
# "-o nohandles,fd_cache=16": path locators under constant eviction).
CF_DAEMON_NOFILE=${CF_DAEMON_NOFILE:-256}
CF_MOUNT_OPTS=${CF_MOUNT_OPTS:-}
# CF_DAEMON_STACK=BYTES: the daemon's stack limit, which is also its worker
# threads' stack size (glibc takes it from RLIMIT_STACK); unset: inherited.
CF_DAEMON_STACK=${CF_DAEMON_STACK:-}

# CFS_AS=UID (root only): cfs_mount runs the daemon as that user, with no
# groups, as a test of both modes needs; the user must own $B and $M and
# reach them ($T is made 0755 for it), and only that user can use the mount.
# The daemon it runs is $CFS_USER: $CFS, or a copy the user can reach when
# the build sits where it cannot (reachable_copy).
CFS_AS=
CFS_USER=
cfs_user_binary() {
	[ -n "$CFS_USER" ] && return 0
	reachable_copy "$CFS"
	CFS_USER=${CF_REACHABLE:+$CF_REACHABLE/casefoldfs}
	CFS_USER=${CFS_USER:-$CFS}
}

# cfs_start ARGS...: `casefoldfs -f [CF_MOUNT_OPTS] ARGS...`, mounting on $M,
# in the background with the limits above (as CFS_AS if set); waits until
# it has mounted.  cfs_mount ($B) and tests/view/lib.sh's ovl_mount (an
# overlay view) both start the daemon through it.
cfs_start() {
	local as=() cfs=$CFS
	if [ -n "$CFS_AS" ]; then
		chmod 755 "$T"
		as=(setpriv --reuid="$CFS_AS" --regid="$CFS_AS" --clear-groups)
		cfs_user_binary
		cfs=$CFS_USER
	fi
	# shellcheck disable=SC2086
	"${as[@]}" prlimit --nofile="$CF_DAEMON_NOFILE:$CF_DAEMON_NOFILE" \
		${CF_DAEMON_STACK:+--stack="$CF_DAEMON_STACK"} "$cfs" -f $CF_MOUNT_OPTS "$@" \
		2>>"$T/daemon.log" &
	CFS_PID=$!
	if wait_mounted "$M" "$CFS_PID"; then
		[ -z "${CF_URING_ON:-}" ] || uring_on
		return 0
	fi
	tail -n 20 "$T/daemon.log" >&2
	fail "casefoldfs $* did not mount"
}
# CF_URING_ON=1 (uringstall.sh runs the attacks so): every mount must come
# to serve by io_uring, its stats say so within 5 s (its entries registered).
uring_on() {
	local prefix stats i
	prefix=$([ -n "$CFS_AS" ] && echo user.casefoldfs. || echo "$CFS_XATTRS")
	for i in $(seq 50); do
		stats=$(getfattr --only-values -n "${prefix}stats" "$M" 2>/dev/null)
		case $stats in *"io_uring on "*) return 0 ;; esac
		sleep 0.1
	done
	fail "CF_URING_ON: the mount does not serve by io_uring: ${stats:-no stats}"
}
# cfs_mount [OPTIONS...]: mounts $B on $M and waits until it is there.
cfs_mount() { cfs_start "$@" "$B" "$M"; }

# cfs_umount: unmounts and checks that the daemon exited cleanly.
cfs_umount() {
	local rc
	fusermount3 -u "$M" || fail "fusermount3 -u failed"
	wait "$CFS_PID"
	rc=$?
	CFS_PID=
	if [ "$rc" != 0 ]; then
		cat "$T/daemon.log" >&2
		fail "daemon exited with status $rc"
	fi
}

# daemon_stacks: where each of the daemon's threads waits (its system call,
# and its kernel stack where this user may read it), for a step that hung.
daemon_stacks() {
	local t
	echo "casefoldfs $CFS_PID, thread by thread:"
	for t in /proc/"$CFS_PID"/task/*; do
		echo "  $(cat "$t/comm" 2>/dev/null) ${t##*/}: wchan $(cat "$t/wchan" 2>/dev/null)," \
			"syscall $(cut -d' ' -f1-3 "$t/syscall" 2>/dev/null)"
		sed 's/^/      /' "$t/stack" 2>/dev/null
	done
}

# abort_mount: ends $M's connection to the kernel as a hung daemon's is
# ended, so that callers waiting on it return (ENOTCONN): through fusectl
# as root, else by killing the daemon (its /dev/fuse closes).
abort_mount() {
	local dev conn=/sys/fs/fuse/connections
	dev=$(mountpoint -d "$M" 2>/dev/null)
	if [ -n "$dev" ] && [ "$(id -u)" = 0 ]; then
		[ -d "$conn/${dev#*:}" ] || mount -t fusectl fusectl "$conn" 2>/dev/null
		conn=$conn/$(( (${dev%:*} << 20) | ${dev#*:} ))/abort
		[ -w "$conn" ] && echo 1 >"$conn" && return 0
	fi
	[ -z "$CFS_PID" ] || kill -9 "$CFS_PID" 2>/dev/null
}

# bounded SECONDS WHAT CMD...: runs CMD, which must end within SECONDS; a
# step that does not has hung in the daemon: its stacks are printed, the
# connection aborted (the callers, in D state, return) and the test fails.
# CMD's status is returned.
bounded() {
	local secs=$1 what=$2 pid i
	shift 2
	"$@" &
	pid=$!
	for ((i = 0; i < secs * 20; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$pid" 2>/dev/null; then
		daemon_stacks >&2
		abort_mount
		wait "$pid"
		fail "$what: no answer in $secs s (the mount's connection was aborted)"
	fi
	wait "$pid"
}

# quiet_log: waits until the daemon's log (-d: a line per request) has
# stopped growing for 100 ms: the kernel sends RELEASE and FORGET after
# the command that caused them has exited (requests.sh, view/keepcache.sh).
quiet_log() {
	local last=-1 now quiet=0 i
	for ((i = 0; i < 500 && quiet < 5; i++)); do
		now=$(stat -c %s "$T/daemon.log")
		if [ "$now" = "$last" ]; then quiet=$((quiet + 1)); else quiet=0 last=$now; fi
		sleep 0.02
	done
	[ "$quiet" -ge 5 ] || fail "the daemon's log never stopped growing"
}

# vm_run WHAT FILE...: runs $T/vm.sh under the kernel VM ($runner,
# tests/vm/run-in-vm), the programs of host_files and their libraries
# brought in, each FILE in /data; prints what the script printed, skips
# where it skipped ("SKIP: why"), fails naming WHAT on any other status.
vm_run() {
	local what=$1 rc
	shift
	CF_VM_HOST_FILES="${host_files[*]}" "$runner" "$T/vm.sh" "$@" >"$T/vm.out" 2>"$T/runner.log"
	rc=$?
	cat "$T/vm.out"
	case $rc in
	0) ;;
	77) skip "$(sed -n 's/^SKIP: //p' "$T/vm.out")" ;;
	*)
		tail -n 30 "$T/runner.log"
		fail "$what in the kernel VM failed (status $rc)"
		;;
	esac
}

# kill_callers ROUNDS: in $M/ci (a casefolded directory holding Big.bin),
# callers killed with SIGKILL while their requests are queued behind the
# stopped daemon, then ROUNDS times at random points of requests it is
# answering (interrupts.sh, uring.sh); the suite checks the mount after.
kill_callers() {
	local pids i p round
	# Queued: the daemon is stopped, the callers wait for it, and are killed.
	kill -STOP "$CFS_PID"
	pids=()
	for i in $(seq 8); do
		(cat "$M/ci/BIG.BIN" >/dev/null; stat "$M/ci/new_$i" >/dev/null 2>&1) &
		pids+=($!)
	done
	sleep 0.3
	kill -9 "${pids[@]}" 2>/dev/null
	kill -CONT "$CFS_PID"
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	# Busy: callers killed at random points of their requests.
	for round in $(seq "$1"); do
		pids=()
		for i in $(seq 4); do
			(while :; do cat "$M/ci/big.bin" >/dev/null; ls "$M/ci" >/dev/null
				echo x >"$M/ci/tmp_${round}_$i"; rm -f "$M/ci/TMP_${round}_$i"; done) 2>/dev/null &
			pids+=($!)
		done
		sleep 0.05
		kill -9 "${pids[@]}" 2>/dev/null
		for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	done
}

# sys OP ARGS...: one system call through perl; prints OK or the errno name.
#   create|excl|mkdir|rmdir|unlink|stat|fifo PATH, rename|link|symlink A B
sys() {
	perl -e '
		use strict; use Fcntl; use Errno; use POSIX ();
		my ($op, $a, $b) = @ARGV; my $ok; my $fh;
		if    ($op eq "create") { $ok = sysopen($fh, $a, O_CREAT | O_WRONLY) }
		elsif ($op eq "excl")   { $ok = sysopen($fh, $a, O_CREAT | O_EXCL | O_WRONLY) }
		elsif ($op eq "mkdir")  { $ok = mkdir($a) }
		elsif ($op eq "rmdir")  { $ok = rmdir($a) }
		elsif ($op eq "unlink") { $ok = unlink($a) }
		elsif ($op eq "stat")   { $ok = lstat($a) }
		elsif ($op eq "fifo")   { $ok = POSIX::mkfifo($a, 0644) }
		elsif ($op eq "rename") { $ok = rename($a, $b) }
		elsif ($op eq "link")   { $ok = link($a, $b) }
		elsif ($op eq "symlink"){ $ok = symlink($a, $b) }
		else { die "sys: unknown op $op\n" }
		print $ok ? "OK\n" : ((grep { $!{$_} } keys %!)[0] // "errno $!") . "\n";
	' "$@"
}

# expect RESULT OP ARGS...: sys OP ARGS must print RESULT.
expect() {
	local want=$1 got
	shift
	got=$(sys "$@")
	[ "$got" = "$want" ] || fail "$* gave $got, expected $want"
}

# same_file A B: both names reach one inode.
same_file() {
	[ "$(stat -c %i "$1")" = "$(stat -c %i "$2")" ] || fail "$1 and $2 differ"
}

# names DIR: the entries of DIR, one a line, sorted bytewise.
names() { (cd "$1" && LC_ALL=C ls -A); }

# casefolded DIR: makes DIR through the mount and sets +F on it.
casefolded() {
	mkdir "$1" && chattr +F "$1" || fail "chattr +F $1"
}

# uring_enable (root): sets the fuse module's enable_uring, which the whole
# machine shares, for this test; its EXIT step puts the previous value back
# whatever happens.  Skips where the kernel has no FUSE over io_uring.
uring_enable() {
	local p=/sys/module/fuse/parameters/enable_uring old
	[ -e "$p" ] || skip "$p is absent: the kernel has no FUSE over io_uring (Linux < 6.14)"
	old=$(cat "$p") || fail "reading $p"
	at_exit "echo '$old' >'$p'"
	echo Y >"$p" || fail "setting $p"
}

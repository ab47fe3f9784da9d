# The helpers every test shares (sourced, not run), directly or through its
# group's library, tests/GROUP/lib.sh (view, clients, convert, install, cli,
# ext4, audit: every group's helpers have that name), or the filesystem
# suites' shared library, tests/lib/fs.sh.  One meaning each:
#   skip REASON     the test does not apply here: says why, exits 77
#   fail REASON     the test has failed: says why, exits 1
#   at_exit CMD     CMD runs when the test exits, the last added first
# (tests that count failures and go on use record_failure, tests/cli/lib.sh).
set -u
[ -z "${CF_LIB_LOADED:-}" ] || return 0
CF_LIB_LOADED=1

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

: "${CF_BUILD:?CF_BUILD must name the build directory}"
: "${CF_ROOT:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
export CF_BUILD CF_ROOT

CF_EXIT_STEPS=()
at_exit() { CF_EXIT_STEPS=("$*" "${CF_EXIT_STEPS[@]}"); }
# cleanup: runs the at_exit steps once; the EXIT trap calls it (a test that
# sets its own EXIT trap ends it with cleanup).
cleanup() {
	local step steps=("${CF_EXIT_STEPS[@]}")
	CF_EXIT_STEPS=()
	for step in "${steps[@]}"; do eval "$step"; done
}
trap cleanup EXIT

# as_nobody COMMAND...: runs COMMAND as uid and gid 65534, no other groups.
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

# cf_cc ARGS...: compiles a helper program with the compiler and flags of
# the build under test (sanitizers included), which `make tests` records in
# $CF_BUILD/toolchain.
cf_cc() {
	[ -r "$CF_BUILD/toolchain" ] || skip "no $CF_BUILD/toolchain (made by make tests)"
	local CF_CC CF_CFLAGS CF_LDFLAGS
	. "$CF_BUILD/toolchain"
	# shellcheck disable=SC2086
	$CF_CC $CF_CFLAGS "$@" $CF_LDFLAGS
}
# cf_cc_only ARGS...: the same compiler without the build's flags, for what
# they cannot apply to (a static program run in the kernel VM: the
# sanitizers do not link statically).
cf_cc_only() {
	[ -r "$CF_BUILD/toolchain" ] || skip "no $CF_BUILD/toolchain (made by make tests)"
	local CF_CC CF_CFLAGS CF_LDFLAGS
	. "$CF_BUILD/toolchain"
	# shellcheck disable=SC2086
	$CF_CC "$@"
}

# wait_for SECONDS COMMAND...: polls COMMAND every 20 ms until it succeeds;
# fails the test when it has not within SECONDS.
wait_for() {
	local limit=$(( $1 * 50 )) i
	shift
	for ((i = 0; i < limit; i++)); do
		"$@" && return 0
		sleep 0.02
	done
	fail "waited ${limit}0 ms in vain for: $*"
}

# fuse_mounted DIR [TYPE]: a FUSE filesystem is mounted on DIR (of TYPE,
# as /proc/mounts names it: fuse.casefoldfs).
fuse_mounted() { grep -qs " $1 ${2:-fuse}[. ]" /proc/mounts; }
# wait_mounted DIR PID: polls every 50 ms, up to 20 s, until PID (a FUSE
# daemon run in the foreground, our child) has mounted on DIR; status 1 when
# PID exits first or time runs out.
wait_mounted() {
	local i
	for ((i = 0; i < 400; i++)); do
		fuse_mounted "$1" && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
# wait_unmounted DIR: until nothing FUSE is mounted on DIR (an unmount may
# return before the daemon has let go); fails the test after 10 s.
wait_unmounted() { wait_for 10 eval "! fuse_mounted '$1'"; }

# cf_may_mount: skips when this run must not mount (tests/run --no-fuse,
# as in a package build) or there is no FUSE.
cf_may_mount() {
	[ -z "${CF_NO_FUSE:-}" ] || skip "no FUSE in this run (tests/run --no-fuse)"
	[ -c /dev/fuse ] || skip "no /dev/fuse"
}

# fuse_mode: /dev/fuse's mode, octal.
fuse_mode() { stat -c %a /dev/fuse 2>/dev/null || echo missing; }
# fuse_usable_by_all: other users can open /dev/fuse (o+rw, Debian's 0666).
fuse_usable_by_all() { [ -c /dev/fuse ] && (( (8#$(fuse_mode) & 6) == 6 )); }

# cf_private_ns ARGS: re-runs the test ("$0" ARGS) in a private mount
# namespace, once, and exits with its status (after this run's at_exit
# steps); what the test mounts there never reaches the host.
cf_private_ns() {
	[ -n "${CF_PRIVATE_NS:-}" ] && return 0
	[ "$(id -u)" = 0 ] || skip "needs root: ${CF_NEEDS_ROOT:-a private mount namespace}"
	command -v unshare >/dev/null || skip "no unshare"
	CF_PRIVATE_NS=1 unshare -m --propagation private "$0" "$@"
	exit
}

# fuse_bind MODE: in the test's private mount namespace (cf_private_ns),
# binds over /dev/fuse a node of the same device with MODE, on a tmpfs of
# the namespace: the host's /dev/fuse is never touched, whatever happens.
fuse_bind() {
	[ -n "${CF_PRIVATE_NS:-}" ] || fail "fuse_bind outside a private mount namespace"
	local d
	d=$(mktemp -d /tmp/casefold-fuse.XXXXXX) || fail "mktemp"
	at_exit "umount -l /dev/fuse 2>/dev/null; umount -l '$d' 2>/dev/null; rmdir '$d'"
	mount -t tmpfs -o size=16k,mode=0755 casefold-fuse "$d" &&
		mknod -m "$1" "$d/fuse" c $((16#$(stat -L -c %t /dev/fuse))) $((16#$(stat -L -c %T /dev/fuse))) &&
		mount --bind "$d/fuse" /dev/fuse ||
		fail "cannot bind a /dev/fuse of mode $1 in the test's namespace"
}

# fuse_for_users ARGS: makes /dev/fuse usable by every user for this test
# only (the suites that mount as another user call it, as root): the test
# re-runs in a private mount namespace where a mode 0666 /dev/fuse is bound
# over the host's (fuse_bind), which keeps its mode.  Where there is no
# unshare, the mode is changed and put back at exit.  As an ordinary user
# it skips unless /dev/fuse is usable already.  Root binds a node of the
# test's own even where the host's is usable now: the host's mode is
# anyone's to change while the test runs (bench/prelude.sh makes it 0666 and
# puts 0600 back), and a test that trusted it lost its /dev/fuse midway.
CF_FUSE_FOR_USERS=
fuse_for_users() {
	cf_may_mount
	[ -z "$CF_FUSE_FOR_USERS" ] || return 0
	if [ "$(id -u)" != 0 ]; then
		fuse_usable_by_all && return 0
		skip "/dev/fuse (mode $(fuse_mode)) is not usable by users, and only root can change that"
	fi
	CF_FUSE_FOR_USERS=1
	if command -v unshare >/dev/null; then
		cf_private_ns "$@"
		fuse_bind 0666
	elif ! fuse_usable_by_all; then
		at_exit "chmod $(fuse_mode) /dev/fuse"
		chmod 0666 /dev/fuse || fail "cannot make /dev/fuse usable by users"
	fi
	fuse_usable_by_all || fail "/dev/fuse is still mode $(fuse_mode)"
}

# reachable_copy FILE...: sets CF_REACHABLE to a directory that uid 65534
# can enter holding copies of FILE... (a temporary directory, removed at
# exit), or to nothing when every FILE can be run by that uid where it is.
# A checkout in a directory other users cannot enter (root's home, 0700)
# still tests what runs as another user.
CF_REACHABLE=
reachable_copy() {
	local f need=
	CF_REACHABLE=
	for f in "$@"; do
		as_nobody test -r "$f" -a -x "$f" 2>/dev/null || need=1
	done
	[ -n "$need" ] || return 0
	CF_REACHABLE=$(mktemp -d /tmp/casefold-bin.XXXXXX) || fail "mktemp"
	at_exit "rm -rf '$CF_REACHABLE'"
	chmod 755 "$CF_REACHABLE"
	cp -pr "$@" "$CF_REACHABLE/" || fail "cannot copy $* to $CF_REACHABLE"
}

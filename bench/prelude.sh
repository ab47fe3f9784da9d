# Sourced by the benchmark sections that mount (fs, cache, scale, overlay,
# floor, transport, wine), from the top of the tree: what each checks and
# builds before measuring, and how each mounts and unmounts.
#   die MESSAGE                   the section's name, the message, exit 1
#   prelude WHY TOOL...           root (needed for WHY), /dev/fuse, and
#                                 fusermount3, chattr and TOOL on the PATH
#   prelude_build O DAEMON [TARGET...]
#                                 builds the library, fsbench and TARGETs in
#                                 O; F is fsbench, CFS is DAEMON if given (an
#                                 older build, for before/after), else O's
#                                 casefoldfs, built
#   prelude_user DIR              for a daemon and clients run as uid 65534
#                                 (as_user): /dev/fuse opened up where it is
#                                 0600 (FUSE_MODE: the mode to put back at
#                                 the end), and UCFS and UF: CFS and F where
#                                 that user can run them (copies in DIR/bin
#                                 when the checkout is not traversable)
#   mounted DIR                   a FUSE filesystem is mounted on DIR
#   wait_mount DIR PID [TICKS [TICK]]
#                                 waits until the daemon PID (our child, in
#                                 the foreground) has mounted on DIR: polls
#                                 every TICK seconds (0.05), dies when PID
#                                 exits first (the end of $T/daemon.log
#                                 shown) or after TICKS polls (400)
#   unmount_all DIR...            cleanup's: unmounts what is still mounted
#                                 on each DIR, lazily if it must
#   rotate N WORDS...             the words rotated left by N, so that no
#                                 peer always goes first
#   MEDIAN_AWK                    the awk function med(a, n), the median of
#                                 a[1..n], for the tables' programs to begin
#                                 with
#   ROUNDS_AWK                    after MEDIAN_AWK, for a program that keeps
#                                 each round's figures in val[ROUND, PEER,
#                                 MEASURE] and the last round in maxr: the
#                                 awk functions cell(p, m), the median over
#                                 rounds of p's measure m, and ratio(p, m,
#                                 q, m2), the median over rounds of p's m
#                                 over q's m2 in the same round ("" where no
#                                 round has them)

die() { echo "${0##*/}: $*" >&2; exit 1; }

prelude() {
	[ "$(id -u)" = 0 ] || die "needs root ($1)"
	shift
	[ -c /dev/fuse ] || die "no /dev/fuse"
	for c in fusermount3 chattr "$@"; do
		command -v "$c" >/dev/null || die "no $c (scripts/install-deps)"
	done
}

prelude_build() {
	_o=$1 _daemon=$2
	shift 2
	make -s O="$_o" lib || die "build failed"
	make -s -f bench/Makefile O="$_o" "$_o/bench/fsbench" "$@" || die "build failed"
	F=$_o/bench/fsbench
	if [ -n "$_daemon" ]; then
		CFS=$_daemon
	else
		make -s O="$_o" "$_o/casefoldfs" || die "build failed"
		CFS=$_o/casefoldfs
	fi
}

as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }

prelude_user() {
	FUSE_MODE=
	if ! as_user sh -c '[ -r /dev/fuse ] && [ -w /dev/fuse ]'; then
		FUSE_MODE=$(stat -c %a /dev/fuse)
		chmod 0666 /dev/fuse
	fi
	mkdir -p "$1/bin" || die "$1/bin"
	UCFS=$CFS UF=$F
	if ! as_user test -x "$CFS"; then cp "$CFS" "$1/bin/casefoldfs" && UCFS=$1/bin/casefoldfs; fi
	if ! as_user test -x "$F"; then cp "$F" "$1/bin/fsbench" && UF=$1/bin/fsbench; fi
}

mounted() { grep -qs " $1 fuse" /proc/mounts; }

wait_mount() {
	_i=0
	while ! mounted "$1"; do
		kill -0 "$2" 2>/dev/null || { tail -n 20 "$T/daemon.log" >&2; die "nothing mounted on $1: the daemon exited"; }
		_i=$((_i + 1))
		[ "$_i" -lt "${3:-400}" ] || die "nothing mounted on $1 after ${3:-400} polls"
		sleep "${4:-0.05}"
	done
}

unmount_all() {
	for _m in "$@"; do
		if mounted "$_m"; then fusermount3 -u "$_m" 2>/dev/null || fusermount3 -uz "$_m" || :; fi
	done
}

rotate() {
	n=$(($1 % ($# - 1)))
	shift
	while [ "$n" -gt 0 ]; do
		set -- "$@" "$1"
		shift
		n=$((n - 1))
	done
	echo "$@"
}

MEDIAN_AWK='
function med(a, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
'

ROUNDS_AWK='
function cell(p, m,   v, n, r) {
	n = 0
	for (r = 1; r <= maxr; r++) if ((r, p, m) in val) v[++n] = val[r, p, m]
	return n ? med(v, n) : ""
}
function ratio(p, m, q, m2,   v, n, r) {
	n = 0
	for (r = 1; r <= maxr; r++)
		if ((r, p, m) in val && (r, q, m2) in val && val[r, q, m2] > 0)
			v[++n] = val[r, p, m] / val[r, q, m2]
	return n ? med(v, n) : ""
}
'

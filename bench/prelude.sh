# Sourced by the benchmark sections that mount (fs, cache, scale, overlay),
# from the top of the tree: what each checks and builds before measuring.
#   die MESSAGE                   the section's name, the message, exit 1
#   prelude WHY TOOL...           root (needed for WHY), /dev/fuse, and
#                                 fusermount3, chattr and TOOL on the PATH
#   prelude_build O DAEMON [TARGET...]
#                                 builds the library, fsbench and TARGETs in
#                                 O; F is fsbench, CFS is DAEMON if given (an
#                                 older build, for before/after), else O's
#                                 casefoldfs, built

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

#!/usr/bin/env bash
# FS_IOC_FSGETXATTR (issue 21, part 2b): Linux 7.2 tells NFS and SMB clients
# that a directory is case-insensitive from FS_XFLAG_CASEFOLD (0x00040000)
# in the filesystem's answer, which FUSE asks the daemon for.  The daemon's
# answer is checked directly, in its replies on /dev/fuse (strace: kernels
# before 7.2 drop xflags they do not know on the way to the caller): a +F
# directory has the bit, nothing else does, the other fields are the
# backing object's; through the kernel, no answer is an error (nfsd fails a
# request on one); FS_IOC_FSSETXATTR (chattr -p) hands the bit back
# without harm.
. "$(dirname "$0")/../lib/fs.sh"

command -v strace >/dev/null || skip "no strace"
"${CC:-cc}" -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -O2 -o "$T/ioctlflags" \
	"$CF_ROOT/tests/lib/ioctlflags.c" || fail "cannot build the ioctl helper"
fsx() { "$T/ioctlflags" fsxattr "$1"; }
CASEFOLD=$((0x00040000))

# The daemon's replies' payloads, in $T/strace: strace attaches to the
# daemon once it has mounted (an ordinary user's daemon mounts through
# set-uid fusermount3, which cannot run traced) and lets go before the
# unmount (LeakSanitizer cannot run under ptrace).
STRACE_PID=
trace_daemon() {
	strace -f -qq -o "$T/strace" -e trace=writev -x -s 64 -p "$CFS_PID" 2>"$T/strace.err" &
	STRACE_PID=$!
	at_exit '[ -z "$STRACE_PID" ] || kill "$STRACE_PID" 2>/dev/null'
	for _ in $(seq 200); do
		! grep -q '^TracerPid:[[:space:]]*0$' /proc/"$CFS_PID"/task/*/status 2>/dev/null && return 0
		kill -0 "$STRACE_PID" 2>/dev/null || break
		sleep 0.05
	done
	fail "strace could not attach to the daemon: $(cat "$T/strace.err")"
}
untrace_daemon() {
	kill "$STRACE_PID" && wait "$STRACE_PID"
	STRACE_PID=
}

# replies: the xflags word of every FSGETXATTR reply (a 28-byte payload),
# then its other 24 bytes, one reply a line, in order.
replies() {
	sed -n 's/.*{iov_base="\([^"]*\)", iov_len=28}.*/\1/p' "$T/strace" |
	while read -r x; do
		x=${x//\\x/}
		printf '%d %s\n' "0x${x:6:2}${x:4:2}${x:2:2}${x:0:2}" "${x:8}"
	done
}

cfs_mount
trace_daemon
cd "$M" || fail "cd"
mkdir ci cs
chattr +F ci || fail "chattr +F"    # chattr asks FSGETXATTR once
mkdir ci/sub ci/inherited
chattr -F ci/sub || fail "-F on an empty subdirectory"
echo x > ci/file
before=$(replies | wc -l)
paths=(ci ci/inherited . cs ci/sub ci/file)
for p in "${paths[@]}"; do
	out=$(fsx "$p") || fail "FS_IOC_FSGETXATTR on $p: $out"
	# Through the kernel: the bit if the kernel passes it, the rest as the backing has it.
	[ "$(fsx "$B/$p" | sed 's/^xflags [^ ]*//')" = "$(sed 's/^xflags [^ ]*//' <<<"$out")" ] ||
		fail "$p: $out, backing $(fsx "$B/$p")"
done
# chattr -p reads, changes the project id and writes back, bit included.
if chattr -p 7 ci 2>"$T/chattr.err"; then
	lsattr -d ci | grep -q '^[^ ]*F' || fail "chattr -p lost F"
	(( $(fsx "$B/ci" | awk '{print $2}') & CASEFOLD )) && fail "the backing directory got the bit"
else
	echo "chattr -p: $(cat "$T/chattr.err") (the backing filesystem has no project ids)"
fi
cd /
untrace_daemon
cfs_umount

mapfile -t got < <(replies | tail -n +"$((before + 1))")
[ "${#got[@]}" -ge "${#paths[@]}" ] || fail "${#got[@]} replies for ${#paths[@]} calls"
for i in "${!paths[@]}"; do
	p=${paths[$i]} x=${got[$i]%% *}
	case $p in
	ci|ci/inherited) (( x & CASEFOLD )) || fail "$p: the daemon answered xflags $x" ;;
	*) (( x & CASEFOLD )) && fail "$p: the daemon answered xflags $x" ;;
	esac
	# The other fields: the backing object's (zeros on ext4 without project ids).
	want=$(fsx "$B/$p" | awk '{print $2}')
	(( (x & ~CASEFOLD) == (want & ~CASEFOLD) )) || fail "$p: xflags $x, backing $want"
	printf '%-14s daemon xflags %#x\n' "$p" "$x"
done
echo "fsxattr: ok"

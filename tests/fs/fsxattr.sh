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
. "$(dirname "$0")/lib.sh"

command -v strace >/dev/null || skip "no strace"
"${CC:-cc}" -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -O2 -o "$T/ioctlflags" \
	"$CF_ROOT/tests/fs/ioctlflags.c" || fail "cannot build the ioctl helper"
fsx() { "$T/ioctlflags" fsxattr "$1"; }
CASEFOLD=$((0x00040000))

# The daemon under strace, its replies' payloads in $T/strace (LeakSanitizer
# cannot run under ptrace; AddressSanitizer and UBSan still do).
cat >"$T/traced" <<W
#!/bin/sh
ASAN_OPTIONS=\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}detect_leaks=0 exec strace -f -qq -o "$T/strace" \
	-e trace=writev -x -s 64 "$CFS" "\$@"
W
chmod +x "$T/traced"
CFS=$T/traced

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

#!/usr/bin/env bash
# Set-user-ID and set-group-ID bits after a write, a truncation, an open
# with O_TRUNC and an fallocate through the mount, by root and by uid 65534,
# against the same steps in a directory of the backing filesystem itself
# (ext4's rule: cleared for a caller without CAP_FSETID, the set-group-ID
# bit only on a group-executable file).  The daemon takes the job from the
# kernel (FUSE_HANDLE_KILLPRIV_V2, fs/common/DESIGN.md "Set-ID bits"), so the kernel
# no longer asks for security.capability before every write: counted in
# the daemon's request log, one GETXATTR for eight writes (the first's).
# And a file's capabilities (security.capability) go at a write.  Run on root's
# daemon with passthrough (where the kernel has it) and without.
CF_NEEDS_ROOT="writes by uid 65534 through root's daemon (allow_other)"
. "$(dirname "$0")/../lib/fs.sh"
command -v fallocate >/dev/null || skip "no fallocate (util-linux)"
chmod 755 "$T"

# steps DIR: one line per mode, step and caller: the mode after the step.
steps() {
	local dir=$1 mode step who f
	for mode in 4777 2777 2767 6777; do
		for step in write truncate otrunc fallocate; do
			for who in root nobody; do
				f=$dir/$mode-$step-$who
				printf 'data\n' >"$f" && chmod "$mode" "$f" || fail "setup of $f"
				local run=()
				[ "$who" = root ] || run=(setpriv --reuid=65534 --regid=65534 --clear-groups)
				case $step in
				write) "${run[@]}" sh -c 'printf more >>"$1"' sh "$f" ;;
				truncate) "${run[@]}" truncate -s 2 "$f" ;;
				otrunc) "${run[@]}" sh -c ': >"$1"' sh "$f" ;;
				fallocate) "${run[@]}" fallocate -l 8192 "$f" ;;
				esac || fail "$step of $f as $who"
				echo "$mode $step $who $(stat -c %a "$f")"
			done
		done
	done
}

# What ext4 itself does, in a directory beside the backing tree's.
N=$T/native
mkdir -m 755 "$N"
steps "$N" >"$T/native.txt"
# The test checks something: ext4 clears the bits for uid 65534's write.
grep -qx '4777 write nobody 777' "$T/native.txt" ||
	fail "ext4 itself: $(grep '4777 write nobody' "$T/native.txt")"

# run LABEL OPTIONS...: the same steps through a fresh mount.
run() {
	local label=$1
	shift
	cfs_mount -o allow_other "$@"
	mkdir -m 755 "$M/$label" || fail "mkdir"
	steps "$M/$label" >"$T/$label.txt"
	passthrough=$(getfattr --only-values -n "${CFS_XATTRS}stats" "$M" 2>/dev/null |
		tr ' ' '\n' | awk 'p { print; exit } $0 == "passthrough" { p = 1 }')
	cfs_umount
}

run daemon -o nopassthrough
diff "$T/native.txt" "$T/daemon.txt" >&2 || fail "-o nopassthrough: modes differ from ext4's (< ext4, > mount)"

run passthrough
diff "$T/native.txt" "$T/passthrough.txt" >&2 ||
	fail "passthrough $passthrough: modes differ from ext4's (< ext4, > mount)"

# security.capability goes at a write, whoever writes, as on ext4.
command -v setcap >/dev/null || fail "no setcap (libcap2-bin: scripts/install-deps --tests)"
caps_after_write() { # FILE: what getcap shows after root appends to it
	printf 'data\n' >"$1" && setcap cap_net_raw+ep "$1" || fail "setcap $1"
	[ -n "$(getcap "$1")" ] || fail "setcap $1 left no capability"
	printf 'more' >>"$1"
	getcap "$1"
}
[ -z "$(caps_after_write "$N/caps")" ] || fail "ext4 itself kept security.capability at a write"
cfs_mount
got=$(caps_after_write "$M/caps")
cfs_umount
[ -z "$got" ] || fail "security.capability kept after a write through the mount: $got"

# No GETXATTR before writes: eight writes through one open file.
cfs_mount -d -o nopassthrough
printf 'data\n' >"$M/f"
before=$(stat -c %s "$T/daemon.log")
perl -e 'open(my $f, ">>", $ARGV[0]) or die; for (1 .. 8) { syswrite($f, "x") or die }' "$M/f" ||
	fail "eight writes"
writes=$(tail -c +$((before + 1)) "$T/daemon.log" | grep -ac 'opcode: WRITE')
getx=$(tail -c +$((before + 1)) "$T/daemon.log" | grep -ac 'opcode: GETXATTR')
[ "$writes" = 8 ] || fail "eight writes made $writes WRITE requests"
# One, before the first: the kernel marks the inode as having none to clear.
[ "$getx" -le 1 ] || fail "eight writes made $getx GETXATTR requests (security.capability)"
cfs_umount
echo "ok: set-ID bits as ext4 clears them ($(wc -l <"$T/native.txt") steps, passthrough $passthrough); $getx GETXATTR for 8 writes"

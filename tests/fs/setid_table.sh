#!/usr/bin/env bash
# Set-user-ID and set-group-ID bits as ext4 decides them (issue 39): a table
# of every mode (6777 4777 2777 2767 6767, and 4755 2755, which only their
# owner may write), every operation (write, append, truncate, ftruncate,
# O_TRUNC, fallocate, punch, mmap, copy_file_range, splice, chown(-1,-1),
# chgrp, chown, chmod), every actor (root; the owner, a member of the
# file's group and another user, each with and without CAP_FSETID) and the
# bits set before the kernel sees the file or behind an open file's back,
# run by tests/fs/setid_table.c on a real ext4 directory, the oracle, and
# through each mount:
#   root      root's daemon, passthrough (where the kernel has it)
#   nopt      root's daemon, -o nopassthrough
#   user      uid 65534's daemon (allow_other), which owns the owner's files
#   userown   uid 65534's daemon, used by 65534 alone, in files of its own
#             ("owner") and root's (the roles "member" and "other")
#   view      root's overlay view, the files in its upper layer
# Every line must equal ext4's, but for those listed in errs_on_clearing
# below: where a daemon cannot do what ext4 does, it clears a bit ext4
# keeps (README, "Set-user-ID and set-group-ID bits"), never the reverse.
CF_NEEDS_ROOT="acts as several users and grants CAP_FSETID"
CF_USERS_MOUNT=1
. "$(dirname "$0")/../lib/fs.sh"
command -v setpriv >/dev/null || skip "no setpriv"
[ -f /etc/fuse.conf ] || skip "no /etc/fuse.conf to bind over"
# A user's allow_other: user_allow_other in a private fuse.conf, bound over
# the host's in this test's mount namespace (fuse_for_users made it ours).
echo user_allow_other >"$T/fuse.conf" && mount --bind "$T/fuse.conf" /etc/fuse.conf ||
	fail "cannot bind a private fuse.conf"
at_exit "umount -l /etc/fuse.conf 2>/dev/null"
chmod 755 "$T"
cf_cc -O1 -o "$T/table" "$CF_ROOT/tests/fs/setid_table.c" || fail "cannot build the driver"

# The oracle is ext4 itself; where $T is on something else (tmpfs), both it
# and the backing trees go on a loop-mounted ext4 image.
E=$T/ext4
mkdir -m 755 "$E"
if [ "$(stat -f -c %T "$T")" != ext2/ext3 ]; then
	command -v mkfs.ext4 >/dev/null || skip "$T is not on ext4, and there is no mkfs.ext4"
	truncate -s 64M "$T/ext4.img" && mkfs.ext4 -q "$T/ext4.img" &&
		mount -o loop "$T/ext4.img" "$E" || fail "cannot mount an ext4 image"
	at_exit "umount '$E' 2>/dev/null || umount -l '$E'"
	chmod 755 "$E"
fi
mkdir -m 755 "$E/oracle" "$E/lower" "$E/upper" "$E/work"
if mountpoint -q "$E"; then
	mkdir -m 755 "$E/back" && mount --bind "$E/back" "$B" || fail "cannot bind $B to the image"
	at_exit "umount -l '$B' 2>/dev/null"
fi
mkdir -m 755 "$E/oracle/u"
timeout 120 "$T/table" "$E/oracle" "$E/oracle" >"$T/ext4.txt" || fail "the driver on ext4"
timeout 120 "$T/table" -u "$E/oracle/u" "$E/oracle/u" >"$T/ext4u.txt" || fail "the driver on ext4 (-u)"
# The oracle says what this test is about: ext4 keeps a 4755 file's bit at
# chown(-1,-1) by another user (EPERM), clears it at a write by the owner,
# keeps 2767's set-group-ID at root's chgrp.
for want in '4755 chown-1 other mount EPERM 4755' '4777 write owner mount OK 777' \
	'2767 chgrp root mount OK 2767'; do
	grep -qx "$want" "$T/ext4.txt" || fail "ext4 itself differs from what the test expects: $want"
done

# expected CONFIG ORACLE: ext4's table (ORACLE), but for the lines where
# CONFIG's daemon cannot do what ext4 does, listed here by rule: each
# clears a set-ID bit ext4 keeps (the mode has fewer bits, nothing else),
# or answers differently and leaves the bits as they were.
#   [P] Root's daemon with passthrough: a write to a file whose bits were
#       set behind an open file's back is the backing filesystem's to
#       judge, against the daemon's credentials without CAP_FSETID
#       (common/setid.c): every bit goes, even for a caller with CAP_FSETID
#       or a member of the group (2767).
#   [W] chown(f, -1, -1) by a caller other than the owner who may write the
#       file, while the file is open for writing: the kernel sends the same
#       empty SETATTR as before a write, which must not fail, so it clears
#       what that caller's write would clear, where ext4 refuses (EPERM) and
#       keeps them.  A user's daemon cannot change the mode of root's file:
#       it answers OK and the bits stay.
#   [A] The view has no fallocate (EOPNOTSUPP, nothing changes).
#   A user's daemon:
#   [C] has no CAP_CHOWN: root's chown is refused, the bits stay;
#   [F] cannot read a caller's capabilities (other than root's, which it
#       takes as granted): a caller with CAP_FSETID is judged as one
#       without — chown(f, -1, -1) of a 2767 file by a non-member is
#       refused where ext4 has nothing to clear, and its clearing leaves no
#       bit (the daemon's chmod cannot keep set-group-ID in a group it is
#       not in);
#   [U] has no CAP_FSETID of its own: every write, truncation, allocation,
#       mapped write or chgrp it makes leaves no set-ID bit, and a chmod no
#       set-group-ID bit of a group it is not in.
expected() {
	awk -v config="$1" -v pt="$passthrough" '
	function low(m) { return length(m) == 4 ? substr(m, 2) : m }
	function nosgid(m,  d) {
		if (length(m) < 4) return m
		d = substr(m, 1, 1) + 0
		if (d >= 6 || d == 2 || d == 3) d -= 2
		return d ? d substr(m, 2) : substr(m, 2)
	}
	function base(a) { sub(/\+fsetid$/, "", a); return a }
	{
		mode = $1; op = $2; actor = $3; where = $4; r = $5; m = $6
		if (op == "write") wrote[mode " " actor " " where] = m
		data = op ~ /^(write|append|truncate|ftruncate|otrunc|fallocate|punch|mmap|copy_file_range|splice)$/
		user = config ~ /^user/
		# The daemon sees the caller'"'"'s CAP_FSETID.
		seen = actor ~ /fsetid$/ && !user || actor == "root"
		# The actor holds the file open for writing, and may write it.
		writes = where == "behind" && actor !~ /^owner/ && mode !~ /55$/
		# What the daemon clears at chown(f, -1, -1), as it judges the caller.
		if (op == "chown-1" && user && actor != "root")
			cleared = wrote[mode " " base(actor) " " where] != mode
		else if (op == "chown-1")
			cleared = m != mode
		if (config == "root" && pt == "on" && where == "behind" && r == "OK" &&
		    op ~ /^(write|append|splice|copy_file_range)$/)
			m = low(m)                                          # [P]
		else if (config == "view" && op ~ /^(fallocate|punch)$/ && r == "OK") {
			r = "EOPNOTSUPP"                                    # [A]
			m = mode
		} else if (op == "chown-1" && r == "EPERM" && writes && !seen) {
			r = "OK"                                            # [W]
			m = user ? mode : wrote[mode " " base(actor) " " where]
		} else if (!user)
			;
		else if (op == "chown" && actor == "root") {
			r = "EPERM"                                         # [C]
			m = mode
		} else if (op == "chown-1" && actor == "other+fsetid" && r == "OK" && !writes && cleared)
			r = "EPERM"                                         # [F]
		else if (r == "OK" && (data || (op == "chgrp" && actor != "root")))
			m = low(m)                                          # [U]
		else if (r == "OK" && op == "chmod")
			m = nosgid(m)                                       # [U]
		if (op == "chown-1" && user && r == "OK" && cleared && (config == "user" || actor ~ /^owner/))
			m = low(mode)                                       # [F]
		print mode, op, actor, where, r, m
	}' "$2"
}

# check CONFIG: the table through the mount against the expected one.
bad= cases=0
check() {
	local n oracle=$T/ext4.txt
	[ "$1" != userown ] || oracle=$T/ext4u.txt
	expected "$1" "$oracle" >"$T/$1.expected"
	cases=$((cases + $(wc -l <"$T/$1.txt")))
	if ! diff "$T/$1.expected" "$T/$1.txt" >"$T/$1.diff"; then
		n=$(grep -c '^>' "$T/$1.diff")
		echo "$1: $n of $(wc -l <"$T/$1.txt") cases differ (< expected, > mount):" >&2
		head -n 20 "$T/$1.diff" >&2
		bad="$bad $1"
	fi
}

# table CONFIG [-u] [-s] DIR BACKDIR: the driver through a mount.
table() {
	local config=$1
	shift
	timeout 300 "$T/table" "$@" >"$T/$config.txt" || fail "$config: the driver failed"
	check "$config"
	[ -z "${CF_SETID_KEEP:-}" ] || cp "$T/$config.txt" "$T/ext4.txt" "$T/ext4u.txt" "$CF_SETID_KEEP/"
}

# Root's daemon, with passthrough and without.
stats() { getfattr --only-values -n "${CFS_XATTRS}stats" "$M" 2>/dev/null; }
cfs_mount -o allow_other
passthrough=$(stats | tr ' ' '\n' | awk 'p { print; exit } $0 == "passthrough" { p = 1 }')
mkdir -m 755 "$M/d" || fail "mkdir"
table root "$M/d" "$B/d"
cfs_umount
cfs_mount -o allow_other -o nopassthrough
mkdir -m 755 "$M/e" || fail "mkdir"
table nopt "$M/e" "$B/e"
cfs_umount

# A user's daemon, on a tree of its own: the owner's files are its own.
UB=$E/userback
mkdir -m 755 "$UB" "$UB/u" "$UB/o" && chown -R 65534:65534 "$UB" "$M" || fail "mkdir"
CFS_AS=65534 cfs_start -o allow_other "$UB" "$M"
table user -s "$M/u" "$UB/u"
CFS_AS=65534 cfs_umount
CFS_AS=65534 cfs_start "$UB" "$M"
table userown -u -s "$M/o" "$UB/o"
CFS_AS=65534 cfs_umount
chown 0:0 "$M"

# Root's overlay view, the files in its upper layer.
L=$E/lower U=$E/upper W=$E/work
cfs_start -o "lowerdir=$L,upperdir=$U,workdir=$W,allow_other" "$M"
mkdir -m 755 "$M/v" || fail "mkdir"
table view -c "$M/v" "$U/v"
cfs_umount

[ -z "$bad" ] || fail "set-ID bits differ from ext4's in:$bad"
echo "ok: $cases cases, each as ext4 decides, through root's daemon (passthrough $passthrough), -o nopassthrough, a user's daemon (two ways) and root's view"

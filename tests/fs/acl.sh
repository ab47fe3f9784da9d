#!/usr/bin/env bash
# POSIX ACLs through the mount (issue 16, finding 3), as uid 65534 under
# allow_other: an ACL entry that denies what the mode bits allow, one that
# grants what they deny, and a default ACL inherited by new entries with
# the mode ext4 gives them — the umask does not apply under a default ACL.
# The judge for inheritance is the backing ext4 itself: the same creation
# made directly in the backing tree.  Also: a write by 65534 to root's
# world-writable set-user-ID file clears the bit, as on Linux.
CF_NEEDS_ROOT="root's daemon shared with uid 65534 (allow_other)"
. "$(dirname "$0")/../lib/fs.sh"
command -v setpriv >/dev/null || skip "no setpriv"
command -v setfacl >/dev/null && command -v getfacl >/dev/null || skip "no setfacl/getfacl (package acl)"

acl_of() { getfacl -cp "$1" 2>/dev/null; }
chmod 755 "$T"
setfacl -m u:65534:r "$B" 2>/dev/null && setfacl -b "$B" || skip "the backing filesystem has no ACLs"
cfs_mount -o allow_other
cd "$M" || fail "cd"
casefolded ci
mkdir plain
chmod 755 ci plain

for d in ci plain; do
	# An entry that denies: the mode says everyone may read.
	echo open > $d/Denied && chmod 644 $d/Denied
	setfacl -m u:65534:- $d/Denied || fail "setfacl through the mount"
	as_nobody cat $d/DENIED >/dev/null 2>&1 && [ $d = ci ] && fail "$d: read despite an ACL denying it"
	as_nobody cat $d/Denied >/dev/null 2>&1 && fail "$d: read despite an ACL denying it"
	cat $d/Denied >/dev/null || fail "$d: control: root reads"
	# An entry that grants: the mode says only root may read.
	echo secret > $d/Granted && chmod 600 $d/Granted
	setfacl -m u:65534:r $d/Granted
	as_nobody cat $d/Granted 2>/dev/null | grep -q secret || fail "$d: not read despite an ACL granting it"
	as_nobody sh -c "echo x >> $d/Granted" 2>/dev/null && fail "$d: written with a read-only grant"
	[ "$(acl_of $d/Granted)" = "$(acl_of "$B/$d/Granted")" ] || fail "$d: getfacl differs from the backing tree"

	# A default ACL: 65534 may create; new entries inherit it, umask aside.
	mkdir $d/Shared && chmod 755 $d/Shared
	setfacl -m u:65534:rwx $d/Shared
	setfacl -d -m u:65534:rwx,g::rw,o::r $d/Shared || fail "$d: setfacl -d"
	as_nobody sh -c "umask 077 && echo mine > $d/Shared/New && mkdir $d/Shared/Sub" ||
		fail "$d: 65534 cannot create where a default ACL grants it"
	# The same, made directly in the backing tree: what ext4 does.
	as_nobody sh -c "umask 077 && echo mine > '$B/$d/Shared/Ref' && mkdir '$B/$d/Shared/RefSub'"
	[ "$(acl_of "$B/$d/Shared/New")" = "$(acl_of "$B/$d/Shared/Ref")" ] ||
		fail "$d: new file's ACL: $(acl_of "$B/$d/Shared/New" | tr '\n' ' '), ext4: $(acl_of "$B/$d/Shared/Ref" | tr '\n' ' ')"
	[ "$(acl_of "$B/$d/Shared/Sub")" = "$(acl_of "$B/$d/Shared/RefSub")" ] ||
		fail "$d: new directory's ACL: $(acl_of "$B/$d/Shared/Sub" | tr '\n' ' '), ext4: $(acl_of "$B/$d/Shared/RefSub" | tr '\n' ' ')"
	[ "$(stat -c '%u %a' "$B/$d/Shared/New")" = "$(stat -c '%u %a' "$B/$d/Shared/Ref")" ] ||
		fail "$d: new file's owner and mode differ from ext4's"
	[ "$(acl_of $d/Shared/New)" = "$(acl_of "$B/$d/Shared/New")" ] || fail "$d: getfacl of the new file"
	# Without a default ACL the umask still applies.
	mkdir $d/Umask && chmod 777 $d/Umask
	as_nobody sh -c "umask 027 && : > $d/Umask/f && mkdir $d/Umask/s"
	[ "$(stat -c %a "$B/$d/Umask/f") $(stat -c %a "$B/$d/Umask/s")" = "640 750" ] ||
		fail "$d: umask 027 gave $(stat -c %a "$B/$d/Umask/f") and $(stat -c %a "$B/$d/Umask/s")"
	# Removing the grant takes effect.
	setfacl -x u:65534 $d/Granted
	as_nobody cat $d/Granted >/dev/null 2>&1 && fail "$d: read after the grant was removed"
done

# A write by someone without CAP_FSETID clears set-user-ID, as on Linux.
: > suid && chmod 4777 suid
as_nobody sh -c 'echo x >> suid' || fail "write to a 4777 file"
[ "$(stat -c %a "$B/suid")" = 777 ] || fail "set-user-ID kept after 65534 wrote: $(stat -c %a "$B/suid")"
cd /
cfs_umount
echo "acl: ok"

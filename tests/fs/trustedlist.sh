#!/usr/bin/env bash
# trusted.* xattr names are listed only to callers with CAP_SYS_ADMIN, as
# ext4 lists them (issue 34, finding 6): another user's listxattr through a
# shared mount shows the file's user.* names and none of its trusted.* ones.
# Against root's daemon (attacked by uid 65534), then a user's daemon
# (uid 65534, allow_other; attacked by uid 4242), which never sees trusted.*
# names itself.
set -u
CF_NEEDS_ROOT="root sets trusted.* names, and other users (setpriv to uids 65534 and 4242) list them"
. "$(dirname "$0")/../lib/attack.sh"

chmod 755 "$T"
victim_mount
echo data > "$B/f" && chmod 644 "$B/f"
setfattr -n trusted.secret -v 1 "$B/f" && setfattr -n user.plain -v 1 "$B/f" ||
	fail "setfattr in the backing tree"
[ "$mode" = user ] || chown 65534 "$B/f"  # root's daemon: the attacker's file
# listed [PREFIX...]: the names listxattr gives through the mount, one a line.
listed() { "$@" "$PY" -c 'import os, sys; print("\n".join(os.listxattr(sys.argv[1])))' "$M/f" 2>&1; }
seen=$(listed attacker)
echo "$mode's daemon, uid $attacker_id lists: $(echo "$seen" | tr '\n' ' ')"
echo "$seen" | grep -qx 'user.plain' || fail "user.plain not listed to uid $attacker_id: $seen"
echo "$seen" | grep -q '^trusted\.' && fail "trusted.* listed to uid $attacker_id: $seen"
if [ "$mode" = root ]; then
	listed | grep -qx 'trusted.secret' || fail "trusted.secret not listed to root: $(listed)"
fi
victim_done

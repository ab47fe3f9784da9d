#!/usr/bin/env bash
# No user can exhaust the daemon's descriptors without holding files open
# (issue 34, finding 1).  A removal through the mount of a name whose
# object the kernel still knows keeps a descriptor of it (the name no
# longer reaches it); an attacker repeating "create f, link f g, stat,
# unlink f" made the daemon hold one per round until it ran out (EMFILE
# for everyone at RLIMIT_NOFILE).  Now an object still reached by its
# handle or another link holds none, and held descriptors share a bound
# (fd_cache), the oldest giving way.  Here the daemon runs at
# RLIMIT_NOFILE 256: 600 rounds of each variant (stat through the kept link
# or through the removed one), then the daemon's descriptors must be
# within its bound and another user's creates and opens must all work.
# Root's daemon with -o opens=kernel (every removal holds), then a user's
# daemon (path locators, -o fd_cache=16: 16 held at most), each attacked
# by another user.
set -u
CF_NEEDS_ROOT="root's daemon and uid 65534's, each attacked by another user (setpriv to uids 65534 and 4242)"
. "$(dirname "$0")/../lib/attack.sh"
rounds=600

chmod 755 "$T"
mkdir "$B/shared" "$B/victim" && chmod 777 "$B/shared"
if [ "$mode" = user ]; then
	chown 65534:65534 "$B" "$M" "$B/shared" "$B/victim"
	CFS_AS=65534 cfs_mount -o allow_other,fd_cache=16
else
	cfs_mount -o allow_other,opens=kernel
fi
attacker "$PY" - "$M/shared" $rounds > "$T/attack.out" 2>&1 <<'PY'
import os, sys
os.umask(0)
d, n = sys.argv[1], int(sys.argv[2])
for via in ("kept", "removed"):
    for i in range(n):
        f, g = "%s/f%s%d" % (d, via, i), "%s/g%s%d" % (d, via, i)
        try:
            open(f, "w").close()
            os.link(f, g)
            os.stat(g if via == "kept" else f)
            os.unlink(f)
        except OSError as e:
            print("round %d (%s): %s" % (i, via, e))
            sys.exit(1)
print("done")
PY
grep -qx done "$T/attack.out" || fail "the attacker's own rounds failed: $(cat "$T/attack.out")"
prefix=$([ "$mode" = user ] && echo user.casefoldfs. || echo "$CFS_XATTRS")
stats=$(getfattr --absolute-names --only-values -n "${prefix}stats" "$M" 2>/dev/null)
fds=$(ls "/proc/$CFS_PID/fd" | wc -l)
held=$(echo "$stats" | sed -n 's/.* held \([0-9]*\) .*/\1/p')
limit=$(echo "$stats" | sed -n 's/.* held_limit \([0-9]*\) .*/\1/p')
echo "$mode's daemon after $((2 * rounds)) rounds: $fds descriptors (RLIMIT_NOFILE 256), held $held of ${limit:-?}"
[ -n "$limit" ] && [ "$held" -le "$limit" ] || fail "held descriptors beyond their bound: $stats"
[ "$fds" -lt 240 ] || fail "$fds descriptors: the daemon is near its limit"
# Another user: 50 new files, each opened and read back.
for i in $(seq 50); do
	echo "v$i" > "$M/victim/v$i" 2>>"$T/victim.err" && [ "$(cat "$M/victim/v$i")" = "v$i" ] ||
		fail "another user's file $i: $(cat "$T/victim.err")"
done
# The links kept by either variant still resolve.
[ -e "$M/shared/gkept0" ] && [ -e "$M/shared/gremoved$((rounds - 1))" ] || fail "a kept link is gone"
victim_done

# The stage of the availability attacks (stall.sh, nested.sh and the view's
# tests/view/stall.sh; sourced, not run, before anything else).
# CF_AVAIL_MODE=root (the default): root's daemon, attacked by uid 65534.
# CF_AVAIL_MODE=user: uid 65534's own daemon with allow_other
# (user_allow_other in a private /etc/fuse.conf, bound over the host's in a
# private mount namespace, as userperms.sh does), attacked by uid 4242.
# Sets mode, attacker (a command prefix) and attacker_id; defines p99 (the
# victim's latency; $PY is set by the caller).  Every stage runs other users
# (setpriv): the test says in CF_NEEDS_ROOT what for.
if [ "${CF_AVAIL_MODE:-root}" = user ] && [ -z "${CF_AVAIL_NS:-}" ]; then
	. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
	[ "$(id -u)" = 0 ] || skip "needs root: $CF_NEEDS_ROOT"
	command -v unshare >/dev/null || skip "no unshare"
	CF_AVAIL_NS=1 CF_PRIVATE_NS=1 exec unshare -m --propagation private "$0" "$@"
fi
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v setpriv >/dev/null || skip "no setpriv"
mode=${CF_AVAIL_MODE:-root}
attacker() { as_nobody "$@"; }
attacker_id=65534
if [ "$mode" = user ]; then
	[ -f /etc/fuse.conf ] || skip "no /etc/fuse.conf to bind over"
	echo user_allow_other > "$T/fuse.conf" && mount --bind "$T/fuse.conf" /etc/fuse.conf ||
		skip "cannot bind a private fuse.conf"
	fuse_for_users
	attacker() { setpriv --reuid=4242 --regid=4242 --clear-groups "$@"; }
	attacker_id=4242
fi

# p99 FIRST LAST: the victim's stat latency over $M/pub/vFIRST..vLAST, in
# microseconds: the 99th percentile and the worst.
p99() {
	"$PY" - "$M/pub" "$1" "$2" <<'PY'
import os, sys, time
d, a, b = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
t = []
for i in range(a, b + 1):
    s = time.monotonic()
    os.lstat("%s/v%d" % (d, i))
    t.append(time.monotonic() - s)
t.sort()
print(int(t[int(len(t) * 0.99) - 1] * 1e6), int(t[-1] * 1e6))
PY
}

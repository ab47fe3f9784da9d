# The stage of the availability attacks (tests/fs/stall.sh, nested.sh and
# the others that stage two users, and the view's tests/view/stall.sh;
# sourced, not run, before anything else).
# CF_AVAIL_MODE=root (the default): root's daemon, attacked by uid 65534.
# CF_AVAIL_MODE=user: uid 65534's own daemon with allow_other
# (user_allow_other in a private /etc/fuse.conf, bound over the host's in a
# private mount namespace, as userperms.sh does), attacked by uid 4242.
# Sets mode, attacker (a command prefix) and attacker_id; defines
# victim_mount and victim_done (the victim's daemon in either mode), p99
# (the victim's latency), hold_leases, hang_mounts and churn_attack (the
# attacks; churn_dir is the last one's stage), all run by $PY, the
# system's python3.
# Every stage runs other users (setpriv): the test says in CF_NEEDS_ROOT
# what for.
if [ "${CF_AVAIL_MODE:-root}" = user ] && [ -z "${CF_AVAIL_NS:-}" ]; then
	. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
	[ "$(id -u)" = 0 ] || skip "needs root: $CF_NEEDS_ROOT"
	command -v unshare >/dev/null || skip "no unshare"
	CF_AVAIL_NS=1 CF_PRIVATE_NS=1 exec unshare -m --propagation private "$0" "$@"
fi
. "$(dirname "${BASH_SOURCE[0]}")/fs.sh"
command -v setpriv >/dev/null || skip "no setpriv"
PY=/usr/bin/python3
[ -x "$PY" ] || skip "no $PY"
mode=${CF_AVAIL_MODE:-root}
# CF_ATTACK_CPU=N (uringstall.sh): the attacker and the victim's probes run
# on CPU N alone, so that under io_uring their requests share one queue
# (the kernel queues a request on its caller's CPU).
pin=()
if [ -n "${CF_ATTACK_CPU:-}" ]; then
	command -v taskset >/dev/null || skip "no taskset for CF_ATTACK_CPU"
	pin=(taskset -c "$CF_ATTACK_CPU")
fi
attacker() { as_nobody ${pin[@]+"${pin[@]}"} "$@"; }
attacker_id=65534
if [ "$mode" = user ]; then
	[ -f /etc/fuse.conf ] || skip "no /etc/fuse.conf to bind over"
	echo user_allow_other > "$T/fuse.conf" && mount --bind "$T/fuse.conf" /etc/fuse.conf ||
		skip "cannot bind a private fuse.conf"
	fuse_for_users
	attacker() { setpriv --reuid=4242 --regid=4242 --clear-groups ${pin[@]+"${pin[@]}"} "$@"; }
	attacker_id=4242
fi

# victim_mount [OPTIONS]: $B on $M with allow_other (and OPTIONS), by
# root's daemon, or in user mode by uid 65534's, which then owns $B and $M.
victim_mount() {
	if [ "$mode" = user ]; then
		chown 65534:65534 "$B" "$M"
		CFS_AS=65534 cfs_mount -o "allow_other${1:+,$1}"
	else
		cfs_mount -o "allow_other${1:+,$1}"
	fi
}
# victim_done: unmounts, checking the daemon's exit status; in root mode,
# then runs the whole test again in user mode.
victim_done() {
	CFS_AS=$([ "$mode" = user ] && echo 65534) cfs_umount
	[ "$mode" = user ] || CF_AVAIL_MODE=user "$0" || exit $?
}

# p99 FIRST LAST: the victim's stat latency over $M/pub/vFIRST..vLAST, in
# microseconds: the 99th percentile and the worst.
p99() {
	${pin[@]+"${pin[@]}"} "$PY" - "$M/pub" "$1" "$2" <<'PY'
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

# hold_leases DIR N: the attacker takes write leases on DIR/l1..lN,
# ignoring SIGIO, for 20 s at most (an open of one waits for a break that
# never comes); returns once they are held.  release_leases lets go.
hold_leases() {
	attacker "$PY" - "$1" "$2" >"$T/holder.out" 2>&1 <<'PY' &
import fcntl, os, signal, sys, time
signal.signal(signal.SIGIO, signal.SIG_IGN)
fds = [os.open("%s/l%d" % (sys.argv[1], i), os.O_RDONLY) for i in range(1, int(sys.argv[2]) + 1)]
for fd in fds:
    fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_WRLCK)
print("leased", os.getpid(), flush=True)
time.sleep(20)
PY
	holder=$!
	for _ in $(seq 100); do grep -q leased "$T/holder.out" && break; sleep 0.1; done
	grep -q leased "$T/holder.out" || { cat "$T/holder.out"; fail "no leases"; }
}
release_leases() {
	kill "$(sed -n 's/^leased //p' "$T/holder.out")" 2>/dev/null
	wait "$holder" 2>/dev/null
}

# hang_mounts DIR N: root stages the attacker's mounts (user_id, allow_other,
# as fusermount3 would make them where /etc/fuse.conf has user_allow_other)
# of a /dev/fuse nobody reads, not even INIT, on DIR/d1..dN/hang, for 25 s:
# then the connection closes and every waiter gets ENOTCONN.  Skips when it
# cannot.  end_hangs ends them; the EXIT cleanup unmounts what is left.
hang_mounts() {
	HANG_DIR=$1 HANG_N=$2
	at_exit unmount_hangs
	"$PY" - "$1" "$2" "$attacker_id" >"$T/hang.out" 2>&1 <<'PY' &
import os, subprocess, sys, time
fds = []
for i in range(1, int(sys.argv[2]) + 1):
    fd = os.open("/dev/fuse", os.O_RDWR)
    fds.append(fd)
    subprocess.run(["mount", "-i", "-t", "fuse.hang", "-o",
                    "fd=%d,rootmode=40000,user_id=%s,group_id=%s,allow_other" % (fd, sys.argv[3], sys.argv[3]),
                    "hang", "%s/d%d/hang" % (sys.argv[1], i)], pass_fds=[fd], check=True)
print("mounted", os.getpid(), flush=True)
time.sleep(25)
PY
	for _ in $(seq 100); do grep -q mounted "$T/hang.out" && break; sleep 0.1; done
	grep -q mounted "$T/hang.out" || { cat "$T/hang.out"; skip "cannot stage a FUSE mount"; }
}
unmount_hangs() {
	local i
	for i in $(seq "$HANG_N"); do umount -l "$HANG_DIR/d$i/hang" 2>/dev/null; done
}
end_hangs() {
	kill "$(sed -n 's/^mounted //p' "$T/hang.out")" 2>/dev/null
}

# churn_dir N: $B/atk, a +F directory of N names (name000000...) that the
# attacker owns, for churn_attack.
churn_dir() {
	local prefix
	mkdir "$B/atk" || fail "mkdir $B/atk"
	"$PY" -c '
import os, sys
for i in range(int(sys.argv[2])):
    open("%s/name%06d" % (sys.argv[1], i), "w").close()' "$B/atk" "$1"
	prefix=$([ "$mode" = user ] && echo user.casefoldfs. || echo "$CFS_XATTRS")
	setfattr -n "${prefix}casefold" -v 1 "$B/atk" || fail "cannot flag $B/atk"
	chown -R $attacker_id "$B/atk"
}

# churn_attack SECONDS STOP: the attacker, in the background (atk is its
# pid), churns names in $B/atk behind the daemon's back while six threads
# look up other spellings of them through $M/atk, for SECONDS or until the
# file STOP exists; "started" in $T/attack.out once under way.
churn_attack() {
	attacker "$PY" - "$B/atk" "$M/atk" "$2" "$1" >"$T/attack.out" 2>&1 <<'PY' &
import os, sys, threading, time
back, mnt, stop = sys.argv[1:4]
end = time.monotonic() + float(sys.argv[4])
done = threading.Event()
def churn():
    i = 0
    while not done.is_set():
        p = "%s/churn%d" % (back, i % 64)
        open(p, "w").close()
        os.unlink(p)
        i += 1
def lookups(k):
    i = k
    while not done.is_set():
        try:
            os.stat("%s/NAME%06d" % (mnt, i % 100000))
        except OSError:
            pass
        i += 7
ts = [threading.Thread(target=churn)] + [threading.Thread(target=lookups, args=(k,)) for k in range(6)]
for t in ts: t.start()
print("started", flush=True)
while not os.path.exists(stop) and time.monotonic() < end:
    time.sleep(0.1)
done.set()
for t in ts: t.join()
print("done", flush=True)
PY
	atk=$!
}

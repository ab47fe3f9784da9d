#!/usr/bin/env bash
# Inode flags that need a capability (issue 16, finding 1).  The daemon is
# root; an owner without CAP_LINUX_IMMUTABLE must not set or clear +i or +a,
# nor one without CAP_SYS_RESOURCE +j, through FS_IOC_SETFLAGS or
# FS_IOC_FSSETXATTR, even when the flags change between the kernel's
# GETFLAGS and its SETFLAGS: root sets +i in the backing tree while the
# owner keeps asking for the flags it last saw (bounded time); +i must
# never be cleared by the owner.  Root, and a process of uid 65534 given
# CAP_LINUX_IMMUTABLE, are the controls.
CF_NEEDS_ROOT="root's daemon, and an owner without CAP_LINUX_IMMUTABLE (uid 65534)"
. "$(dirname "$0")/../lib/fs.sh"
command -v setpriv >/dev/null || skip "no setpriv"
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3 (the users run it)"
secs=${CF_RACE_SECONDS:-4}

chmod 755 "$T"
cfs_mount -o allow_other
mkdir "$M/own" && chown 65534:65534 "$M/own"
as_nobody touch "$M/own/f" "$M/own/g" || fail "setup"
# What the test leaves immutable must not stop tests/lib/fs.sh's cleanup.
trap 'chattr -i -a "$B/own/f" "$B/own/g" 2>/dev/null; cleanup' EXIT
chattr +i "$B/own/g" 2>/dev/null || skip "the backing filesystem has no +i"

# ioctl.py OP PATH [FLAGS]: getflags | setflags | fsget | fsset (FLAGS in
# hex; fsset sets fsx_xflags), prints the flags or OK, or the errno name.
cat > "$T/ioctl.py" <<'PY'
import array, errno, fcntl, os, struct, sys
GET, SET, FSGET, FSSET = 0x80086601, 0x40086602, 0x801c581f, 0x401c5820
op, path = sys.argv[1], sys.argv[2]
fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
try:
    if op == "getflags":
        print("%x" % struct.unpack("I", fcntl.ioctl(fd, GET, bytes(4)))[0])
    elif op == "setflags":
        fcntl.ioctl(fd, SET, struct.pack("I", int(sys.argv[3], 16))); print("OK")
    else:
        fa = bytearray(fcntl.ioctl(fd, FSGET, bytes(28)))
        if op == "fsget":
            print("%x" % struct.unpack_from("I", fa)[0])
        else:
            struct.pack_into("I", fa, 0, int(sys.argv[3], 16))
            fcntl.ioctl(fd, FSSET, bytes(fa)); print("OK")
except OSError as e:
    print(errno.errorcode[e.errno])
PY
io() { /usr/bin/python3 "$T/ioctl.py" "$@"; }
nobody_io() { as_nobody /usr/bin/python3 "$T/ioctl.py" "$@"; }
lsflags() { lsattr -d "$1" | cut -d' ' -f1; }
I=10 A=20 J=4000 XI=8 XA=10   # FS_*_FL and FS_XFLAG_* in hex

base=$(io getflags "$B/own/f")
with() { printf '%x' $((0x$base | 0x$1)); }
expect_io() { local want=$1 got; shift; got=$("$@"); [ "$got" = "$want" ] || fail "$* gave $got, expected $want"; }

# ---- Without the capability: refused, and the backing flags unchanged.
expect_io EPERM nobody_io setflags "$M/own/f" "$(with $I)"
expect_io EPERM nobody_io setflags "$M/own/f" "$(with $A)"
expect_io EPERM nobody_io setflags "$M/own/f" "$(with $J)"
expect_io EPERM nobody_io setflags "$M/own/g" "$base"
expect_io EPERM nobody_io fsset "$M/own/f" $XI
expect_io EPERM nobody_io fsset "$M/own/f" $XA
expect_io EPERM nobody_io fsset "$M/own/g" 0
[ "$(io getflags "$B/own/f")" = "$base" ] || fail "flags of f changed: $(lsflags "$B/own/f")"
[ "$(io getflags "$B/own/g")" = "$(with $I)" ] || fail "+i of g lost: $(lsflags "$B/own/g")"
# ... while what needs no capability still works for the owner.
expect_io "$(with $I)" nobody_io getflags "$M/own/g"
expect_io 8 nobody_io fsget "$M/own/g"
expect_io OK nobody_io setflags "$M/own/f" "$(with 80)"   # +A: noatime
[ "$(io getflags "$B/own/f")" = "$(with 80)" ] || fail "control: +A not set"
expect_io OK nobody_io setflags "$M/own/f" "$base"
expect_io OK nobody_io fsset "$M/own/f" 0

# ---- With the capability, through the mount: root, and the owner given it.
expect_io OK io setflags "$M/own/f" "$(with $I)"
[ "$(io getflags "$B/own/f")" = "$(with $I)" ] || fail "root's +i not set"
expect_io OK io fsset "$M/own/f" 0
[ "$(io getflags "$B/own/f")" = "$base" ] || fail "root's FSSETXATTR did not clear +i"
cap_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=+linux_immutable \
	--ambient-caps=+linux_immutable /usr/bin/python3 "$T/ioctl.py" "$@"; }
if cap_nobody getflags "$M/own/f" >/dev/null 2>&1; then
	expect_io OK cap_nobody setflags "$M/own/f" "$(with $A)"
	[ "$(io getflags "$B/own/f")" = "$(with $A)" ] || fail "capable owner's +a not set"
	expect_io OK cap_nobody setflags "$M/own/f" "$base"
fi

# ---- The race: +i set behind the kernel's back between its two calls.
chattr -i "$B/own/g"
setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 - "$M/own/g" "$base" "$secs" <<'PY' &
import fcntl, os, struct, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
want, end = struct.pack("I", int(sys.argv[2], 16)), time.time() + float(sys.argv[3])
while time.time() < end:
    try:
        fcntl.ioctl(fd, 0x40086602, want)
    except OSError:
        pass
PY
owner=$!
breaches=$(python3 - "$B/own/g" "$base" "$secs" <<'PY'
import fcntl, os, struct, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
base, end = int(sys.argv[2], 16), time.time() + float(sys.argv[3])
get = lambda: struct.unpack("I", fcntl.ioctl(fd, 0x80086601, bytes(4)))[0]
setf = lambda v: fcntl.ioctl(fd, 0x40086602, struct.pack("I", v))
breaches = rounds = 0
while time.time() < end:
    setf(base | 0x10)
    time.sleep(0.0002)
    if not get() & 0x10:
        breaches += 1
    setf(base)
    time.sleep(0.0002)
    rounds += 1
print(breaches, rounds)
PY
)
wait "$owner"
echo "race: +i cleared by the owner $breaches rounds"
[ "${breaches%% *}" = 0 ] || fail "the owner cleared +i set behind the kernel's back"
kill -0 "$CFS_PID" || fail "the daemon died"
cfs_umount
echo "flagcaps: ok"

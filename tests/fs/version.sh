#!/usr/bin/env bash
# FS_IOC_GETVERSION and FS_IOC_SETVERSION (lsattr -v, chattr -v; issue 24)
# as ext4 answers them: anyone with the file open reads the backing
# object's generation; only its owner or a CAP_FOWNER caller sets it (EPERM
# otherwise, the backing object unchanged).  A file stays usable after its
# generation — and with it its file handle — changed.  The backing tree is
# the judge.
. "$(dirname "$0")/../lib/fs.sh"
PY=/usr/bin/python3  # not a shim in root's home: other users run it too
[ -x "$PY" ] || skip "no $PY"
command -v setpriv >/dev/null || skip "no setpriv"

# ver get|set PATH [N]: the generation, OK, or the errno's name.
ver() {
	"$PY" -c '
import errno, fcntl, os, struct, sys
GET, SET = 0x80087601, 0x40087602   # _IOR/_IOW("v", 1/2, long)
op, path = sys.argv[1], sys.argv[2]
try:
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    if op == "get":
        b = bytearray(b"\xee" * 8)
        fcntl.ioctl(fd, GET, b)
        # ext4 writes an int: the other half of the long is untouched
        assert b[4:] == b"\xee" * 4, b
        print(struct.unpack("<I", bytes(b[:4]))[0])
    else:
        fcntl.ioctl(fd, SET, struct.pack("<q", int(sys.argv[3])))
        print("OK")
except OSError as e:
    print(errno.errorcode[e.errno])' "$@"
}
# same_version NAME: the mount and the backing tree agree.
same_version() {
	local m b
	m=$(ver get "$M/$1") b=$(ver get "$B/$1")
	[ "$m" = "$b" ] || fail "$1: generation $m through the mount, $b in the backing tree"
}

backing_ver=$(: > "$B/probe" && ver set "$B/probe" 7)
[ "$backing_ver" = OK ] || skip "the backing filesystem cannot set generations ($backing_ver)"
rm "$B/probe"
who=()
if [ -z "$CF_UNPRIV" ]; then
	chmod 755 "$T"
	cfs_mount -o allow_other,fd_cache=16
	who=(as_nobody)
else
	cfs_mount -o fd_cache=16
fi
mkdir "$B/many" && for i in $(seq 40); do : > "$B/many/$i"; done
echo root > "$M/rootfile" && mkdir "$M/dir" && chmod 1777 "$M/dir" || fail "setup"
"${who[@]}" sh -c "echo mine > '$M/dir/mine'" || fail "create"
for f in rootfile dir dir/mine; do same_version "$f"; done

# The owner sets it; the file keeps working, by handle or by locator.
got=$("${who[@]}" env PY=$PY bash -c "$(declare -f ver); ver set '$M/dir/mine' 4242")
[ "$got" = OK ] || fail "owner's SETVERSION gave $got"
[ "$(ver get "$B/dir/mine")" = 4242 ] || fail "backing generation not set"
# An open file, once its cached attributes expired and other nodes took the
# 16 cached descriptors: fstat goes to the daemon, which must find the
# object again (by its new handle, where it uses handles).
got=$("${who[@]}" "$PY" -c '
import fcntl, os, struct, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.ioctl(fd, 0x40087602, struct.pack("<q", 777))
time.sleep(1.1)
for n in os.listdir(sys.argv[2]): os.lstat(os.path.join(sys.argv[2], n))
try: os.fstat(fd); print("OK")
except OSError as e: print(e.strerror)' "$M/dir/mine" "$M/many")
[ "$got" = OK ] || fail "fstat of an open file after SETVERSION: $got"
[ "$("${who[@]}" cat "$M/dir/mine")" = mine ] || fail "file unusable after SETVERSION"
"${who[@]}" sh -c "echo more >> '$M/dir/mine'" || fail "write after SETVERSION"
same_version dir/mine

if [ -z "$CF_UNPRIV" ]; then
	# Another user's file: EPERM, unchanged.
	before=$(ver get "$B/rootfile")
	got=$(as_nobody env PY=$PY bash -c "$(declare -f ver); ver set '$M/rootfile' 1")
	[ "$got" = EPERM ] || fail "non-owner's SETVERSION gave $got"
	[ "$(ver get "$B/rootfile")" = "$before" ] || fail "generation changed by a non-owner"
	got=$(as_nobody env PY=$PY bash -c "$(declare -f ver); ver get '$M/rootfile'")
	[ "$got" = "$before" ] || fail "non-owner's GETVERSION gave $got"
	# CAP_FOWNER: root sets anyone's.
	[ "$(ver set "$M/dir/mine" 99)" = OK ] && [ "$(ver get "$B/dir/mine")" = 99 ] ||
		fail "root's SETVERSION on another's file"
	# Root without CAP_FOWNER is no owner of 65534's file.
	got=$(setpriv --inh-caps=-fowner --bounding-set=-fowner \
		env PY=$PY bash -c "$(declare -f ver); ver set '$M/dir/mine' 5")
	[ "$got" = EPERM ] || fail "root without CAP_FOWNER: $got"
	[ "$(ver get "$B/dir/mine")" = 99 ] || fail "changed without CAP_FOWNER"
fi
cfs_umount

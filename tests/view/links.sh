#!/usr/bin/env bash
# Hard links of the view (issue 33, E): two names of one upper file are one
# inode to the kernel after a remount too, so rename(2) from one onto the
# other changes nothing — the kernel is not told that a name moved — and
# the remaining name keeps working after the other is removed: stat, read,
# write, chmod, truncate.
. "$(dirname "$0")/lib.sh"

L=$T/low U=$T/upper W=$T/work
mkdir -p "$L/da" "$L/db" "$U" "$W"
opts="lowerdir=$L,upperdir=$U,workdir=$W"
ovl_mount "$opts" overlay
echo data >"$M/da/x" || fail "create da/x"
ln "$M/da/x" "$M/db/l" || fail "link"
same_file "$M/da/x" "$M/db/l"
cfs_umount
ovl_mount "$opts" overlay
same_file "$M/da/x" "$M/db/l"
[ "$(stat -c %h "$M/da/x")" = 2 ] || fail "link count $(stat -c %h "$M/da/x")"
expect OK rename "$M/db/l" "$M/da/x"
[ "$(names "$M/db")" = l ] || fail "rename between links moved a name: db holds $(names "$M/db")"
expect OK unlink "$M/db/l"
expect OK stat "$M/da/x"
[ "$(cat "$M/da/x")" = data ] || fail "read da/x after rm db/l"
echo more >>"$M/da/x" || fail "write da/x after rm db/l"
chmod 600 "$M/da/x" || fail "chmod da/x after rm db/l"
truncate -s 3 "$M/da/x" || fail "truncate da/x after rm db/l"
[ "$(cat "$M/da/x")" = dat ] || fail "da/x reads $(cat "$M/da/x")"
[ "$(stat -c %a:%h "$M/da/x")" = 600:1 ] || fail "da/x: $(stat -c %a:%h "$M/da/x")"
cfs_umount
ovl_mount "$opts" overlay
[ "$(cat "$M/da/x")" = dat ] || fail "da/x after a remount reads $(cat "$M/da/x")"
[ -z "$(names "$M/db")" ] || fail "db after a remount: $(names "$M/db")"

# The same with the first name's node held open across the rename.
ln "$M/da/x" "$M/db/l" || fail "link again"
cfs_umount
ovl_mount "$opts" overlay
exec 3<"$M/db/l"
expect OK rename "$M/da/x" "$M/db/l"
[ "$(names "$M/da")" = x ] || fail "rename between links moved a name: da holds $(names "$M/da")"
expect OK unlink "$M/da/x"
[ "$(cat "$M/db/l")" = dat ] || fail "db/l after rm da/x"
[ "$(cat <&3)" = dat ] || fail "the open descriptor"
exec 3<&-
cfs_umount

# A linked name removed while the kernel still reaches its inode by the
# other name costs the daemon no descriptor (git writes each object so: a
# temporary file, link(2) to its name, unlink of the temporary; the kernel
# remembers every object's inode, and the daemon runs with
# CF_DAEMON_NOFILE descriptors).  Each remaining name still answers, its
# link count 1; the work directory is left empty by the unmount.
ovl_mount "$opts" overlay
mkdir "$M/git" || fail "mkdir git"
python3 - "$M/git" "$CFS_PID" 400 <<'PY' || fail "link then unlink, 400 files"
import os, sys
d, pid, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
fds = lambda: len(os.listdir("/proc/%s/fd" % pid))
before, bad = fds(), []
for i in range(n):
    tmp, obj = os.path.join(d, "tmp%d" % i), os.path.join(d, "obj%d" % i)
    try:
        with open(tmp, "w") as f:
            f.write("object %d\n" % i)
        os.link(tmp, obj)
        os.unlink(tmp)
    except OSError as e:
        sys.exit("file %d of %d: %s (daemon descriptors: %d, %d before)" % (i, n, e, fds(), before))
for i in range(n):
    obj = os.path.join(d, "obj%d" % i)
    try:
        st = os.stat(obj)
        with open(obj) as f:
            if f.read() != "object %d\n" % i or st.st_nlink != 1:
                bad.append("obj%d: nlink %d" % (i, st.st_nlink))
    except OSError as e:
        bad.append("obj%d: %s" % (i, e))
after = fds()
if after > before + 16:
    bad.append("daemon descriptors %d, %d before %d links and unlinks" % (after, before, n))
print("\n".join(bad[:10]), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
[ "$(ls "$M/git" | wc -l)" = 400 ] || fail "git holds $(ls "$M/git" | wc -l) names, not 400"
cfs_umount
[ -z "$(ls -A "$W/work")" ] || fail "the unmount left $(ls -A "$W/work" | wc -l) names in the work directory"
ovl_mount "$opts" overlay
[ "$(cat "$M/git/obj399")" = "object 399" ] || fail "git/obj399 after a remount"
cfs_umount
echo "links: one inode after a remount, rename between them changes nothing; 400 links" \
	"whose first name went cost no descriptor"

#!/usr/bin/env bash
# The kernel's dentry cache must never lie about other spellings, and
# changes made directly in the backing tree are seen at the next lookup.
# Run twice: with the dentry epoch where the kernel has it (every answer
# cached, changes made behind our back seen within entry_timeout, 1 s), and
# with -o noepoch (nothing cached in +F directories, changes behind our
# back seen at once).
. "$(dirname "$0")/../lib/fs.sh"

# behind: lets a change made in the backing tree reach cached dentries.
behind() { [ "$EPOCH" = 0 ] || sleep 1.1; }

scenario() {
	rm -rf "$B" && mkdir "$B"
	EPOCH=$1; shift
	cfs_mount "$@"
	cd "$M" || fail "cd"
	casefolded ci

	# A positive dentry for another spelling dies with the entry.
	touch ci/foo
	stat ci/FOO >/dev/null || fail "stat FOO"
	rm ci/foo
	expect ENOENT stat ci/FOO
	expect ENOENT stat ci/Foo

	# A name removed then recreated in another case is stored as recreated.
	touch ci/fileX
	stat ci/FILEX >/dev/null
	rm ci/fileX
	touch ci/FILEX
	[ "$(names "$B/ci")" = FILEX ] || fail "recreated as $(names "$B/ci")"

	# No negative dentry hides a new entry under another spelling.
	expect ENOENT stat ci/NEWNAME
	touch ci/newname
	expect OK stat ci/NEWNAME
	expect OK stat ci/NewName

	# Open file, unlinked, recreated in another case: two distinct files.
	echo old > ci/open
	exec 3<ci/open
	rm ci/OPEN
	echo new > ci/Open
	[ "$(cat <&3)" = old ] || fail "open descriptor lost its file"
	exec 3<&-
	[ "$(cat ci/open)" = new ] && [ "$(names "$B/ci" | grep -i '^open$')" = Open ] ||
		fail "recreated file"

	# Directories: stat DIR; rmdir dir; stat DIR fails; mkdir Dir is stored.
	mkdir ci/dir
	stat ci/DIR >/dev/null
	rmdir ci/Dir
	expect ENOENT stat ci/DIR
	mkdir ci/DIR
	names "$B/ci" | grep -qx DIR || fail "recreated directory name"

	# Renames seen under every spelling.
	touch ci/alpha
	stat ci/ALPHA >/dev/null
	mv ci/alpha ci/beta
	expect ENOENT stat ci/ALPHA
	expect OK stat ci/BETA

	# Behind our back: created, removed and renamed in the backing tree.
	touch ci/warm                         # builds the directory's index
	stat ci/WARM >/dev/null
	touch "$B/ci/Outside"
	expect OK stat ci/OUTSIDE
	rm "$B/ci/Outside"
	behind
	expect ENOENT stat ci/OUTSIDE
	mv "$B/ci/warm" "$B/ci/Cold"
	behind
	expect ENOENT stat ci/WARM
	expect OK stat ci/COLD

	# The flag set or cleared directly in the backing tree is seen too.
	mkdir late
	touch late/X
	setfattr -n "${CFS_XATTRS}casefold" -v 1 "$B/late"
	expect OK stat late/x
	lsattr -d late | grep -q '^[^ ]*F' || fail "flag set behind our back not shown"
	setfattr -x "${CFS_XATTRS}casefold" "$B/late"
	lsattr -d late | grep -q '^[^ ]*F' && fail "flag cleared behind our back still shown"
	behind
	expect ENOENT stat late/x
	# Set behind our back where no request reads it before the change
	# notice does: the miss handed out under the old rule expires all the
	# same.
	mkdir early && touch early/X
	expect ENOENT stat early/x
	setfattr -n "${CFS_XATTRS}casefold" -v 1 "$B/early"
	behind
	expect OK stat early/x

	# Names colliding under folding, made behind our back: exact bytes first,
	# then the smallest stored name in byte order.
	mkdir ci/coll
	echo upper > "$B/ci/coll/NAME"
	echo lower > "$B/ci/coll/name"
	echo mixed > "$B/ci/coll/Name"
	[ "$(cat ci/coll/name)" = lower ] || fail "exact match first"
	[ "$(cat ci/coll/nAME)" = upper ] || fail "collision order (smallest name first)"

	# Stored spellings cached, then changed through other spellings.
	touch ci/gone && stat ci/gone >/dev/null
	rm ci/GONE
	expect ENOENT stat ci/gone
	touch ci/moved && stat ci/moved >/dev/null
	mv ci/MOVED ci/elsewhere
	expect ENOENT stat ci/moved
	touch ci/Case && stat ci/Case >/dev/null
	expect OK rename ci/Case ci/CASE          # 0, nothing changes; the kernel moves its dentry
	stat ci/CASE >/dev/null && rm ci/Case
	expect ENOENT stat ci/CASE
	echo a > ci/src && echo b > ci/dst && stat ci/dst >/dev/null
	expect OK rename ci/src ci/DST
	[ "$(cat ci/dst)" = a ] || fail "cached stored name still shows the replaced file"
	mkdir ci/d && stat ci/d >/dev/null
	rmdir ci/D
	expect ENOENT stat ci/d
	mkdir ci/D && names "$B/ci" | grep -qx D || fail "mkdir D after rmdir D"
	# Removed through the stored spelling, recreated in another case: the
	# stored spelling's dentry must not turn into a lasting negative one.
	touch ci/S && stat ci/S >/dev/null && rm ci/S && touch ci/s
	expect OK stat ci/S
	mkdir ci/E && stat ci/E >/dev/null && rmdir ci/E && mkdir ci/e
	expect OK stat ci/E
	mkdir ci/Tree && touch ci/Tree/leaf && stat ci/Tree/leaf >/dev/null
	mv ci/TREE ci/Grove
	expect ENOENT stat ci/Tree/leaf
	expect OK stat ci/Grove/leaf
	# Misses and other spellings cached, then made wrong through the mount.
	expect ENOENT stat ci/FOO2
	expect ENOENT stat ci/Foo2
	touch ci/foo2
	expect OK stat ci/FOO2
	expect OK stat ci/Foo2
	touch ci/hl && ln ci/hl ci/hl2 && stat ci/HL >/dev/null   # still linked after rm
	rm ci/hl
	expect ENOENT stat ci/HL
	expect OK stat ci/HL2
	# (rm RESET: a fresh epoch, so nothing else calls for one below)
	touch ci/reset && rm ci/RESET && touch ci/p1 && stat ci/P1 >/dev/null
	mv ci/p1 ci/q1
	expect ENOENT stat ci/P1
	touch ci/a2 && stat ci/A2 >/dev/null && expect ENOENT stat ci/b2
	expect OK rename ci/a2 ci/B2
	expect OK stat ci/b2
	expect ENOENT stat ci/A2
	[ "$(names "$B/ci" | grep -i '^b2$')" = B2 ] || fail "rename a2 -> B2 stored"

	# The same from two processes: one keeps asking for spellings of a
	# name, the other creates, renames and removes it; after each step the
	# asker must see the new state at once, under every spelling.
	python3 - "$M/ci" <<'PY' || fail "two processes saw a stale entry"
import os, sys
d = sys.argv[1]
spellings = ["tWo", "TWO", "two", "Two", "twO"]
def seen():
    return [os.path.lexists(os.path.join(d, s)) for s in spellings]
r, w = os.pipe(); r2, w2 = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r); os.close(w2)
    steps = [lambda: open(os.path.join(d, "two"), "w").close(),
             lambda: os.rename(os.path.join(d, "TWO"), os.path.join(d, "three")),
             lambda: open(os.path.join(d, "Two"), "w").close(),
             lambda: os.unlink(os.path.join(d, "tWO"))]
    for step in steps:
        os.read(r2, 1); step(); os.write(w, b"x")
    os._exit(0)
os.close(w); os.close(r2)
want = [False, True, False, True, False]
for i, expect in enumerate(want):
    for _ in range(50):       # the asker warms every spelling, then waits
        if seen() != [expect] * len(spellings):
            print("step %d: %s" % (i, seen())); sys.exit(1)
    if i < len(want) - 1:
        os.write(w2, b"x"); os.read(r, 1)
os.waitpid(pid, 0)
PY
	cd /
	cfs_umount
}

scenario 1
scenario 0 -o noepoch
echo "cache: ok"

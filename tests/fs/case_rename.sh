#!/usr/bin/env bash
# -o case_rename (issue 21, part 3): a rename(2) between fold-equal
# spellings of one entry of a casefolded directory stores the new spelling,
# as NTFS does; without the option it is ext4's no-op.  Checked: the backing
# entry, every spelling through the mount right afterwards (the kernel's
# cached dentries), the index (a third spelling), open descriptors,
# RENAME_NOREPLACE / RENAME_EXCHANGE, hard links, directories, and what
# coreutils mv does.
. "$(dirname "$0")/../lib/fs.sh"

# rename2 A B FLAGS: renameat2(2) through perl; prints OK or the errno name.
rename2() {
	[ "$(uname -m)" = x86_64 ] || { echo SKIP; return; }
	perl -e 'use Errno; my ($a, $b) = ("$ARGV[0]", "$ARGV[1]");
		my $r = syscall(316, -100, $a, -100, $b, $ARGV[2] + 0);
		print $r == 0 ? "OK\n" : ((grep { $!{$_} } keys %!)[0] // "errno $!") . "\n"' "$@"
}
pyrename() { python3 -c 'import os, sys; os.rename(sys.argv[1], sys.argv[2])' "$@"; }

# Off (the default): ext4's no-op.
cfs_mount
cd "$M" || fail "cd"
casefolded ci
echo data > ci/readme
pyrename ci/readme ci/README || fail "case-only rename without the option"
[ "$(names "$B/ci")" = readme ] || fail "without case_rename the stored name changed"
[ "$(stat -c %i ci/readme)" = "$(stat -c %i ci/README)" ] || fail "one inode"
cd /
cfs_umount

cfs_mount -o case_rename
cd "$M" || fail "cd"

# From the stored spelling, with python's os.rename and perl's rename.
pyrename ci/readme ci/README || fail "python rename"
[ "$(names "$B/ci")" = README ] || fail "python: stored $(names "$B/ci")"
[ "$(names ci)" = README ] || fail "listing through the mount: $(names ci)"
for s in README readme ReadMe; do
	[ "$(cat ci/$s)" = data ] || fail "$s after the rename"
done
expect OK rename ci/README ci/ReadMe
[ "$(names "$B/ci")" = ReadMe ] || fail "perl: stored $(names "$B/ci")"
# Between two spellings neither of which is stored (readme, README): the
# kernel sees two inodes when their alias ids differ (a hash of 1 in 7).
expect OK rename ci/readme ci/README
n=$(names "$B/ci")
[ "$n" = README ] || [ "$n" = ReadMe ] || fail "other spellings: stored $n"
# Onto the stored spelling itself: nothing to do.
pyrename ci/readme "ci/$n" && [ "$(names "$B/ci")" = "$n" ] || fail "onto the stored name"
# The index knows the new name: a third spelling, a creation by another.
expect OK rename "ci/$n" ci/ReadMe
expect OK stat ci/READme
expect EEXIST excl ci/rEADME
[ "$(names "$B/ci")" = ReadMe ] || fail "excl made a name"
[ "$(stat -c %i ci/README)" = "$(stat -c %i ci/ReadMe)" ] || fail "st_ino differs"

# An open descriptor follows the file; writes through it land in it.
exec 3>>ci/readme
expect OK rename ci/ReadMe ci/READ.ME
expect OK rename ci/READ.ME ci/Read.Me
echo more >&3
exec 3>&-
[ "$(cat ci/READ.ME)" = "data
more" ] || fail "write through a descriptor opened before the renames"
[ "$(names "$B/ci")" = Read.Me ] || fail "stored $(names "$B/ci")"
sync ci/Read.Me

# Removal by a third spelling leaves no cached dentry of the old spellings.
touch ci/Temp
expect OK rename ci/Temp ci/TEMP
expect OK stat ci/temp
expect OK unlink ci/tEmP
for s in Temp TEMP temp tEmP; do expect ENOENT stat "ci/$s"; done
[ -z "$(names "$B/ci" | grep -i temp)" ] || fail "temp left behind"

# RENAME_NOREPLACE: the target exists (EEXIST, by the kernel); EXCHANGE of
# a file with itself changes nothing.
touch ci/Flags
[ "$(rename2 ci/Flags ci/FLAGS 1)" = EEXIST ] || fail "RENAME_NOREPLACE onto a spelling"
r=$(rename2 ci/Flags ci/FLAGS 2)
[ "$r" = OK ] || [ "$r" = SKIP ] || fail "RENAME_EXCHANGE with itself: $r"
names "$B/ci" | grep -qx Flags || fail "EXCHANGE changed the name"

# Another entry under a fold-equal name is still replaced, its name kept.
echo a > ci/a
echo b > ci/b
expect OK rename ci/a ci/B
[ "$(names "$B/ci" | grep -ix b)" = b ] && [ "$(cat ci/B)" = a ] || fail "a onto B"

# Hard links under two unrelated names: a rename between them is a no-op.
touch ci/one && ln ci/one ci/two
expect OK rename ci/one ci/two
names "$B/ci" | grep -qx one && names "$B/ci" | grep -qx two || fail "hard links"

# Directories keep ext4's behaviour: one kernel inode per directory, whose
# case-only rename the kernel answers itself.
mkdir ci/Dir
expect OK rename ci/Dir ci/DIR
[ -d "$B/ci/Dir" ] || fail "a directory's case-only rename"

# Plain directories: names are distinct, a rename is a rename.
mkdir cs && touch cs/x
expect OK rename cs/x cs/X
[ "$(names "$B/cs")" = X ] || fail "plain directory rename"

# coreutils mv: asks renameat2(RENAME_NOREPLACE) first (EEXIST), then
# refuses "are the same file", as on ext4.
touch ci/Mv
if mv ci/Mv ci/MV 2>"$T/mv.err"; then
	names "$B/ci" | grep -qx MV || fail "mv succeeded without renaming"
	echo "coreutils mv: renames"
else
	grep -q "are the same file" "$T/mv.err" || fail "mv: $(cat "$T/mv.err")"
	names "$B/ci" | grep -qx Mv || fail "a refused mv changed the name"
	echo "coreutils mv: refuses ($(mv --version | head -n 1))"
fi

# Every spelling is a kernel inode of its own: a rename between any two of
# them, neither stored, reaches the daemon and stores the target (aliases
# once shared seven values by hash, and a rename between two spellings
# that shared one was the kernel's no-op).
python3 - "$M/ci" <<'PY' || fail "renames between spellings"
import itertools, os, sys
d = sys.argv[1]
spellings = ["Alpha", "ALPHA", "alpha", "aLPHA", "alpHa", "AlPha", "alPHA", "ALpha", "alphA"]
bad = []
for a, b in itertools.permutations(spellings, 2):
    for n in os.listdir(d):
        if n.lower() == "alpha":
            os.unlink(os.path.join(d, n))
    open(os.path.join(d, "Alpha"), "w").close()
    os.stat(os.path.join(d, a)), os.stat(os.path.join(d, b))
    os.rename(os.path.join(d, a), os.path.join(d, b))
    got = [n for n in os.listdir(d) if n.lower() == "alpha"]
    if got != [b]:
        bad.append("%s -> %s stored %s" % (a, b, got))
print("\n".join(bad[:10]), file=sys.stderr)
sys.exit(1 if bad else 0)
PY

# An alias lives as long as the kernel holds it: 256 spellings looked up
# make 256 ids, and once the kernel forgets them (drop_caches, root only)
# the daemon's id set is back where it was.
ids() { getfattr --absolute-names --only-values -n "${CFS_XATTRS}stats" "$M" |
	sed -n 's/.* ids \([0-9]*\).*/\1/p'; }
touch ci/abcdefgh
before=$(ids)
python3 -c '
import itertools, os, sys
for bits in itertools.product((0, 1), repeat=8):
    os.stat(os.path.join(sys.argv[1], "".join(c.upper() if b else c for c, b in zip("abcdefgh", bits))))
' "$M/ci" || fail "stat of 256 spellings"
held=$(ids)
[ "$held" -ge $((before + 255)) ] || fail "256 spellings: $before ids, then $held"
if [ "$(id -u)" = 0 ]; then
	sync && echo 2 >/proc/sys/vm/drop_caches
	after=$(ids)
	[ "$after" -le "$before" ] || fail "aliases outlive the kernel's references: $before ids, $held with 256 spellings, $after after drop_caches"
	echo "aliases: $before ids, $held with 256 spellings held, $after once forgotten"
fi

cd /
cfs_umount
echo "case_rename: ok"

#!/usr/bin/env bash
# Overlay views (issue 25), as a transcript: three lower layers that spell
# the same directories and files differently, one upper layer.  Names that
# fold equal across layers are one entry, the topmost layer's file and
# spelling win, a listing shows each folded name once; writes copy up (the
# lower layers' every name, time and byte stay as they were), deletions leave
# overlayfs's whiteouts, a directory recreated over a deleted one is opaque,
# renaming a merged directory is EXDEV, and a view without an upper layer is
# read-only.  The whiteout forms other tools write are honoured in lower
# trees.  Then the same layers without case conflicts against fuse-overlayfs:
# the same listing and contents, the same outcomes for the same operations,
# and each one's upper layer read by the other.
. "$(dirname "$0")/lib.sh"

L1=$T/l1 L2=$T/l2 L3=$T/l3 U=$T/upper W=$T/work
mkdir -p "$L1/Data/Textures" "$L1/Data/Meshes" \
	"$L2/data/textures" "$L2/data/sounds" "$L2/Plugins" \
	"$L3/DATA/TEXTURES" "$L3/Plugins" "$L3/Empty" "$L3/Deep/er/Old" "$U" "$W"
echo "l1 armor" >"$L1/Data/Textures/Armor.dds"
echo "l1 sword" >"$L1/Data/Meshes/sword.nif"
echo "l1 readme" >"$L1/readme.txt"
echo "l2 armor" >"$L2/data/textures/armor.DDS"
echo "l2 helmet" >"$L2/data/textures/helmet.dds"
echo "l2 wav" >"$L2/data/sounds/x.wav"
echo "l2 readme" >"$L2/README.TXT"
echo "l2 esp" >"$L2/Plugins/mod.esp"
echo "l3 boots" >"$L3/DATA/TEXTURES/boots.dds"
echo "l3 armor" >"$L3/DATA/TEXTURES/ARMOR.DDS"
echo "l3 esp" >"$L3/Plugins/base.esp"
echo "l3 only" >"$L3/only3.txt"
chmod 640 "$L3/only3.txt"
lowers() { local l; for l in "$L1" "$L2" "$L3"; do tree_state "$l"; done; }
before=$(lowers)
listing() { names "$M/$1" | tr '\n' ' '; }

ovl_mount "lowerdir=$L1:$L2:$L3,upperdir=$U,workdir=$W" overlay
cd "$M" || fail "cd"

# ---- Lookup and listing: one entry per folded name, the top one's spelling.
[ "$(listing .)" = "Data Deep Empty Plugins only3.txt readme.txt " ] || fail "root lists: $(listing .)"
[ "$(listing data)" = "Meshes Textures sounds " ] || fail "Data lists: $(listing data)"
[ "$(listing DATA/TEXTURES)" = "Armor.dds boots.dds helmet.dds " ] ||
	fail "Data/Textures lists: $(listing DATA/TEXTURES)"
[ "$(listing plugins)" = "base.esp mod.esp " ] || fail "Plugins lists: $(listing plugins)"
[ "$(ls -a Data | wc -l)" = 5 ] || fail "ls -a Data: $(ls -a Data | tr '\n' ' ')"
# Any spelling reaches the topmost file, the exact spelling of a lower one too.
[ "$(cat dAtA/tExTuReS/BOOTS.DDS)" = "l3 boots" ] || fail "a bottom-only file by another spelling"
for s in Data/Textures/Armor.dds data/textures/armor.DDS DATA/TEXTURES/ARMOR.DDS data/TEXTURES/aRMOR.dds; do
	[ "$(cat "$s")" = "l1 armor" ] || fail "$s: $(cat "$s"), not the top layer's"
	same_file "$s" Data/Textures/Armor.dds
done
[ "$(cat ReadMe.Txt)" = "l1 readme" ] || fail "readme: top wins"
[ "$(cat DATA/Sounds/X.WAV)" = "l2 wav" ] || fail "a middle-only directory by another spelling"
expect ENOENT stat data/textures/gloves.dds
expect ENOENT stat Nothing/here
[ -d data ] && [ -d DATA/textures ] || fail "merged directories are directories"

# ---- Copy-up: parents made with the view's spellings, lower untouched.
echo edited >>data/TEXTURES/Boots.DDS
[ "$(cat DATA/textures/boots.dds)" = "$(printf 'l3 boots\nedited')" ] || fail "append through the view"
[ -f "$U/Data/Textures/boots.dds" ] || fail "copy-up not at Data/Textures/boots.dds: $(cd "$U" && find . | tr '\n' ' ')"
[ "$(cat "$U/Data/Textures/boots.dds")" = "$(printf 'l3 boots\nedited')" ] || fail "copy-up holds the wrong data"
chmod 600 ONLY3.TXT
[ "$(stat -c %a only3.txt)" = 600 ] || fail "chmod through the view"
[ "$(stat -c %a "$U/only3.txt" 2>/dev/null)" = 600 ] || fail "chmod did not copy up only3.txt"
[ "$(cat "$U/only3.txt")" = "l3 only" ] || fail "metadata copy-up lost the data"
[ "$(lowers)" = "$before" ] || fail "a lower layer changed"

# ---- Whiteouts: the lower entries disappear, a char device 0/0 in upper.
rm DATA/Textures/HELMET.DDS
expect ENOENT stat data/textures/helmet.dds
[ "$(listing data/textures)" = "Armor.dds boots.dds " ] || fail "after rm: $(listing data/textures)"
is_whiteout "$U/Data/Textures/$(folded_entry "$U/Data/Textures" helmet.dds)" || fail "no whiteout for helmet.dds"
rm data/textures/armor.dds          # in all three layers: all hidden
expect ENOENT stat DATA/TEXTURES/ARMOR.DDS
[ "$(listing data/textures)" = "boots.dds " ] || fail "armor still listed: $(listing data/textures)"
is_whiteout "$U/Data/Textures/$(folded_entry "$U/Data/Textures" armor.dds)" || fail "no whiteout for armor.dds"
# A new file over the whiteout: its own data, listed once.
echo new >data/textures/ARMOR.dds
[ "$(cat Data/Textures/armor.DDS)" = new ] || fail "recreated armor"
[ "$(names data/textures | grep -ic '^armor.dds$')" = 1 ] || fail "recreated armor listed $(listing data/textures)"
[ -f "$U/Data/Textures/$(folded_entry "$U/Data/Textures" armor.dds)" ] || fail "recreated armor is not a file in upper"
# .wh. names are whiteouts in fuse-overlayfs's upper trees, which a view
# reads: not made through it.
expect EINVAL create data/.wh.x
expect EINVAL mkdir .wh..wh..opq
# A lower file renamed: the new name holds it, the old one is whited out.
expect OK rename Only3.Txt Moved.txt
[ "$(cat moved.TXT)" = "l3 only" ] && [ "$(stat -c %a Moved.txt)" = 600 ] || fail "renamed lower file"
expect ENOENT stat only3.txt
is_whiteout "$U/$(folded_entry "$U" only3.txt)" || fail "no whiteout for the renamed only3.txt"

# ---- Directories: an empty lower one removed, a merged non-empty one not;
# one removed and made again is opaque (the lower files stay hidden).
expect ENOTEMPTY rmdir plugins
expect OK rmdir EMPTY
expect ENOENT stat Empty
is_whiteout "$U/$(folded_entry "$U" empty)" || fail "no whiteout for the removed Empty"
rm -r data/sounds
expect ENOENT stat Data/Sounds
mkdir DATA/SOUNDS
[ -z "$(listing data/sounds)" ] || fail "recreated Sounds shows $(listing data/sounds)"
expect ENOENT stat data/sounds/x.wav
sounds=$U/Data/$(folded_entry "$U/Data" sounds)
[ -d "$sounds" ] && [ "$(xget "$sounds" user.overlay.opaque)" = y ] ||
	fail "recreated Sounds is not an opaque directory in upper (user.overlay.opaque: $(xget "$sounds" user.overlay.opaque))"
# overlayfs's own xattrs belong to the layers: not shown, not settable.
[ -z "$(xget data/sounds user.overlay.opaque)" ] || fail "user.overlay.opaque shows through the view"
python3 -c 'import os, sys; sys.exit(any(a.startswith(("user.overlay.", "trusted.overlay.")) for a in os.listxattr(sys.argv[1])))' \
	data/sounds || fail "listxattr shows overlayfs's xattrs: $(python3 -c 'import os, sys; print(os.listxattr(sys.argv[1]))' data/sounds)"
python3 -c 'import os; os.setxattr("data/sounds", "user.overlay.opaque", b"x")' 2>/dev/null &&
	fail "user.overlay.opaque set through the view"
[ "$(xget "$sounds" user.overlay.opaque)" = y ] || fail "setting user.overlay.opaque through the view changed the upper layer"

# ---- Renaming a merged directory: EXDEV; mv falls back to copying.
expect EXDEV rename Data Data2
expect EXDEV rename PLUGINS Mods
mv Plugins Mods || fail "mv of a merged directory"
[ "$(listing mods)" = "base.esp mod.esp " ] && [ "$(cat MODS/BASE.ESP)" = "l3 esp" ] || fail "mv copied: $(listing mods)"
expect ENOENT stat plugins
# A directory only in upper renames as any.
mkdir Fresh && echo f >Fresh/f
expect OK rename FRESH Renamed
[ "$(cat renamed/F)" = f ] || fail "renamed upper directory"
# Moved over an empty lower directory (by another spelling), it is made
# opaque and is still the upper layer's alone: it moves again, as overlayfs's
# does, and nothing of the lower one comes back.
mkdir Deep/er/New && echo n >Deep/er/New/n
expect OK rename Deep/er/New Deep/er/old
old=$U/Deep/er/$(folded_entry "$U/Deep/er" old)
[ "$(xget "$old" user.overlay.opaque)" = y ] || fail "a directory moved over a lower one is not opaque"
expect OK rename Deep/er/Old Deep/er/Moved
[ "$(cat deep/er/moved/N)" = n ] || fail "moved twice"
expect ENOENT stat deep/er/old

# ---- Remounted, the upper layer says the same.
cd /
seen=$(view "$M")
cfs_umount
ovl_mount "lowerdir=$L1:$L2:$L3,upperdir=$U,workdir=$W"
[ "$(view "$M")" = "$seen" ] || fail "the view changed across a remount: $(diff <(echo "$seen") <(view "$M"))"
cfs_umount
[ "$(lowers)" = "$before" ] || fail "a lower layer changed"

# ---- No upper layer: read-only, EROFS.
ovl_mount "lowerdir=$L1:$L2:$L3,casefold=utf8-12.1.0"   # the default, named
expect EROFS create "$M/new.txt"
expect EROFS create "$M/README.txt"
expect EROFS unlink "$M/readme.TXT"
expect EROFS mkdir "$M/data/new"
expect EROFS rmdir "$M/empty"
expect EROFS rename "$M/readme.txt" "$M/other.txt"
expect EROFS symlink x "$M/link"
chmod 600 "$M/README.TXT" 2>/dev/null && fail "chmod in a read-only view"
[ "$(cat "$M/data/textures/armor.dds")" = "l1 armor" ] || fail "reads in a read-only view"
cfs_umount
[ "$(lowers)" = "$before" ] || fail "a lower layer changed"
# Lower trees may change while nothing is mounted: the next mount reads them.
echo "l3 added" >"$L3/DATA/Added.txt" && rm "$L2/data/textures/helmet.dds"
ovl_mount "lowerdir=$L1:$L2:$L3"
[ "$(cat "$M/data/ADDED.TXT")" = "l3 added" ] || fail "a file added to a lower layer while unmounted"
expect ENOENT stat "$M/data/textures/helmet.dds"
cfs_umount

# ---- Whiteout forms in lower layers: a char device 0/0; an xattr whiteout
# (an empty file with overlay.whiteout, in a directory marked
# overlay.opaque=x); an opaque directory (overlay.opaque=y); user.overlay.*
# always, trusted.overlay.* as root.
A=$T/wa Z=$T/wz
mkdir -p "$A/Sub" "$A/Opaque" "$Z/sub" "$Z/opaque" "$Z/DIR"
for f in gone1.txt sub/gone2.txt sub/kept.txt opaque/hidden.txt opaque/kept.txt DIR/f; do
	echo "z $f" >"$Z/$f"
done
echo "a kept" >"$A/Opaque/kept.txt"
: >"$A/Sub/GONE2.txt"
xset "$A/Sub/GONE2.txt" user.overlay.whiteout y
xset "$A/Sub" user.overlay.opaque x
xset "$A/Opaque" user.overlay.opaque y
# fuse-overlayfs's fallbacks (aufs's form): .wh.NAME and .wh..wh..opq files.
mkdir -p "$A/Aufs" "$A/AufsOpaque" "$Z/aufs" "$Z/aufsopaque"
echo z >"$Z/aufs/gone4.txt" && echo z >"$Z/aufs/kept.txt" && echo z >"$Z/aufsopaque/hidden.txt"
: >"$A/Aufs/.wh.GONE4.txt" && : >"$A/AufsOpaque/.wh..wh..opq"
want_sub="kept.txt "
if [ "$(id -u)" = 0 ]; then
	mknod "$A/Gone1.TXT" c 0 0 || fail "mknod"
	mknod "$A/dir" c 0 0      # a whole directory whited out
	mkdir -p "$A/Sub2" "$Z/sub2" "$A/Opaque2" "$Z/opaque2"
	echo z >"$Z/sub2/gone3.txt" && echo z >"$Z/sub2/kept.txt" && echo z >"$Z/opaque2/hidden.txt"
	: >"$A/Sub2/Gone3.txt"
	xset "$A/Sub2/Gone3.txt" trusted.overlay.whiteout y
	xset "$A/Sub2" trusted.overlay.opaque x
	xset "$A/Opaque2" trusted.overlay.opaque y
	want_root="Aufs AufsOpaque Opaque Opaque2 Sub Sub2 "
else
	want_root="Aufs AufsOpaque DIR Opaque Sub gone1.txt "
fi
wbefore=$(tree_state "$A"; tree_state "$Z")
ovl_mount "lowerdir=$A:$Z"
[ "$(listing .)" = "$want_root" ] || fail "whiteouts in a lower layer: root lists $(listing .)"
[ "$(listing sub)" = "$want_sub" ] || fail "xattr whiteout: sub lists $(listing sub)"
expect ENOENT stat "$M/sub/gone2.txt"
[ "$(listing opaque)" = "kept.txt " ] && [ "$(cat "$M/OPAQUE/KEPT.TXT")" = "a kept" ] ||
	fail "opaque lower directory lists $(listing opaque)"
expect ENOENT stat "$M/opaque/hidden.txt"
[ "$(listing aufs)" = "kept.txt " ] || fail ".wh.NAME whiteout: aufs lists $(listing aufs)"
[ -z "$(listing aufsopaque)" ] || fail ".wh..wh..opq: aufsopaque lists $(listing aufsopaque)"
if [ "$(id -u)" = 0 ]; then
	expect ENOENT stat "$M/gone1.txt"
	expect ENOENT stat "$M/dir/f"
	[ "$(listing sub2)" = "kept.txt " ] || fail "trusted xattr whiteout: sub2 lists $(listing sub2)"
	[ -z "$(listing opaque2)" ] || fail "trusted opaque: opaque2 lists $(listing opaque2)"
fi
cfs_umount
[ "$(tree_state "$A"; tree_state "$Z")" = "$wbefore" ] || fail "a lower layer with whiteouts changed"

# ---- Against fuse-overlayfs, on layers whose names never differ only in
# case (so that case-sensitive overlay semantics are the reference).
if ! command -v fuse-overlayfs >/dev/null; then
	echo "overlay: ok (no fuse-overlayfs: the comparison skipped)"
	exit 0
fi
C1=$T/c1 C2=$T/c2 C3=$T/c3 CU=$T/cu CW=$T/cw FU=$T/fu FW=$T/fw FM=$T/fmnt
mkdir -p "$C1/a/b" "$C2/a/b" "$C2/c/deep/er" "$C3/a" "$C3/c" "$C3/empty" "$C3/c/deep" \
	"$CU" "$CW" "$FU" "$FW" "$FM"
for l in 1 2 3; do
	d=$T/c$l
	echo "c$l f1" >"$d/a/f1"                    # in all three: the top one wins
	echo "c$l only" >"$d/only$l"
	[ "$l" = 1 ] || echo "c$l f3" >"$d/c/f3"
	[ "$l" = 1 ] || for i in $(seq 200); do echo "c$l f5 line $i"; done >"$d/a/f5"
done
echo f2 >"$C1/a/b/f2" && echo f4 >"$C3/c/f4" && echo f6 >"$C2/a/f6" && echo deep >"$C3/c/deep/d"
echo er >"$C2/c/deep/er/x" && chmod 700 "$C2/c/deep/er" && chmod 751 "$C3/a" && chmod 604 "$C2/a/f6"
ln -s a/f1 "$C2/link" && ln -s /nonexistent "$C3/a/dangling"
cbefore=$(for l in "$C1" "$C2" "$C3"; do tree_state "$l"; done)
ovl_mount "lowerdir=$C1:$C2:$C3,upperdir=$CU,workdir=$CW"
fovl_mount "$C1:$C2:$C3" "$FU" "$FW" "$FM"
view "$M" >"$T/view.cfs"
view "$FM" >"$T/view.fovl"
cmp -s "$T/view.cfs" "$T/view.fovl" || fail "views differ from fuse-overlayfs: $(diff "$T/view.fovl" "$T/view.cfs")"
# The same operations on both; every outcome must match.
ops=(
	"create a/new.txt" "create a/f1" "unlink c/f3" "unlink c/f3" "mkdir a/newdir" "mkdir a/b"
	"rmdir empty" "rmdir c" "rename a/b/f2 a/f2moved" "rename c/f4 a/b/f4" "unlink a/f5"
	"create a/f5" "rename a x" "rename c/deep c/deep2" "rename a/newdir a/newdir2"
	"unlink a/dangling" "symlink f1 a/sym" "link a/f6 a/f6link" "stat c/f3" "stat a/f2moved"
)
for op in "${ops[@]}"; do
	set -- $op
	if [ "$1" = symlink ]; then     # the target is a string, not a path of the view
		got=$(sys symlink "$2" "$M/$3") want=$(sys symlink "$2" "$FM/$3")
	else
		got=$(sys "$1" "$M/$2" ${3:+"$M/$3"}) want=$(sys "$1" "$FM/$2" ${3:+"$FM/$3"})
	fi
	[ "$got" = "$want" ] || fail "$op: casefoldfs $got, fuse-overlayfs $want"
done
# A lower file hard-linked (copied up, then linked): one file under both
# names (same inode number and link count: how tar and rsync -H tell).
for m in "$FM" "$M"; do
	[ "$(stat -c %i:%h "$m/a/f6")" = "$(stat -c %i:%h "$m/a/f6link")" ] ||
		fail "$m: a/f6 and its link a/f6link show $(stat -c %i:%h "$m/a/f6") and $(stat -c %i:%h "$m/a/f6link") (inode:links)"
done
for m in "$M" "$FM"; do
	echo more >>"$m/a/f1" && echo more >>"$m/a/f6" && : >"$m/only2" && chmod 640 "$m/only3" &&
		rm -r "$m/c/deep" && mkdir "$m/c/deep" && echo x >"$m/c/deep/new" || fail "writes through $m"
	mv "$m/c" "$m/c.moved" || fail "mv of a merged directory through $m"
done
view "$M" >"$T/view.cfs"
view "$FM" >"$T/view.fovl"
cmp -s "$T/view.cfs" "$T/view.fovl" ||
	fail "views differ from fuse-overlayfs after the operations: $(diff "$T/view.fovl" "$T/view.cfs")"
# Both upper trees hold the same files (fuse-overlayfs adds .wh.* markers).
uppers() { (cd "$1" && find . -type f ! -name '.wh.*' -exec sha256sum {} + | LC_ALL=C sort); }
[ "$(uppers "$CU")" = "$(uppers "$FU")" ] || fail "upper files differ: $(diff <(uppers "$FU") <(uppers "$CU"))"
seen=$(view "$M")
cfs_umount
fovl_umount "$FM"
# Each one's upper layer, read by the other (copies: neither writes the
# original): casefoldfs's whiteouts and opaque markers mean the same to
# fuse-overlayfs, and fuse-overlayfs's to casefoldfs.
cp -a "$CU" "$T/cu2" && cp -a "$FU" "$T/fu2" && mkdir "$T/cw2" "$T/fw2" || fail "cp"
fovl_mount "$C1:$C2:$C3" "$T/cu2" "$T/fw2" "$FM"
[ "$(view "$FM")" = "$seen" ] || fail "fuse-overlayfs reads casefoldfs's upper layer otherwise: $(diff <(echo "$seen") <(view "$FM"))"
fovl_umount "$FM"
# fuse-overlayfs's upper layer as it is: with its .wh..wh..opq files (and
# .wh.NAME files where it cannot make devices), which casefoldfs reads too.
ovl_mount "lowerdir=$C1:$C2:$C3,upperdir=$T/fu2,workdir=$T/cw2"
view "$M" >"$T/view.cfs"
[ "$(cat "$T/view.cfs")" = "$seen" ] ||
	fail "casefoldfs reads fuse-overlayfs's upper layer otherwise: $(diff <(echo "$seen") "$T/view.cfs")"
cfs_umount
[ "$(for l in "$C1" "$C2" "$C3"; do tree_state "$l"; done)" = "$cbefore" ] || fail "a compared lower layer changed"

# ---- What pjdfstest found (run beside the project, tests/ has no copy):
# a file reached by the kernel after its name goes — another link made
# through the view, an open descriptor — still answers; a new file keeps
# its set-user-ID bit; a path of PATH_MAX - 1 bytes works.
P=$T/p && mkdir -p "$P/l" "$P/u" "$P/w"
ovl_mount "lowerdir=$P/l,upperdir=$P/u,workdir=$P/w"
python3 - "$M" <<'PY' || fail "files kept by links and descriptors, modes, long paths"
import os, stat, sys
os.chdir(sys.argv[1])
bad = []
open("a", "w").close()
os.link("a", "b")
os.link("b", "c")
os.unlink("a")
for n in ("b", "c"):
    try:
        st = os.lstat(n)
        if st.st_nlink != 2:
            bad.append("%s: nlink %d after unlinking a, not 2" % (n, st.st_nlink))
    except OSError as e:
        bad.append("%s after unlinking a: %s" % (n, e))
os.unlink("b")
if os.lstat("c").st_nlink != 1:
    bad.append("c: nlink %d, not 1" % os.lstat("c").st_nlink)
with open("c", "a") as f:
    f.write("through the last name\n")
fd = os.open("open", os.O_CREAT | os.O_RDWR, 0o644)
os.write(fd, b"kept")
os.unlink("open")
try:
    st = os.fstat(fd)
    if st.st_nlink != 0 or st.st_size != 4:
        bad.append("fstat of an open, unlinked file: nlink %d size %d" % (st.st_nlink, st.st_size))
except OSError as e:
    bad.append("fstat of an open, unlinked file: %s" % e)
os.close(fd)
old = os.umask(0)
os.close(os.open("suid", os.O_CREAT | os.O_WRONLY, 0o6755))
os.mknod("node", stat.S_IFIFO | 0o4777)
os.umask(old)
os.link("node", "fifolink")
os.unlink("node")
if not stat.S_ISFIFO(os.lstat("fifolink").st_mode):
    bad.append("a fifo's other link after unlinking the first: not a fifo")
os.link("fifolink", "node")
for n, want in (("suid", 0o6755), ("node", 0o4777)):
    if stat.S_IMODE(os.lstat(n).st_mode) != want:
        bad.append("%s: mode %o, not %o" % (n, stat.S_IMODE(os.lstat(n).st_mode), want))
p = ""
for i in range(31):
    p = os.path.join(p, "%0126d" % i)
    os.mkdir(p)
path = os.path.join(p, "f" * (4095 - len(p) - 1))
try:
    open(path, "w").close()
    os.unlink(path)
except OSError as e:
    bad.append("a path of %d bytes: %s" % (len(path), e))
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
cfs_umount

# A write by another user kills the set-user-ID bit, and the set-group-ID
# bit of a group-executable file, as the kernel does on ext4 (pjdfstest
# chmod/12: the view kept them when INIT asked FUSE_HANDLE_KILLPRIV, since
# the daemon writes as root).  Root's view with allow_other.
if [ -z "$CF_UNPRIV" ]; then
	chmod 755 "$T"
	ovl_mount "lowerdir=$P/l,upperdir=$P/u,workdir=$P/w,allow_other"
	for m in 4777 2777 6777; do
		f=$M/killpriv$m
		: > "$f" && chmod "$m" "$f" || fail "a mode $m file in the view"
		as_nobody sh -c "printf x >> '$f'" || fail "uid 65534 cannot write a mode $m file"
		[ "$(stat -c %a "$f")" = 777 ] ||
			fail "a mode $m file written by another user: mode $(stat -c %a "$f"), not 777"
		[ "$(stat -c %a "$P/u/killpriv$m")" = 777 ] ||
			fail "a mode $m file written by another user: mode $(stat -c %a "$P/u/killpriv$m") in the upper layer"
	done
	cfs_umount
fi
echo "overlay: ok"

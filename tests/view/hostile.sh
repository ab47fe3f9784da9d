#!/usr/bin/env bash
# Overlay views given hostile layers (issue 25): a missing tree, a tree
# inside another, the mount point inside a layer (it would recurse), paths
# that reach those through `..`, names that fold equal inside one lower
# directory (one entry, as across layers: the top layer's file of the
# byte-wise smallest spelling, its twin directories merged), and symlinks in a lower layer pointing outside it: returned as
# symlinks, never followed by the daemon (a canary outside never changes and
# never shows in the view).
. "$(dirname "$0")/lib.sh"

L1=$T/l1 L2=$T/l2 U=$T/upper W=$T/work OUT=$T/outside
mkdir -p "$L1/d" "$L2/d" "$U" "$W" "$OUT/sub"
echo secret >"$OUT/secret" && echo inner >"$OUT/sub/inner"
canary_before=$(tree_state "$OUT")
canary() { [ "$(tree_state "$OUT")" = "$canary_before" ] || fail "the canary outside the layers changed ($1)"; }

# refused WHAT OPTIONS MOUNTPOINT: the daemon must exit non-zero, by itself
# and with a message, without mounting.
refused() {
	local got
	got=$(ovl_try "$2" "$3")
	case $got in
	mounted) fail "$1: mounted" ;;
	"status 124:"*) fail "$1: the daemon neither mounted nor exited (timeout)" ;;
	"status 0:"*) fail "$1: exit status 0 without a mount" ;;
	"status "[0-9]*": ") fail "$1: refused without a message ($got)" ;;
	esac
	echo "$1: $got"
}

# ---- The layer list.
got=$(ovl_try "lowerdir=$L1:$T/missing" "$M")
case $got in
"status 1: "*missing*) echo "missing lower layer: $got" ;;
*) fail "a missing lower layer: $got (want status 1 and a message naming it)" ;;
esac
refused "missing upper layer" "lowerdir=$L1,upperdir=$T/nope,workdir=$W" "$M"
mkdir -p "$L1/inner" "$L1/d/deeper"
refused "a lower layer inside another" "lowerdir=$L1:$L2:$L1/inner" "$M"
refused "a lower layer containing an earlier one" "lowerdir=$L1/d/deeper:$L2:$L1" "$M"
refused "the upper layer inside a lower one" "lowerdir=$L1:$L2,upperdir=$L1/inner,workdir=$W" "$M"
refused "a lower layer inside the upper one" "lowerdir=$L1:$U,upperdir=$T,workdir=$W" "$M"
refused "a lower layer inside another through .." "lowerdir=$L1:$L2/../l1/inner" "$M"
mkdir -p "$L2/mnt" "$U/mnt"
refused "the mount point inside a lower layer" "lowerdir=$L1:$L2" "$L2/mnt"
refused "the mount point inside a lower layer through .." "lowerdir=$L1:$L2" "$T/upper/../l2/mnt"
refused "the mount point inside the upper layer" "lowerdir=$L1:$L2,upperdir=$U,workdir=$W" "$U/mnt"
# Over a lower layer itself (as mod managers mount over the game's Data):
# not a recursion when the daemon holds the layers open first; recorded.
echo "the mount point is a lower layer (not checked): $(ovl_try "lowerdir=$L1:$L2" "$L2")"
rmdir "$L1/inner" "$L1/d/deeper" "$L2/mnt" "$U/mnt"
[ -z "$(ls -A "$U")" ] || fail "a refused mount wrote into the upper layer: $(ls -A "$U")"
refused "an unknown encoding" "lowerdir=$L1,casefold=utf8-99.0.0" "$M"
# `..` that leads elsewhere is only a path: this mounts.
mkdir "$T/x"
ovl_mount "lowerdir=$T/x/../l1:$L2,upperdir=$U,workdir=$W"
[ -d "$M/D" ] || fail "a layer named through .. does not serve"
cfs_umount

# ---- Fold-equal names inside one lower directory.
echo "l1 a.txt" >"$L1/d/a.txt"
echo "l1 A.TXT" >"$L1/d/A.TXT"
echo "l2 a.Txt" >"$L2/d/a.Txt"      # only in the lower layer under this spelling
echo "l2 b.txt" >"$L2/d/b.txt"
echo "l2 B.txt" >"$L2/d/B.txt"
mkdir "$L1/d/Sub" "$L1/d/sub" && echo x >"$L1/d/Sub/x" && echo y >"$L1/d/sub/y"
echo "l1 bad" >"$L1/d/"$'Bad\xff' && echo "l2 bad" >"$L2/d/"$'BAD\xff'   # invalid UTF-8
before=$(tree_state "$L1"; tree_state "$L2")
ovl_mount "lowerdir=$L1:$L2,upperdir=$U,workdir=$W"
D=$M/d
reads() { [ "$(cat "$D/$1")" = "$2" ] || fail "$D/$1 reads \"$(cat "$D/$1" 2>&1)\", expected \"$2\""; }
for n in a.txt A.TXT A.txt a.TXT a.Txt; do
	reads $n "l1 A.TXT"          # the top layer's smallest spelling, by any spelling
done
reads b.txt "l2 B.txt"           # only the lower layer has it: its smallest spelling
reads B.TXT "l2 B.txt"
[ "$(cat "$D/SUB/x")" = x ] && [ "$(cat "$D/sub/y")" = y ] || fail "fold-equal directories merge"
echo "listing of the hostile directory: $(names "$D" | tr '\n' ' ')"
[ "$(names "$D" | grep -ixE '[ab]\.txt|sub' | tr '\n' ' ')" = "A.TXT B.txt Sub " ] ||
	fail "not one name a group: $(names "$D" | tr '\n' ' ')"
[ "$(names "$D/sub" | tr '\n' ' ')" = "x y " ] || fail "Sub and sub merged: $(names "$D/sub" | tr '\n' ' ')"
# Whatever the listing shows is reachable under the name shown, and itself.
for n in $(names "$D"); do
	[ -e "$D/$n" ] || fail "$n is listed but not found"
	if [ -f "$L1/d/$n" ]; then
		[ "$(cat "$D/$n")" = "$(cat "$L1/d/$n")" ] || fail "$n is listed but reads another file"
	fi
done
# Invalid UTF-8 is opaque bytes: each name exact, never folded together.
reads $'Bad\xff' "l1 bad"
reads $'BAD\xff' "l2 bad"
expect ENOENT stat "$D/"$'bad\xff'
# A write by any spelling copies up the winner, and only it.
echo more >>"$D/a.txt"
reads a.txt "$(printf 'l1 A.TXT\nmore')"
[ "$(cat "$U/d/A.TXT")" = "$(printf 'l1 A.TXT\nmore')" ] && [ ! -e "$U/d/a.txt" ] ||
	fail "copy-up of A.TXT: $(cd "$U" && find . | tr '\n' ' ')"
cfs_umount
[ "$(tree_state "$L1"; tree_state "$L2")" = "$before" ] || fail "a lower layer changed"
rm -rf "$U" "$W" && mkdir "$U" "$W"

# ---- Deeper than PATH_MAX in a lower layer: a view reaches objects by their
# path in a tree (fs/view/DESIGN.md), so past 4,096 bytes it answers
# ENAMETOOLONG — and goes on serving.
deep=$T/deep long=$(printf 'd%.0s' $(seq 200))
mkdir "$deep"
(cd "$deep" && for i in $(seq 25); do mkdir "$long$i" && cd "$long$i" || exit 1; done && echo bottom >f) ||
	fail "cannot make the deep tree"
ovl_mount "lowerdir=$deep"
got=$(cd "$M" && for i in $(seq 25); do cd "$long$i" 2>/dev/null || { echo "stopped at $i"; exit; }; done; cat f)
echo "a lower layer 25 x 200 bytes deep: $got"
[ "$got" = bottom ] || case $got in "stopped at "*) ;; *) fail "deep tree: $got" ;; esac
[ -d "$M/${long}1" ] || fail "the view stopped serving after the deep walk"
cfs_umount
rm -rf "$deep"

# ---- Symlinks in a lower layer pointing outside it, absolute and through `..`.
ln -s "$OUT" "$L1/Abs"
ln -s ../outside "$L1/rel"
ln -s ../../../../../../../.. "$L1/up"
ln -s "$OUT" "$L1/Data"             # a symlink over a lower directory
mkdir -p "$L2/data/textures" && echo "l2 tex" >"$L2/data/textures/t.dds"
mkdir "$L1/Sounds" && ln -s "$OUT" "$L2/sounds"   # a directory over a lower symlink
echo "l1 s" >"$L1/Sounds/s.wav"
before=$(tree_state "$L1"; tree_state "$L2")
ovl_mount "lowerdir=$L1:$L2,upperdir=$U,workdir=$W"
for l in abs:"$OUT" REL:../outside UP:../../../../../../../.. data:"$OUT"; do
	n=${l%%:*} want=${l#*:}
	[ -L "$M/$n" ] || fail "$n is not a symlink in the view"
	[ "$(readlink "$M/$n")" = "$want" ] || fail "$n reads $(readlink "$M/$n"), not $want"
done
[ "$(stat -c %F "$M/DATA")" = "symbolic link" ] || fail "the top layer's symlink hides the lower Data directory"
expect ENOENT stat "$M/Data/textures/t.dds"     # the kernel follows to $OUT, which has none
[ "$(names "$M/sounds" | tr '\n' ' ')" = "s.wav " ] ||
	fail "a lower symlink under a directory was merged: $(names "$M/sounds" | tr '\n' ' ')"
expect ENOENT stat "$M/SOUNDS/secret"
[ "$(find "$M" -name secret -o -name inner | wc -l)" = 0 ] || fail "the outside tree shows in the view"
python3 - "$M" <<'PY' || fail "O_NOFOLLOW opens of the symlinks"
import errno, os, sys
for n in ("Abs", "rel", "up", "data"):
    try:
        os.open(os.path.join(sys.argv[1], n), os.O_RDONLY | os.O_NOFOLLOW)
        sys.exit("%s opened with O_NOFOLLOW" % n)
    except OSError as e:
        if e.errno != errno.ELOOP:
            sys.exit("%s: %s" % (n, e))
PY
# Changing the symlinks changes copies in upper, never what they point at.
mv "$M/ABS" "$M/abs2" || fail "rename of a lower symlink"
[ "$(readlink "$M/abs2")" = "$OUT" ] && [ -L "$U/abs2" ] || fail "renamed symlink"
touch -h -d @1 "$M/rel" || fail "touch -h of a lower symlink"
[ -L "$U/rel" ] && [ "$(readlink "$U/rel")" = ../outside ] || fail "the symlink copied up as a symlink"
rm "$M/Data" && [ ! -e "$M/data" ] && [ ! -L "$M/data" ] || fail "rm of the lower symlink Data"
rm -r "$M/sounds" || fail "rm -r of a directory that hides a lower symlink"
canary "after the symlink operations"
cfs_umount
[ "$(tree_state "$L1"; tree_state "$L2")" = "$before" ] || fail "a lower layer changed"
canary "at the end"
echo "view/hostile: ok"

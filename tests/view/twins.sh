#!/usr/bin/env bash
# Fold-equal twins in one layer's directory (issue 41): one entry per group,
# as across layers — the twin directories merge, the file of the smallest
# spelling wins, and every change acts on the group: rm and mv remove all
# of it (stat by any spelling: ENOENT), a write or chmod changes the winner
# only, live and after a remount.  For each change: a fresh upper layer,
# the change, the view compared with what it must be, a remount, the view
# compared again.  Then twins in a middle layer between other spellings,
# and the issue's mod.
. "$(dirname "$0")/lib.sh"

L=$T/low L2=$T/mid U=$T/upper W=$T/work
mkdir -p "$L" "$L2"

# fresh: the lower layer of the twins (and nothing in the middle layer).
# README goes before readme bytewise, Dir before dir: they are shown.
fresh() {
	rm -rf "$L" "$L2" "$U" "$W"
	mkdir -p "$L/Dir" "$L/dir" "$L2" "$U" "$W"
	echo upper-case >"$L/README"
	echo lower-case >"$L/readme"
	echo in-Dir >"$L/Dir/f"
	echo in-dir >"$L/dir/f"
	echo only-Dir >"$L/Dir/g"
	echo only-dir >"$L/dir/h"
}

# check WHAT EXPECTED: the view now, then after a remount.
check() {
	local got
	got=$(view "$M")
	[ "$got" = "$2" ] || fail "$1, live: $(diff <(echo "$2") <(echo "$got"))"
	cd / || fail cd
	cfs_umount
	ovl_mount "lowerdir=$L:$L2,upperdir=$U,workdir=$W" overlay
	got=$(view "$M")
	[ "$got" = "$2" ] || fail "$1, after a remount: $(diff <(echo "$2") <(echo "$got"))"
	cfs_umount
}

# expected: what `view` prints for NAME=CONTENT... files (the merged
# directory Dir — f from Dir, the smaller spelling, g and h — always there
# unless given as -Dir).
expected() {
	local d=$T/expect
	rm -rf "$d"
	mkdir -p "$d/Dir"
	echo in-Dir >"$d/Dir/f"
	echo only-Dir >"$d/Dir/g"
	echo only-dir >"$d/Dir/h"
	for a in "$@"; do
		case $a in
		-*) rm -rf "${d:?}/${a#-}" ;;
		*=*) mkdir -p "$(dirname "$d/${a%%=*}")"; printf '%b\n' "${a#*=}" >"$d/${a%%=*}" ;;
		esac
	done
	view "$d"
}

start() {
	fresh
	ovl_mount "lowerdir=$L:$L2,upperdir=$U,workdir=$W" overlay
}

gone() { # NAME...: not found by any of the spellings given
	for n in "$@"; do
		expect ENOENT stat "$M/$n"
	done
}

# Nothing changed: one name a group, the smaller spelling shown, every
# spelling finding it.
start
check "no change" "$(expected README=upper-case)"
start
[ "$(cat "$M/readme")" = upper-case ] && [ "$(cat "$M/ReadMe")" = upper-case ] ||
	fail "another spelling reads $(cat "$M/readme")"
[ "$(cat "$M/dir/h")" = only-dir ] && [ "$(cat "$M/DIR/g")" = only-Dir ] ||
	fail "the twin directories do not merge"
[ "$(stat -c %i "$M/dir")" = "$(stat -c %i "$M/Dir")" ] || fail "Dir and dir are two inodes"
cfs_umount

for victim in README readme; do
	start
	rm "$M/$victim" || fail "rm $victim"
	gone README readme ReadMe
	check "rm $victim" "$(expected)"
done

start
echo more >>"$M/readme" || fail "append"
[ -z "$(ls "$U" | grep -x readme)" ] || fail "the append copied up the loser: $(ls "$U")"
check "append to readme" "$(expected 'README=upper-case\nmore')"

start
chmod 600 "$M/readme" || fail "chmod"
[ "$(stat -c %a "$M/README")" = 600 ] || fail "chmod readme did not reach README"
check "chmod readme" "$(sed 's/^README|f|644/README|f|600/' <<<"$(expected README=upper-case)")"

for victim in README readme; do
	start
	mv "$M/$victim" "$M/other" || fail "mv $victim other"
	gone README readme
	check "mv $victim other" "$(expected other=upper-case)"
done

# A rename to another spelling of the group: one entry, nothing changes.
start
expect OK rename "$M/README" "$M/readme"
check "mv README readme" "$(expected README=upper-case)"

# The group removed, then a third spelling made: only that one shows.
start
rm "$M/readme" || fail "rm readme"
echo third >"$M/ReadMe" || fail "create ReadMe"
check "rm, create ReadMe" "$(expected ReadMe=third)"

# Removed, a third spelling made, a remount; then a rename onto the group
# (keeping its spelling) and one out of it: the whiteout left behind
# hides both twins below.
start
rm "$M/README" || fail "rm README"
echo third >"$M/ReadMe" || fail "create ReadMe"
cd / && cfs_umount
ovl_mount "lowerdir=$L:$L2,upperdir=$U,workdir=$W" overlay
echo moved >"$M/Dir/m" || fail "create Dir/m"
mv "$M/Dir/m" "$M/readme" || fail "mv Dir/m readme"
[ "$(ls "$M" | grep -ix readme)" = ReadMe ] || fail "the rename onto the group changed its spelling: $(ls "$M")"
mv "$M/ReadMe" "$M/gone" || fail "mv ReadMe gone"
gone README readme ReadMe
check "a remount, mv onto the group, mv out of it" "$(expected gone=moved)"

# Directories: a file made inside either twin lands in the merged one.
start
echo new >"$M/dir/n" || fail "create dir/n"
[ "$(cat "$M/Dir/n")" = new ] || fail "dir/n is not Dir/n"
check "dir/n made" "$(expected README=upper-case Dir/n=new)"

start
rm -r "$M/dir" || fail "rm -r dir"
gone Dir dir DIR
check "rm -r dir" "$(expected README=upper-case -Dir)"

start
mkdir "$M/Dir2" || fail "mkdir Dir2"
expect ENOTEMPTY rename "$M/Dir2" "$M/dir"
rmdir "$M/Dir2" || fail "rmdir Dir2"
expect EXDEV rename "$M/dir" "$M/elsewhere"   # merged: mv copies, as on overlayfs
cfs_umount

# Twins in the bottom layer under a layer holding another spelling of the
# group: that layer's name is what the view shows, before and after a
# change to it; a remount shows what the view showed.
rm -rf "$L" "$L2" "$U" "$W"
mkdir -p "$L" "$L2" "$U" "$W"
echo middle >"$L/ReadMe"
echo upper-case >"$L2/README"
echo lower-case >"$L2/readme"
ovl_mount "lowerdir=$L:$L2,upperdir=$U,workdir=$W" overlay
[ "$(names "$M")" = ReadMe ] || fail "three spellings, two layers: $(names "$M" | tr '\n' ' ')"
echo more >>"$M/README" || fail "append README"
[ "$(cat "$M/readme")" = "$(printf 'middle\nmore')" ] || fail "append reached $(cat "$M/readme")"
check "twins below another spelling, appended" "$(printf 'ReadMe|f|644|12|\n%s  ./ReadMe' \
	"$(printf 'middle\nmore\n' | sha256sum | cut -d' ' -f1)")"

# The issue's mod: Textures/ and textures/, readme.txt and ReadMe.txt,
# over a game folder, with an upper layer.  The directory's number is its
# smallest spelling's in the bottom layer that holds it, after a remount too.
rm -rf "$L" "$L2" "$U" "$W"
mkdir -p "$L/Textures" "$L/textures" "$L2/Data" "$U" "$W"
echo a >"$L/Textures/a.dds" && echo b >"$L/textures/b.dds"
echo r1 >"$L/readme.txt" && echo r2 >"$L/ReadMe.txt" && echo g >"$L2/Data/g"
ovl_mount "lowerdir=$L:$L2,upperdir=$U,workdir=$W" overlay
[ "$(names "$M" | tr '\n' ' ')" = "Data ReadMe.txt Textures " ] || fail "the mod's root: $(names "$M" | tr '\n' ' ')"
[ "$(names "$M/TEXTURES" | tr '\n' ' ')" = "a.dds b.dds " ] || fail "TEXTURES: $(names "$M/TEXTURES" | tr '\n' ' ')"
[ "$(cat "$M/TEXTURES/b.dds")" = b ] || fail "TEXTURES/b.dds"
ino=$(stat -c %i "$L/Textures")
[ "$(stat -c %i "$M/textures")" = "$ino" ] || fail "textures shows $(stat -c %i "$M/textures"), not Textures' $ino"
rm "$M/readme.txt" || fail "rm readme.txt"
gone README.TXT ReadMe.txt readme.txt
cd / && cfs_umount
ovl_mount "lowerdir=$L:$L2,upperdir=$U,workdir=$W" overlay
gone README.TXT
[ "$(stat -c %i "$M/TEXTURES")" = "$ino" ] || fail "after a remount, Textures shows $(stat -c %i "$M/TEXTURES")"
cfs_umount
echo "twins: one entry a group, every change live and after a remount as expected"

#!/usr/bin/env bash
# A mod stack's layers given by a file and changed while mounted (issue 43):
# -o layers=FILE with 200 layers (relative paths, from the file's
# directory), and one more added live, which opens that one alone (the
# daemon's 256 descriptors hold 200 layers, not 401); then, on a view of a
# game and two mods, `casefold view MNT
# layers` adds, removes and reorders mods live: after each change a lookup
# by another spelling sees the new winner, a miss looked up before the
# change finds the name a new mod brings, a file open across the changes
# reads what it opened, what was written (a copy-up, a whiteout) stays on
# top, a listing open across a change is one listing (before or after, no
# name twice), and the view equals what a remount with the final layers
# file shows.  As root, another user is refused, and overlapping layers
# are refused as at mount time.
. "$(dirname "$0")/lib.sh"

CLI=$CF_BUILD/casefold
[ -x "$CLI" ] || skip "no casefold tool in $CF_BUILD"
S=$T/stack U=$T/upper W=$T/work

# ---- -o layers=FILE: many layers, by relative paths.
mkdir -p "$S"
for i in $(seq 1 200); do
	mkdir -p "$S/mod$i/Data"
	echo "mod$i" >"$S/mod$i/Data/mod$i.txt"
	echo "$i" >"$S/mod$i/Data/Shared.txt"
	echo "mod$i"
done >"$S/layers"
ovl_mount "layers=$S/layers"
[ "$(cat "$M/DATA/shared.TXT")" = 1 ] || fail "layers=FILE: the top layer does not win"
[ "$(cat "$M/data/MOD150.txt")" = mod150 ] || fail "layers=FILE: layer 150 not reached"
[ "$(ls "$M/Data" | wc -l)" = 201 ] || fail "layers=FILE: $(ls "$M/Data" | wc -l) names, not 201"
# A change opens only the layers new to the stack: 200 layers and one more
# within the daemon's 256 descriptors (each layer is one).
mkdir -p "$S/mod201/data" && echo 201 >"$S/mod201/data/SHARED.txt"
"$CF_BUILD/casefold" view "$M" layers --add "$S/mod201" || fail "a layer added to 200 within 256 descriptors"
[ "$(cat "$M/DATA/shared.TXT")" = 201 ] || fail "the layer added on top of 200 does not win"
cfs_umount
got=$(ovl_try "layers=$S/layers,lowerdir=$S/mod1" "$M")
case $got in "status "[1-9]*"two ways"*) ;; *) fail "lowerdir and layers together: $got" ;; esac
echo missing >>"$S/layers"
got=$(ovl_try "layers=$S/layers" "$M")
case $got in "status "[1-9]*"missing"*) ;; *) fail "a missing layer in the file: $got" ;; esac
rm -rf "$S"

# ---- Live changes.
G=$T/game A=$T/modA Bm=$T/modB
mkdir -p "$G/Data/Textures" "$A/DATA/textures" "$Bm/data/TEXTURES" "$U" "$W"
echo game >"$G/Data/Game.esp"
echo base >"$G/Data/shared.txt"
echo g >"$G/Data/Textures/g.dds"
echo A >"$A/DATA/textures/a.dds"
echo Ash >"$A/DATA/SHARED.TXT"
echo B >"$Bm/data/TEXTURES/b.dds"
echo Bsh >"$Bm/data/Shared.txt"
echo wiped >"$Bm/data/Wiped.txt"
echo wiped-base >"$G/Data/wiped.txt"
for i in $(seq 1 1500); do echo "$i" >"$Bm/data/TEXTURES/many$i.dds"; done
printf '%s\n' "$A" "$G" >"$T/layers"
ovl_mount "layers=$T/layers,upperdir=$U,workdir=$W"

change() { "$CLI" view "$M" layers "$@" || fail "casefold view $M layers $*: status $?"; }
expect_file() { # PATH CONTENT WHEN
	local got
	got=$(cat "$1" 2>&1)
	[ "$got" = "$2" ] || fail "$3: $1 reads '$got', not '$2'"
}

expect_file "$M/data/shared.txt" Ash "before"
expect_file "$M/DATA/GAME.ESP" game "before"
stat "$M/data/textures/B.DDS" >/dev/null 2>&1 && fail "b.dds before modB"
exec 3<"$M/data/shared.txt"
rm "$M/data/WIPED.TXT"              # a whiteout in the upper layer
echo more >>"$M/Data/Game.esp"      # a copy-up

change --add "$Bm"                  # on top
expect_file "$M/data/textures/B.DDS" B "modB added (a miss before)"
expect_file "$M/data/shared.txt" Bsh "modB added"
expect_file "$M/DATA/textures/A.dds" A "modB added"
[ ! -e "$M/data/wiped.txt" ] || fail "a whiteout does not hide a layer added below it"
expect_file "$M/data/game.esp" "game
more" "modB added"
[ "$(ls "$M/Data/Textures" | grep -ci '^b.dds$')" = 1 ] || fail "b.dds listed $(ls "$M/Data/Textures" | grep -ci '^b.dds$') times"

change --remove modA
expect_file "$M/data/Shared.txt" Bsh "modA removed"
[ ! -e "$M/data/textures/a.dds" ] || fail "a.dds after modA's removal"
[ "$(cat <&3)" = Ash ] || fail "the file open across the changes does not read what it opened"
stat -L "/proc/$$/fd/3" >/dev/null || fail "fstat of a file open across the changes"
exec 3<&-

change --add "$A" --above game     # reordered: below modB, above the game
expect_file "$M/data/shared.txt" Bsh "modA back below modB"
expect_file "$M/data/textures/a.dds" A "modA back"
printf '%s\n' "$A" "$Bm" "$G" >"$T/layers2"
change --set "$T/layers2"           # modA over modB
expect_file "$M/data/SHARED.txt" Ash "modA over modB"

# A listing open across a change: one listing, before or after.
python3 - "$M/Data/Textures" "$CLI" "$M" "$T/layers" <<'PY' || fail "a listing across a change"
import os, subprocess, sys
d, cli, mnt, layers = sys.argv[1:]
before = set(os.listdir(d))
it = os.scandir(d)
first = [next(it).name for _ in range(50)]
subprocess.run([cli, 'view', mnt, 'layers', '--set', layers], check=True)  # modB goes
rest = [e.name for e in it]
after = set(os.listdir(d))
got = first + rest
folded = [n.lower() for n in got]
if len(folded) != len(set(folded)):
    sys.exit('a name listed twice')
if set(got) not in (before, after):
    sys.exit('a mix: %d names, %d before, %d after' % (len(got), len(before), len(after)))
if before == after:
    sys.exit('the change changed nothing')
PY
[ ! -e "$M/data/textures/b.dds" ] || fail "b.dds after modB's removal by --set"

# The view as live changes left it is the view a remount gives.
live=$(view "$M")
cd / || fail cd
cfs_umount
ovl_mount "layers=$T/layers,upperdir=$U,workdir=$W"
[ "$(view "$M")" = "$live" ] || fail "live and remounted differ: $(diff <(echo "$live") <(view "$M"))"

# Refused: a layer inside the view or the upper layer, an unknown one.
"$CLI" view "$M" layers --add "$U" 2>"$T/err" && fail "the upper layer added as a lower one"
grep -q overlap "$T/err" || fail "no reason for refusing the upper layer: $(cat "$T/err")"
"$CLI" view "$M" layers --remove nosuch 2>"$T/err" && fail "an unknown layer removed"
grep -q 'not a lower layer' "$T/err" || fail "unknown layer: $(cat "$T/err")"
"$CLI" view "$M" layers --remove modA 2>/dev/null || fail "modA"
"$CLI" view "$M" layers --remove game 2>"$T/err" && fail "the last lower layer removed"
cfs_umount

# As root: another user may not change root's view (allow_other lets it in).
if [ "$(id -u)" = 0 ]; then
	ovl_mount "layers=$T/layers,upperdir=$U,workdir=$W,allow_other"
	chmod 755 "$T"
	reachable_copy "$CLI"
	cli=${CF_REACHABLE:+$CF_REACHABLE/casefold}
	setpriv --reuid=65534 --regid=65534 --clear-groups "${cli:-$CLI}" view "$M" layers \
		--remove modA 2>"$T/err" && fail "uid 65534 changed root's view"
	grep -q 'only the user who mounted it' "$T/err" || fail "refusal: $(cat "$T/err")"
	expect_file "$M/data/textures/a.dds" A "after the refusal"
	cfs_umount
fi
echo "ok: layers=FILE (200 layers), add/remove/reorder/set live, listing, remount, refusals"

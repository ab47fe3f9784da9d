#!/usr/bin/env bash
# The mod scenario of issue 25: a game tree under 50 mods written on
# Windows, which spell the shared directories each their own way
# (Data/Textures, data/textures, DATA/TEXTURES, Data/textures) and override
# each other's files and the game's.  Through one casefoldfs view: one Data,
# one Textures; every file from the highest mod that has it (mods listed
# top first, as lowerdir= wants: mod 50 wins); the top one's spelling; a
# file edited through the view (copied up, the mods untouched); a file
# deleted (whited out, though eleven layers have it); Windows programs
# under Wine opening files by other spellings (skipped without Wine).
. "$(dirname "$0")/lib.sh"

G=$T/game U=$T/upper W=$T/work MODS=50
SP=(Data/Textures data/textures DATA/TEXTURES Data/textures)
mkdir -p "$G/Data/Textures" "$G/Data/Meshes" "$U" "$W"
echo "game sky" >"$G/Data/Textures/sky.dds"
echo "game ground" >"$G/Data/Textures/ground.dds"
echo "game rock" >"$G/Data/Meshes/rock.nif"
echo "game esm" >"$G/Data/Skyrim.esm"
# What the view must show, worked out while the mods are made (a later mod
# is higher, so it overwrites): winner[NAME]=CONTENT, spelled[NAME]=SPELLING.
declare -A winner spelled
lowers=
for i in $(seq "$MODS"); do
	mod=$T/mods/mod$i tex=${SP[i % 4]}
	data=${tex%%/*}
	mkdir -p "$mod/$tex"
	k=$((i % 10)) a="armor_$((i % 10)).dds"
	((i % 2)) && a=${a^^}
	echo "mod $i $a" >"$mod/$tex/$a"
	winner[armor_$k.dds]="mod $i $a" spelled[armor_$k.dds]=$a
	if ((i % 5 == 0)); then
		echo "mod $i sky" >"$mod/$tex/Sky.dds"
		winner[sky.dds]="mod $i sky" spelled[sky.dds]=Sky.dds
	fi
	echo "mod $i esp" >"$mod/$data/Mod$i.esp"
	if ((i % 3 == 0)); then
		mkdir -p "$mod/$data/meshes/Armor"
		echo "mod $i cuirass" >"$mod/$data/meshes/Armor/cuirass_$((i % 7)).nif"
		winner[cuirass_$((i % 7)).nif]="mod $i cuirass"
	fi
	lowers=$mod${lowers:+:$lowers}
done
lowers=$lowers:$G
winner[ground.dds]="game ground" spelled[ground.dds]=ground.dds
# Mod 50 spells Data/Textures DATA/TEXTURES; the highest mod with meshes (48) "meshes".
DATA=DATA TEX=TEXTURES
snap() { tree_state "$T/mods"; tree_state "$G"; }
before=$(snap)

start=$(date +%s%N)
ovl_mount "lowerdir=$lowers,upperdir=$U,workdir=$W" mods
echo "mounted 51 layers in $(( ($(date +%s%N) - start) / 1000000 )) ms"
cd "$M" || fail "cd"

# One Data, one Textures, spelled by the top layer that has them.
[ "$(names . | tr '\n' ' ')" = "$DATA " ] || fail "the root lists $(names . | tr '\n' ' ')"
want_data=$( (printf '%s\n' "$TEX" meshes Skyrim.esm; seq -f 'Mod%g.esp' "$MODS") | LC_ALL=C sort | tr '\n' ' ')
[ "$(names data | tr '\n' ' ')" = "$want_data" ] || fail "Data lists $(names data | tr '\n' ' ')"
want_tex=$(for n in "${!spelled[@]}"; do echo "${spelled[$n]}"; done | LC_ALL=C sort | tr '\n' ' ')
[ "$(names data/textures | tr '\n' ' ')" = "$want_tex" ] ||
	fail "Textures lists $(names data/textures | tr '\n' ' '), not $want_tex"
# Every file by three spellings: the highest mod's.
for n in "${!winner[@]}"; do
	case $n in cuirass*) p=Data/Meshes/Armor/$n ;; *) p=Data/Textures/$n ;; esac
	for s in "$p" "${p^^}" "${p,,}"; do
		[ "$(cat "$s")" = "${winner[$n]}" ] || fail "$s reads \"$(cat "$s" 2>&1)\", not \"${winner[$n]}\""
	done
done
[ "$(cat data/MESHES/Rock.NIF)" = "game rock" ] && [ "$(cat DATA/skyrim.ESM)" = "game esm" ] ||
	fail "the game's own files by other spellings"
for i in 1 17 50; do [ "$(cat "data/MOD$i.ESP")" = "mod $i esp" ] || fail "Mod$i.esp"; done
entries=$(find . | wc -l)
echo "the view: $entries entries over $((MODS + 1)) layers"

# Edited through the view: copied up with the view's spellings.
echo "patched" >>data/textures/Armor_3.dds
[ "$(cat DATA/TEXTURES/ARMOR_3.DDS)" = "$(printf '%s\npatched' "${winner[armor_3.dds]}")" ] || fail "the edit"
up=$U/$DATA/$TEX/${spelled[armor_3.dds]}
[ "$(cat "$up" 2>/dev/null)" = "$(printf '%s\npatched' "${winner[armor_3.dds]}")" ] ||
	fail "the edit is not in $up: $(cd "$U" && find . | tr '\n' ' ')"
# Deleted: whited out, though the game and ten mods have it.
rm Data/Textures/SKY.DDS
expect ENOENT stat data/textures/sky.dds
names data/textures | grep -qix sky.dds && fail "sky.dds still listed"
is_whiteout "$U/$DATA/$TEX/$(folded_entry "$U/$DATA/$TEX" sky.dds)" || fail "no whiteout for sky.dds"
[ "$(find . | wc -l)" = $((entries - 1)) ] || fail "the view holds $(find . | wc -l) entries after one deletion"
cd /
[ "$(snap)" = "$before" ] || fail "a mod or the game changed"

# ---- Wine: Windows programs open the mods' files through the view by
# other spellings (as tests/clients/wine.sh does on a plain mount).
WINE= why=
for w in /usr/lib/wine/wine64 wine64 wine; do WINE=$(command -v "$w") && break; done
if [ -z "$WINE" ]; then
	why="no wine64 (scripts/install-deps --tests)"
else
	WINESERVER=$(dirname "$WINE")/wineserver
	[ -x "$WINESERVER" ] || WINESERVER=$(command -v wineserver) || why="no wineserver next to $WINE"
	command -v x86_64-w64-mingw32-gcc >/dev/null || why="no x86_64-w64-mingw32-gcc"
fi
if [ -z "$why" ]; then
	x86_64-w64-mingw32-gcc -std=c11 -O2 -Wall -Wextra -Werror -o "$T/winprobe.exe" \
		"$CF_ROOT/tests/clients/wine/winprobe.c" || fail "cannot build winprobe.exe"
	# Headless, private, no Mono/Gecko installers (as tests/clients/wine.sh).
	export WINEPREFIX=$T/wineprefix HOME=$T/home WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
	unset DISPLAY WAYLAND_DISPLAY XDG_CONFIG_HOME XDG_DATA_HOME XDG_CACHE_HOME
	mkdir -p "$HOME" "$WINEPREFIX"
	if ! "$WINESERVER" -p; then
		why="wineserver does not start"
	else
		at_exit "'$WINESERVER' -k 2>/dev/null"
		timeout 120 "$WINE" wineboot -i >"$T/wineboot.log" 2>&1 ||
			why="wine cannot make a prefix here: $(tail -n 1 "$T/wineboot.log")"
	fi
fi
if [ -n "$why" ]; then
	echo "SKIP (the Wine part only): $why"
else
	probe() { timeout 60 "$WINE" "$T/winprobe.exe" "$@"; }
	V="Z:${M//\//\\}"   # the view's Windows path (Z: is /)
	probe open "$V\\data\\TEXTURES\\ARMOR_7.dds" "$V\\Data\\textures\\Armor_3.DDS" \
		"$V\\DATA\\meshes\\ARMOR\\Cuirass_0.NIF" "$V\\data\\Skyrim.ESM" "$V\\DATA\\Textures\\sky.dds" \
		>"$T/open" || fail "winprobe open: $(cat "$T/open")"
	cat >"$T/want" <<WANT
$V\\data\\TEXTURES\\ARMOR_7.dds ok ${winner[armor_7.dds]}
$V\\Data\\textures\\Armor_3.DDS ok ${winner[armor_3.dds]}
$V\\DATA\\meshes\\ARMOR\\Cuirass_0.NIF ok ${winner[cuirass_0.nif]}
$V\\data\\Skyrim.ESM ok game esm
$V\\DATA\\Textures\\sky.dds ERROR_FILE_NOT_FOUND
WANT
	diff "$T/want" "$T/open" >&2 || fail "Wine's opens through the view"
	probe list "$V\\data\\Textures" >"$T/list" || fail "winprobe list"
	[ "$(LC_ALL=C sort "$T/list" | tr '\n' ' ')" = "$(names "$M/data/textures" | tr '\n' ' ')" ] ||
		fail "FindFirstFile in Textures: $(tr '\n' ' ' <"$T/list")"
	# OPEN_ALWAYS by another spelling: the game's file, copied up, appended to.
	got=$(probe create always "$V\\DATA\\TEXTURES\\GROUND.DDS" wine)
	[ "$got" = "$V\\DATA\\TEXTURES\\GROUND.DDS opened existing" ] || fail "OPEN_ALWAYS of a lower file: $got"
	[ "$(cat "$U/$DATA/$TEX/ground.dds" 2>/dev/null)" = "$(printf 'game ground\nwine')" ] ||
		fail "Wine's write did not copy up ground.dds: $(cd "$U" && find . | tr '\n' ' ')"
	"$WINESERVER" -k 2>/dev/null
	echo "wine: opens, a listing and a write through the view by other spellings: ok"
fi
[ "$(snap)" = "$before" ] || fail "a mod or the game changed"
cfs_umount
echo "view/mods: ok"

#!/usr/bin/env bash
# A mounted view's upper layer switched live (issue 43): `casefold view MNT
# layers --upper DIR --workdir W`, with --set FILE a profile switch (another
# order, another overwrite folder) in one change.  After it, what was
# written in the old upper layer (a new file, a copy-up, a whiteout) is
# gone from the view and the new upper layer's names show, a miss looked
# up before finding one of them; a file open for writing in the old upper
# layer keeps writing there, one open for reading keeps reading, and one
# removed while open (kept by a name in the old work directory) keeps its
# object while the old work directory is left empty; new writes go to the
# new upper layer; the view equals what a remount with the new options
# shows.  Refused: an upper layer inside a lower one, a work directory on
# another filesystem, an upper layer for a view mounted read-only, --upper
# without --workdir, and (as root) another user.
. "$(dirname "$0")/lib.sh"

CLI=$CF_BUILD/casefold
[ -x "$CLI" ] || skip "no casefold tool in $CF_BUILD"
G=$T/game A=$T/modA Bm=$T/modB U1=$T/upper1 W1=$T/work1 U2=$T/upper2 W2=$T/work2
mkdir -p "$G/Data" "$A/DATA" "$Bm/data" "$U1" "$W1" "$U2/Data" "$W2"
echo game >"$G/Data/Game.esp"
echo wiped-base >"$G/Data/wiped.txt"
echo Ash >"$A/DATA/SHARED.TXT"
echo B >"$Bm/data/b.dds"
echo p2 >"$U2/Data/Shared.txt"   # the second profile's overwrite folder
echo two >"$U2/Data/Profile2.txt"
printf '%s\n' "$A" "$G" >"$T/layers1"
printf '%s\n' "$Bm" "$A" "$G" >"$T/layers2"
ovl_mount "layers=$T/layers1,upperdir=$U1,workdir=$W1"

change() { "$CLI" view "$M" layers "$@" || fail "casefold view $M layers $*: status $?"; }
expect_file() { # PATH CONTENT WHEN
	local got
	got=$(cat "$1" 2>&1)
	[ "$got" = "$2" ] || fail "$3: $1 reads '$got', not '$2'"
}

# The first profile writes: a new file, a copy-up, a whiteout.
echo one >"$M/data/Written.txt"
echo more >>"$M/Data/game.ESP"
rm "$M/data/WIPED.txt"
expect_file "$M/data/shared.txt" Ash "before"
exec 3<"$M/data/written.txt"          # open for reading in the old upper layer
exec 4>>"$M/data/Log.txt"             # open for writing there
echo first >&4
echo kept >"$M/data/Kept.txt"
exec 5<"$M/data/kept.txt"
rm "$M/data/KEPT.txt"                 # removed while open: kept by a name in work1
[ -n "$(ls -A "$W1/work")" ] || fail "no name kept in the work directory for the open file"
stat "$M/data/PROFILE2.txt" >/dev/null 2>&1 && fail "profile2.txt before the switch"

change --set "$T/layers2" --upper "$U2" --workdir "$W2"   # a profile switch
[ ! -e "$M/data/written.txt" ] || fail "the old upper layer's new file still shows"
expect_file "$M/DATA/GAME.esp" game "the old upper layer's copy-up gone"
expect_file "$M/data/Wiped.txt" wiped-base "the old upper layer's whiteout gone"
expect_file "$M/data/profile2.TXT" two "the new upper layer's file (a miss before)"
expect_file "$M/data/shared.txt" p2 "the new upper layer wins"
expect_file "$M/data/B.dds" B "the new lower order"
[ ! -e "$M/data/log.txt" ] || fail "the old upper layer's open file still shows"

echo second >&4
exec 4>&-
expect_file "$U1/DATA/Log.txt" "first
second" "the file open for writing across the switch"
[ ! -e "$U2/Data/Log.txt" ] || fail "the open file's writes went to the new upper layer"
[ "$(cat <&3)" = one ] || fail "the file open for reading across the switch"
exec 3<&-
[ "$(cat <&5)" = kept ] || fail "the removed open file across the switch"
stat -L "/proc/$$/fd/5" >/dev/null || fail "fstat of the removed open file across the switch"
[ -z "$(ls -A "$W1/work")" ] || fail "left in the old work directory: $(ls -A "$W1/work")"
exec 5<&-

echo new >"$M/data/New.txt"           # writes go to the new upper layer
expect_file "$U2/Data/New.txt" new "a file made after the switch"
[ ! -e "$U1/DATA/New.txt" ] || fail "a file made after the switch went to the old upper layer"
echo more2 >>"$M/data/game.esp"
expect_file "$U2/Data/Game.esp" "game
more2" "a copy-up after the switch"

# The view the live switch left is the one a remount gives.
live=$(view "$M")
cd / || fail cd
cfs_umount
ovl_mount "layers=$T/layers2,upperdir=$U2,workdir=$W2"
[ "$(view "$M")" = "$live" ] || fail "live and remounted differ: $(diff <(echo "$live") <(view "$M"))"

# Back to the first profile, by --upper alone (the lower layers stay), with
# the work directory the view already uses.
change --upper "$U1" --workdir "$W2"
expect_file "$M/data/written.txt" one "back to the first upper layer"
[ ! -e "$M/data/new.txt" ] || fail "the second upper layer's file after switching back"
expect_file "$M/data/B.dds" B "--upper alone keeps the lower layers"

# Refused, each leaving the view as it was.
mkdir -p "$A/inside" "$T/w3"
"$CLI" view "$M" layers --upper "$A/inside" --workdir "$T/w3" 2>"$T/err" &&
	fail "an upper layer inside a lower one"
grep -q overlap "$T/err" || fail "upper inside a lower layer: $(cat "$T/err")"
"$CLI" view "$M" layers --upper "$U2" 2>"$T/err" && fail "--upper without --workdir"
grep -q 'needs --workdir' "$T/err" || fail "--upper without --workdir: $(cat "$T/err")"
other=
for d in /dev/shm /run/user/$(id -u) /tmp; do
	if [ -d "$d" ] && [ -w "$d" ] && [ "$(stat -c %d "$d")" != "$(stat -c %d "$T")" ]; then
		other=$(mktemp -d "$d/cfs-work.XXXXXX") && break
	fi
done
if [ -n "$other" ]; then
	at_exit "rm -rf '$other'"
	"$CLI" view "$M" layers --upper "$U2" --workdir "$other" 2>"$T/err" &&
		fail "a work directory on another filesystem"
	grep -q "not on the upper layer's filesystem" "$T/err" || fail "workdir elsewhere: $(cat "$T/err")"
fi
expect_file "$M/data/written.txt" one "after the refusals"
cfs_umount

ovl_mount "layers=$T/layers1"
"$CLI" view "$M" layers --upper "$U2" --workdir "$W2" 2>"$T/err" &&
	fail "an upper layer given to a read-only view"
grep -q 'read-only' "$T/err" || fail "read-only view: $(cat "$T/err")"
cfs_umount

# As root: another user may not switch root's view (allow_other lets it in).
if [ "$(id -u)" = 0 ]; then
	ovl_mount "layers=$T/layers1,upperdir=$U1,workdir=$W1,allow_other"
	chmod 755 "$T"
	reachable_copy "$CLI"
	cli=${CF_REACHABLE:+$CF_REACHABLE/casefold}
	setpriv --reuid=65534 --regid=65534 --clear-groups "${cli:-$CLI}" view "$M" layers \
		--upper "$U2" --workdir "$W2" 2>"$T/err" && fail "uid 65534 switched root's upper layer"
	grep -q 'only the user who mounted it' "$T/err" || fail "refusal: $(cat "$T/err")"
	expect_file "$M/data/written.txt" one "after the refusal"
	cfs_umount
fi
echo "ok: upper layer and profile switched live, open files, old work directory, remount, refusals"

#!/usr/bin/env bash
# Names a change of layers leaves alone keep the kernel's cached entries
# (issue 43): 50 files of the game, looked up before by another spelling
# than the view's (as a game's engine asks for them: data/F1.ESP where the
# view shows DATA/f1.esp), are looked up again after a mod is added on top
# and after the upper layer is switched, with no LOOKUP (counted in the
# daemon's request log, -d, as tests/kernel/requests.sh counts); a name whose
# winner changed shows the new winner: one looked up before by another
# spelling, and a miss looked up before that the new mod fills.  The mod
# spells the game's folder otherwise again (data): the directory the view
# shows is the same one, under the top layer's spelling, and keeps its
# entries.  The daemon names each other spelling and miss it handed out
# for a changed name (fs/view/handed.c); the kernel's epoch, which would
# expire every dentry, is not used.  One spelling of the directory
# throughout: the kernel keeps one dentry per directory inode, which a
# lookup by another spelling moves, and so does a listing (to the shown
# one: each listing is followed by the game's lookups, uncounted).
. "$(dirname "$0")/lib.sh"

CLI=$CF_BUILD/casefold
[ -x "$CLI" ] || skip "no casefold tool in $CF_BUILD"
G=$T/game A=$T/modA Bm=$T/modB U1=$T/upper1 W1=$T/work1 U2=$T/upper2 W2=$T/work2
mkdir -p "$G/Data" "$A/DATA" "$Bm/data" "$U1" "$W1" "$U2/DATA" "$W2"
for i in $(seq 1 50); do echo "$i" >"$G/Data/f$i.esp"; done
echo Ash >"$A/DATA/Shared.txt"
echo B >"$Bm/data/b.dds"
echo p2 >"$U2/DATA/Shared.txt"
printf '%s\n' "$A" "$G" >"$T/layers"
ovl_mount "layers=$T/layers,upperdir=$U1,workdir=$W1" -d

# lookups COMMAND...: how many LOOKUP requests COMMAND made.
lookups() {
	local before
	quiet_log
	before=$(stat -c %s "$T/daemon.log")
	"$@" >/dev/null 2>&1
	quiet_log
	tail -c +$((before + 1)) "$T/daemon.log" | grep -ac 'opcode: LOOKUP'
}
game() { for i in $(seq 1 50); do stat "$M/data/F$i.ESP" || return 1; done; }
shown() { # SPELLING: the game's folder is listed so (then looked up again)
	[ "$(ls "$M")" = "$1" ] || fail "the game's folder is listed as $(ls "$M"), not $1"
	game >/dev/null || fail "the game's files"
}
change() { "$CLI" view "$M" layers "$@" || fail "casefold view $M layers $*: status $?"; }

# Two passes to warm up: after the first, right after mounting, one name
# is looked up again (not investigated: it is not the change's).
game >/dev/null || fail "the game's files"
game >/dev/null || fail "the game's files"
n=$(lookups game)
[ "$n" = 0 ] || fail "$n LOOKUPs: the game's files looked up again with nothing changed"

stat "$M/data/B.DDS" 2>/dev/null && fail "b.dds before modB"    # a miss the kernel keeps
[ "$(cat "$M/data/SHARED.TXT")" = Ash ] || fail "modA's shared.txt"
shown DATA

change --add "$Bm"    # its data folder merges into DATA, now shown as data
n=$(lookups game)
[ "$n" = 0 ] || fail "$n LOOKUPs of 50 untouched names after a mod was added on top"
[ "$(cat "$M/data/B.DDS")" = B ] || fail "b.dds after modB was added (a miss before)"
shown data

change --upper "$U2" --workdir "$W2"
n=$(lookups game)
[ "$n" = 0 ] || fail "$n LOOKUPs of 50 untouched names after the upper layer was switched"
[ "$(cat "$M/data/SHARED.TXT")" = p2 ] || fail "the new upper layer's shared.txt (another spelling before)"
cd / || fail cd
cfs_umount
echo "ok: untouched names keep their cached entries across a lower change and an upper switch, other spellings and misses handed out included"

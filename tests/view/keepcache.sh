#!/usr/bin/env bash
# Names a change of layers leaves alone keep the kernel's cached entries
# (issue 43): 50 files of the game, looked up before, are looked up again
# after a mod with its own Data folder is added on top, and after the upper
# layer is switched, with no LOOKUP (counted in the daemon's request log,
# -d, as tests/kernel/requests.sh counts); a name whose winner changed is
# looked up again and shows the new winner.  No miss is looked up before
# a change fills it, and the mod and the new upper layer spell Data as the top layer does: either
# makes the change expire every cached name (fs/view/DESIGN.md, "Changing the
# layers": a miss or another spelling handed out is expired by the epoch).  One spelling of the directory
# throughout: the kernel keeps one dentry per directory inode, so a lookup
# by another spelling moves it.
. "$(dirname "$0")/lib.sh"

CLI=$CF_BUILD/casefold
[ -x "$CLI" ] || skip "no casefold tool in $CF_BUILD"
G=$T/game A=$T/modA Bm=$T/modB U1=$T/upper1 W1=$T/work1 U2=$T/upper2 W2=$T/work2
mkdir -p "$G/Data" "$A/DATA" "$Bm/DATA" "$U1" "$W1" "$U2/DATA" "$W2"
for i in $(seq 1 50); do echo "$i" >"$G/Data/f$i.esp"; done
echo Ash >"$A/DATA/Shared.txt"
echo B >"$Bm/DATA/b.dds"
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
game() { for i in $(seq 1 50); do stat "$M/DATA/f$i.esp" || return 1; done; }
change() { "$CLI" view "$M" layers "$@" || fail "casefold view $M layers $*: status $?"; }

# Two passes to warm up: after the first, right after mounting, one name
# is looked up again (not investigated: it is not the change's).
game >/dev/null || fail "the game's files"
game >/dev/null || fail "the game's files"
n=$(lookups game)
[ "$n" = 0 ] || fail "$n LOOKUPs: the game's files looked up again with nothing changed"

change --add "$Bm"    # its data folder merges into Data, now from another top layer
n=$(lookups game)
[ "$n" = 0 ] || fail "$n LOOKUPs of 50 untouched names after a mod was added on top"
[ "$(cat "$M/DATA/b.dds")" = B ] || fail "b.dds after modB was added"

change --upper "$U2" --workdir "$W2"
n=$(lookups game)
[ "$n" = 0 ] || fail "$n LOOKUPs of 50 untouched names after the upper layer was switched"
[ "$(cat "$M/DATA/shared.txt")" = p2 ] || fail "the new upper layer's shared.txt"
cd / || fail cd
cfs_umount
echo "ok: untouched names keep their cached entries across a lower change and an upper switch"

#!/bin/sh
# The overlay section's live mod stack (issue 43; bench/overlay.sh runs it
# after its own tables, and it runs alone too): a view's layers changed
# while it stays mounted, beside fuse-overlayfs, which must be remounted.
# The trees (bench/modgen.py): 1,000 mods of 100 files, each spelling the
# game's folders its own way (Data, data, DATA; Textures, textures, ...),
# over a game of 20,000 files, with an overwrite folder (upper layer) per
# profile.  In one run, each peer in turn, a fresh mount per round:
#   - the mount, and a game's load: open + read + close of every game file,
#     as a game's engine asks for them (in lower case: another spelling
#     than the tree's, one spelling throughout; fuse-overlayfs, which
#     cannot fold, gets the tree's own spelling and a sample, as it looks
#     each name up in every layer), first and second pass;
#   - four changes, one after another: enable one mod (on top), disable
#     one (the middle one), reorder two (exchange them), switch profile
#     (the other order and the other overwrite folder): the time to
#     visible, from issuing the change to the next lookup finding the new
#     winner of a file the change decides (casefoldfs: `casefold view MNT
#     layers`, then the read; fuse-overlayfs: unmount, mount with the new
#     layers, then the read), goal 100 ms; and the load again after each;
#   - 10,000 layers (9,999 small mods over the same game): the mount
#     (goal 2 s), and stat of every game file by another spelling against
#     a one-layer view of the same names: first in lower case, right after
#     mounting (each directory's first use reads it in every layer that
#     holds it: 10,000 for Data), then in upper case and then capitalized,
#     spellings the kernel has no dentry of, so that each name is a lookup
#     the daemon answers from the directories' indexes (goal 1.1×, the two
#     passes' mean), then again (the kernel's dentries); and enabling one
#     more mod.
# Peers go in an order rotated from round to round; cells are medians over
# rounds, ratios medians of per-round ratios.
# Usage: bench/overlay_live.sh BUILD_DIR (as root: mounts).
#
# Knobs:
#   CF_LIVEBENCH_QUICK=1    100 mods, 2,000 game files, 1,000 layers, 1 round
#   CF_LIVEBENCH_MODS=1000  mods in the stack
#   CF_LIVEBENCH_PER=100    files per mod
#   CF_LIVEBENCH_GAME=20000 game files
#   CF_LIVEBENCH_MANY=10000 layers of the many-layer view
#   CF_LIVEBENCH_FOVL=300   files of fuse-overlayfs's load (each costs it a
#                           lookup in every layer: 15 ms at 1,000 layers)
#   CF_LIVEBENCH_ROUNDS=3
#   CF_LIVEBENCH_DAEMON=    a casefoldfs binary to measure instead of BUILD_DIR's
set -u
umask 022
O=${1:-build}
if [ "${CF_LIVEBENCH_QUICK:-}" = 1 ]; then
	d_mods=100 d_game=2000 d_many=1000 d_rounds=1
else
	d_mods=1000 d_game=20000 d_many=10000 d_rounds=3
fi
MODS=${CF_LIVEBENCH_MODS:-$d_mods}
PER=${CF_LIVEBENCH_PER:-100}
GAME=${CF_LIVEBENCH_GAME:-$d_game}
MANY=${CF_LIVEBENCH_MANY:-$d_many}
FOVL=${CF_LIVEBENCH_FOVL:-300}
ROUNDS=${CF_LIVEBENCH_ROUNDS:-$d_rounds}
START=$(date +%s)

. bench/prelude.sh
prelude mounts python3 fuse-overlayfs
prelude_build "$O" "${CF_LIVEBENCH_DAEMON:-}"
make -s O="$O" "$O/casefold" || die "build failed"
CLI=$O/casefold

# Room: the game twice (the many-layer view's one-tree copy), the mods, the
# small mods, a block each, and slack.
TMP=${TMPDIR:-/var/tmp}
files=$((2 * GAME + (MODS + 1) * PER + 4 * MANY))
need_inodes=$((2 * files + 10000))
need_kb=$((4 * files + 256 * 1024))
[ "$(df -Pi "$TMP" | awk 'NR == 2 { print $4 }')" -ge "$need_inodes" ] || die "$TMP: too few inodes free, need $need_inodes"
[ "$(df -Pk "$TMP" | awk 'NR == 2 { print $4 }')" -ge "$need_kb" ] || die "$TMP: too little room, need $need_kb KiB"
# A layer is an open file: the many-layer view needs as many (the daemon
# raises its own limit to the hard one).
nofile=$(awk '$1 == "Max" && $2 == "open" { print $5 }' /proc/self/limits)
[ "$nofile" = unlimited ] || [ "$nofile" -gt $((MANY + 1000)) ] || die "$MANY layers need more than $nofile descriptors"

T=$(mktemp -d "$TMP/casefold-livebench.XXXXXX") || exit 1
S=$T/s MNT=$T/mnt R=$T/records
mkdir "$S" "$MNT"
: >"$R"
PID=
cleanup() {
	unmount_all "$MNT"
	[ -z "$PID" ] || kill "$PID" 2>/dev/null || :
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
note() { echo "overlay_live: $* ($(($(date +%s) - START)) s)" >&2; }
now() { date +%s%N; }
ms_since() { echo "$1 $(now)" | awk '{ printf "%.1f\n", ($2 - $1) / 1e6 }'; }
record() { echo "$round $1 $2 $3" >>"$R"; }

# mount_view OPTIONS | mount_fovl LOWERDIR_FILE UPPER WORK: on $MNT, in the
# foreground as our child, waited for (polled every 10 ms).
mount_view() {
	"$CFS" -f -o "$1" mods "$MNT" 2>>"$T/daemon.log" &
	PID=$!
	wait_mount "$MNT" "$PID" 30000 0.01
}
mount_fovl() {
	fuse-overlayfs -f -o "lowerdir=$(cat "$1"),upperdir=$2,workdir=$3" "$MNT" 2>>"$T/daemon.log" &
	PID=$!
	wait_mount "$MNT" "$PID" 30000 0.01
}
umount_peer() {
	fusermount3 -u "$MNT" || die "fusermount3 -u failed"
	wait "$PID" || die "$1 exited with status $?"
	PID=
}
# load PEER METRIC MODE LIST: fsbench paths through $MNT, µs per path.
load() {
	"$F" paths "$3" "$MNT" "$4" >"$T/out" 2>&1 || { cat "$T/out" >&2; record "$1" failed 1; return; }
	if grep -qx 'errors 0' "$T/out"; then
		record "$1" "$2" "$(awk '$1 == "per" { print $2 }' "$T/out")"
	else
		echo "overlay_live.sh: $1 $2: $(tr '\n' ' ' <"$T/out")" >&2
		record "$1" failed 1
	fi
}
# seen PEER CHANGE PATH CONTENT: the change issued at t0 is visible when
# PATH reads CONTENT (spaces as _); records its time, or a failure if the
# first read after the change does not see it.
seen() {
	got=$(cat "$MNT/$3" 2>&1)
	ms=$(ms_since "$t0")
	if [ "$got" = "$(echo "$4" | tr _ ' ')" ]; then
		record "$1" "$2" "$ms"
	else
		echo "overlay_live.sh: $1 $2: $3 reads '$got' after the change" >&2
		record "$1" failed 1
	fi
}

# ---- The trees.
note "making $MODS mods of $PER files over a game of $GAME, and $MANY layers"
python3 bench/modgen.py stack "$S" "$GAME" "$MODS" "$PER" 43 || die "making the mod stack failed"
python3 bench/modgen.py many "$S" "$MANY" 44 || die "making the many layers failed"
head -n "$FOVL" "$S/game.exact" >"$T/fovl.pick"
tr '[:lower:]' '[:upper:]' <"$S/game.asked" >"$T/game.upper"
sed 's#\(^\|/\)\([a-z]\)#\1\u\2#g' "$S/game.asked" >"$T/game.title"
# Warm the host's caches: every tree read once.
find "$S" -type f -exec cat {} + >/dev/null

# Correctness first: the many-layer view lists what its copy holds.
t0=$(now)
mount_view "layers=$S/many/layers"
(cd "$MNT" && find . -type f | tr '[:upper:]' '[:lower:]' | LC_ALL=C sort) >"$T/many.files"
umount_peer casefoldfs
(cd "$S/many/copy" && find . -type f | tr '[:upper:]' '[:lower:]' | LC_ALL=C sort) >"$T/copy.files"
cmp -s "$T/many.files" "$T/copy.files" ||
	die "the $MANY-layer view and its copy differ: $(diff "$T/copy.files" "$T/many.files" | head -5)"
note "trees made and checked"

cfs() {
	t0=$(now)
	mount_view "layers=$S/stack.start,upperdir=$S/p1,workdir=$S/w1"
	record cfs mount "$(ms_since "$t0")"
	load cfs load1 open "$S/game.asked"
	load cfs load2 open "$S/game.asked"
	while read -r change path content winner; do
		case $change in
		enable) set -- --add "$S/mods/new" ;;
		disable) set -- --remove "m$(printf %04d $((MODS / 2)))" ;;
		swap) set -- --set "$S/stack.swap" ;;
		profile) set -- --set "$S/stack.profile" --upper "$S/p2" --workdir "$S/w2" ;;
		esac
		t0=$(now)
		"$CLI" view "$MNT" layers "$@" || { record cfs failed 1; continue; }
		seen cfs "$change" "$path" "$content"
		load cfs "after_$change" open "$S/game.asked"
	done <"$S/probes"
	umount_peer casefoldfs
}

fovl() {
	t0=$(now)
	mount_fovl "$S/lowerdir.start" "$S/p1" "$S/fw1"
	record fovl mount "$(ms_since "$t0")"
	load fovl load1 open "$T/fovl.pick"
	load fovl load2 open "$T/fovl.pick"
	upper=$S/p1 work=$S/fw1
	while read -r change path content winner; do
		[ "$change" = profile ] && upper=$S/p2 work=$S/fw2
		t0=$(now)
		umount_peer fuse-overlayfs
		mount_fovl "$S/lowerdir.$change" "$upper" "$work"
		seen fovl "$change" "$winner" "$content"
		load fovl "after_$change" open "$T/fovl.pick"
	done <"$S/probes"
	umount_peer fuse-overlayfs
}

many() {
	t0=$(now)
	mount_view "layers=$S/many/layers"
	record many mount "$(ms_since "$t0")"
	load many stat1 stat "$S/game.asked"
	load many stat2 stat "$T/game.upper"
	load many stat2b stat "$T/game.title"
	load many stat3 stat "$T/game.title"
	read -r path content <"$S/many/probe"
	t0=$(now)
	"$CLI" view "$MNT" layers --add "$S/many/new" || record many failed 1
	seen many enable "$path" "$content"
	umount_peer casefoldfs
}

one() {
	t0=$(now)
	mount_view "lowerdir=$S/many/copy"
	record one mount "$(ms_since "$t0")"
	load one stat1 stat "$S/game.asked"
	load one stat2 stat "$T/game.upper"
	load one stat2b stat "$T/game.title"
	load one stat3 stat "$T/game.title"
	umount_peer casefoldfs
}

for round in $(seq "$ROUNDS"); do
	# shellcheck disable=SC2046
	for p in $(rotate "$round" cfs fovl many one); do "$p"; done
	note "round $round done"
done

echo "### A mod stack changed live (issue 43)"
echo
echo "casefoldfs: \`$CFS\`; $(fuse-overlayfs --version 2>/dev/null | sed -n 's/^fuse-overlayfs: //p' | head -1 | sed 's/^/fuse-overlayfs /');" \
	"$MODS mods of $PER files over a game of $GAME files, an overwrite folder per profile;" \
	"the load through fuse-overlayfs: $FOVL of the game's files, by the tree's spelling; backing:" \
	"$(findmnt -no FSTYPE,SOURCE -T "$T") under $TMP; $ROUNDS rounds, a fresh mount per peer and round;" \
	"load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
echo
awk -v mods="$MODS" -v game="$GAME" -v many="$MANY" "$MEDIAN_AWK$ROUNDS_AWK"'
function f(x, fmt) { return x == "" ? "—" : sprintf(fmt, x) }
function met(x, target) { return x == "" ? "" : x <= target ? " (met)" : " **(not met)**" }
function row(what, a, ma, b, mb, fmt, goal, target,   x) {
	x = ratio(a, ma, b, mb)
	printf "| %s | %s | %s | %s | %s%s |\n", what, f(cell(a, ma), fmt), f(cell(b, mb), fmt),
		f(x, "%.2f×"), goal, target == "" ? "" : met(target == "ratio" ? x : cell(a, ma), goal + 0)
}
{
	val[$1, $2, $3] = $4; if ($1 > maxr) maxr = $1; if ($3 == "failed") failed += $4
	if ($3 == "stat2b") { val[$1, $2, "stat2"] = (val[$1, $2, "stat2"] + $4) / 2 }
}
END {
	print "| measurement | casefoldfs | fuse-overlayfs | ratio | goal |"
	print "|---|--:|--:|--:|---|"
	row(sprintf("mount %d mods over the game (ms)", mods), "cfs", "mount", "fovl", "mount", "%.0f", "", "")
	row("load: open + read every game file, µs each, first pass", "cfs", "load1", "fovl", "load1", "%.1f", "", "")
	row("the same, second pass", "cfs", "load2", "fovl", "load2", "%.1f", "", "")
	split("enable disable swap profile", ch, " ")
	split("enable one mod (on top)|disable one mod|reorder two mods|switch profile (order and overwrite folder)", what, "|")
	for (i = 1; i <= 4; i++) {
		row(what[i] ": time to visible (ms; fuse-overlayfs: a remount)", "cfs", ch[i], "fovl", ch[i], "%.1f", "100 ms", "abs")
		row("the load after it, µs each", "cfs", "after_" ch[i], "fovl", "after_" ch[i], "%.1f", "", "")
	}
	print ""
	print "| measurement | " many " layers | one layer | ratio | goal |"
	print "|---|--:|--:|--:|---|"
	row(sprintf("mount (ms): %d layers vs a one-layer view of the same names", many), "many", "mount", "one", "mount", "%.0f", "2000 ms", "abs")
	row(sprintf("stat %d game files in lower case, µs each, right after mounting (every directory read)", game), "many", "stat1", "one", "stat1", "%.1f", "", "")
	row("then in upper case and capitalized: a lookup by another spelling, from the indexes", "many", "stat2", "one", "stat2", "%.1f", "1.1×", "ratio")
	row("then again, cached by the kernel", "many", "stat3", "one", "stat3", "%.1f", "", "")
	row("enable one more mod: time to visible (ms)", "many", "enable", "", "", "%.1f", "100 ms", "abs")
	print ""
	if (failed) printf "Failed measurements: %d (see stderr).\n\n", failed
}' "$R"
echo "Section time: $(($(date +%s) - START)) s."
echo
! grep -q ' failed ' "$R" || die "failed measurements"

#!/bin/sh
# Benchmark section "overlay": casefoldfs overlay views of a mod list (issue
# 25).  500 lower trees with 200,000 files in all, made like mods
# (bench/ovlgen.py: each a few directories of a game's Data tree, the shared
# directories spelled each mod its own way, some files overriding others'),
# and the same view merged into one plain tree (the "copy", filled through a
# casefoldfs mount whose top directory is +F).  In one run, with the issue's
# goals:
#   (a) stat by another spelling: the 500-layer view against a one-tree
#       casefoldfs mount of the copy (≤ 1.5×);
#   (b) listing every merged directory: the view against the one-tree mount
#       (≤ 1.5×);
#   (c) mounting the 500-layer view and `find` of all of it, against `find`
#       over the plain copy (≤ 2×; for scale also against mounting the copy
#       in one tree and `find` through it), and the daemon's VmRSS after it
#       per entry of the view (≤ 300 B; also the growth over the mount's own
#       VmRSS);
#   (d) on a variant with no case conflicts (every mod spells everything the
#       same way): casefoldfs against fuse-overlayfs on the same layers —
#       stat, open + read + close, listing (casefoldfs at least as fast), and
#       the same listing and contents (checked);
#   (e) stat by another spelling in a 10-layer view of the same files against
#       the 500-layer view (≤ 1.5×: flat in the number of layers);
# and (a) and (c) again with the view mounted by an ordinary user (uid
# 65534, its clients that user too), against root's.  Then a mod stack's
# layers changed while mounted: bench/overlay_live.sh (issue 43).
# Stat and open use K files of the view picked at random, listing every
# directory of it; each is a first pass on a fresh mount (every daemon
# builds what it needs: the one-tree mount its directory indexes too) and a
# second pass right after it (the kernel's caches warm).  Goals are judged
# on first passes, where the daemon's own work shows.  The lower trees and
# the copy are read once before anything is timed (the host's caches warm
# for every peer alike).  Peers go in an order rotated from round to round;
# cells are medians over rounds, ratios medians of per-round ratios.
# Usage: bench/overlay.sh BUILD_DIR (as root: mounts).
#
# Knobs:
#   CF_OVLBENCH_QUICK=1     50 layers, 20,000 files, 2,000 picked, 2 rounds
#   CF_OVLBENCH_LAYERS=500  lower trees (mods)
#   CF_OVLBENCH_FILES=200000  files in all
#   CF_OVLBENCH_FEW=10      layers of (e)'s other view
#   CF_OVLBENCH_PICK=20000  files stat'ed and opened per pass
#   CF_OVLBENCH_ROUNDS=3
#   CF_OVLBENCH_DAEMON=     a casefoldfs binary to measure instead of BUILD_DIR's
set -u
umask 022   # the trees readable by the ordinary user's view too
O=${1:-build}
if [ "${CF_OVLBENCH_QUICK:-}" = 1 ]; then
	d_layers=50 d_files=20000 d_pick=2000 d_rounds=2
else
	d_layers=500 d_files=200000 d_pick=20000 d_rounds=3
fi
LAYERS=${CF_OVLBENCH_LAYERS:-$d_layers}
FILES=${CF_OVLBENCH_FILES:-$d_files}
FEW=${CF_OVLBENCH_FEW:-10}
PICK=${CF_OVLBENCH_PICK:-$d_pick}
ROUNDS=${CF_OVLBENCH_ROUNDS:-$d_rounds}
SEED=25
START=$(date +%s)

. bench/prelude.sh
prelude mounts python3 fuse-overlayfs sha256sum
prelude_build "$O" "${CF_OVLBENCH_DAEMON:-}"
GEN="python3 bench/ovlgen.py"

# Room: four sets of the files (the mods, their 10-layer regrouping, the
# conflict-free mods, the copy), a block each, and slack.
TMP=${TMPDIR:-/var/tmp}
need_inodes=$((4 * FILES + FILES / 5 + 10000))
need_kb=$((4 * FILES * 4 + 256 * 1024))
[ "$(df -Pi "$TMP" | awk 'NR == 2 { print $4 }')" -ge "$need_inodes" ] || die "$TMP: too few inodes free, need $need_inodes"
[ "$(df -Pk "$TMP" | awk 'NR == 2 { print $4 }')" -ge "$need_kb" ] || die "$TMP: too little room, need $need_kb KiB"

T=$(mktemp -d "$TMP/casefold-ovlbench.XXXXXX") || exit 1
MNT=$T/mnt UMNT=$T/umnt R=$T/records
mkdir "$MNT" "$UMNT" "$T/mods" "$T/few" "$T/uniform" "$T/copy" "$T/lists" "$T/ulists" "$T/work" "$T/bin"
: >"$R"
PID= MP=$MNT FUSE_MODE=
cleanup() {
	unmount_all "$MNT" "$UMNT"
	[ -z "$PID" ] || kill "$PID" 2>/dev/null || :
	[ -z "$FUSE_MODE" ] || chmod "$FUSE_MODE" /dev/fuse
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
# The ordinary user: a view of trees it can read, on a mount point it owns,
# through /dev/fuse and binaries it can reach (prelude.sh).
chmod 0755 "$T" && chown 65534:65534 "$UMNT" || die "the user's mount point"
prelude_user "$T"
elapsed() { echo $(($(date +%s) - START)); }
note() { echo "overlay: $* ($(elapsed) s)" >&2; }
now() { date +%s.%N; }
since() { echo "$1 $(now)" | awk '{ printf "%.3f\n", $2 - $1 }'; }

# mount_peer PEER: on $MNT ($UMNT for the user's), in the foreground as our
# child (known PID, exit status checked at unmount); sets MP, the mount
# point, ROOT, the directory the lists are relative to, and RUN and FSB, how
# the peer's clients run and the fsbench they can reach.
mount_peer() {
	MP=$MNT RUN= FSB=$F
	case $1 in
	ovl) "$CFS" -f -o "lowerdir=$(cat "$T/mods/lowerdir")" mods "$MNT" 2>>"$T/daemon.log" & ROOT=$MNT ;;
	few) "$CFS" -f -o "lowerdir=$(cat "$T/few/lowerdir")" mods "$MNT" 2>>"$T/daemon.log" & ROOT=$MNT ;;
	one) "$CFS" -f "$T/copy" "$MNT" 2>>"$T/daemon.log" & ROOT=$MNT/m ;;
	uovl) "$CFS" -f -o "lowerdir=$(cat "$T/uniform/lowerdir")" mods "$MNT" 2>>"$T/daemon.log" & ROOT=$MNT ;;
	fovl) fuse-overlayfs -f -o "lowerdir=$(cat "$T/uniform/lowerdir")" "$MNT" 2>>"$T/daemon.log" & ROOT=$MNT ;;
	user)
		# setpriv itself, not as_user: $! must be the daemon (setpriv execs it).
		setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
			"$UCFS" -f -o "lowerdir=$(cat "$T/mods/lowerdir")" mods "$UMNT" 2>>"$T/daemon.log" &
		MP=$UMNT ROOT=$UMNT RUN=as_user FSB=$UF ;;
	esac
	PID=$!
	wait_mount "$MP" "$PID" 30000 0.01   # timed: 10 ms granularity, up to 300 s
}
umount_peer() {
	fusermount3 -u "$MP" || die "fusermount3 -u failed"
	wait "$PID" || die "$1 exited with status $?"
	PID=
}
record() { echo "$round $1 $2 $3" >>"$R"; }
# paths PEER METRIC MODE LIST: fsbench paths through the mounted peer;
# records µs per path, or a failure.
paths() {
	$RUN "$FSB" paths "$3" "$ROOT" "$4" >"$T/out" 2>&1 || { cat "$T/out" >&2; record "$1" failed 1; return; }
	if grep -qx 'errors 0' "$T/out"; then
		record "$1" "$2" "$(awk '$1 == "per" { print $2 }' "$T/out")"
	else
		echo "overlay.sh: $1 $2: $(tr '\n' ' ' <"$T/out")" >&2
		record "$1" failed 1
	fi
}
rss_of() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

# ---- The trees.
note "making $LAYERS mods of $FILES files, their $FEW-layer regrouping, the conflict-free variant"
$GEN layers "$T/mods" "$LAYERS" "$FILES" "$SEED" &
g1=$!
$GEN layers "$T/few" "$LAYERS" "$FILES" "$SEED" --groups "$FEW" &
g2=$!
wait "$g1" && wait "$g2" || die "making the layers failed"
$GEN layers "$T/uniform" "$LAYERS" "$FILES" "$SEED" --uniform || die "making the conflict-free layers failed"
$GEN lists "$T/lists" "$LAYERS" "$FILES" "$SEED" "$PICK" || die "making the lists failed"
$GEN lists "$T/ulists" "$LAYERS" "$FILES" "$SEED" "$PICK" --uniform || die "making the lists failed"
# The copy: through a casefoldfs mount, its top directory +F while empty
# (what the subdirectories made through the mount inherit).
"$CFS" -f "$T/copy" "$MNT" 2>>"$T/daemon.log" &
PID=$!
wait_mount "$MNT" "$PID"
mkdir "$MNT/m" && chattr +F "$MNT/m" || die "chattr +F on the copy"
$GEN merged "$MNT/m" "$LAYERS" "$FILES" "$SEED" || die "making the copy failed"
umount_peer casefoldfs
ENTRIES=$(cat "$T/lists/entries")
note "trees made: $ENTRIES names in the view, $(wc -l <"$T/lists/dirs") directories"
# Warm the host's caches: every tree read once.
for d in "$T/mods" "$T/few" "$T/uniform" "$T/copy"; do find "$d" -type f -exec cat {} + >/dev/null; done

# ---- Correctness first: what each view shows.
mount_peer ovl
(cd "$ROOT" && LC_ALL=C find . -mindepth 1 -type f -printf '%P\n' | LC_ALL=C sort) >"$T/ovl.files"
cmp -s "$T/ovl.files" "$T/lists/files" ||
	die "the $LAYERS-layer view does not list the files of the merge: $(diff "$T/lists/files" "$T/ovl.files" | head -5)"
(cd "$ROOT" && xargs -d '\n' cat <"$T/lists/files") | sha256sum >"$T/ovl.sum"
umount_peer ovl
mount_peer one
(cd "$ROOT" && xargs -d '\n' cat <"$T/lists/files") | sha256sum >"$T/one.sum"
umount_peer one
cmp -s "$T/ovl.sum" "$T/one.sum" || die "the view's contents differ from the copy's"
mount_peer few
(cd "$ROOT" && LC_ALL=C find . -mindepth 1 -type f -printf '%P\n' | LC_ALL=C sort) >"$T/few.files"
(cd "$ROOT" && xargs -d '\n' cat <"$T/lists/files") | sha256sum >"$T/few.sum"
umount_peer few
cmp -s "$T/few.files" "$T/lists/files" && cmp -s "$T/few.sum" "$T/ovl.sum" ||
	die "the $FEW-layer view differs from the $LAYERS-layer view"
for p in uovl fovl; do
	mount_peer "$p"
	(cd "$ROOT" && LC_ALL=C find . -mindepth 1 -printf '%P %y %s\n' | LC_ALL=C sort) >"$T/$p.find"
	(cd "$ROOT" && xargs -d '\n' cat <"$T/ulists/files") | sha256sum >"$T/$p.sum"
	umount_peer "$p"
done
same_listing=no same_contents=no
cmp -s "$T/uovl.find" "$T/fovl.find" && same_listing=yes
cmp -s "$T/uovl.sum" "$T/fovl.sum" && same_contents=yes
[ "$same_listing" = yes ] || echo "overlay.sh: casefoldfs and fuse-overlayfs list otherwise: $(diff "$T/fovl.find" "$T/uovl.find" | head -5)" >&2
note "views checked (conflict-free variant against fuse-overlayfs: listing $same_listing, contents $same_contents)"

# ---- Rounds.
rotate() { # N WORDS...: the words rotated left by N
	n=$(($1 % ($# - 1)))
	shift
	while [ "$n" -gt 0 ]; do set -- "$@" "$1"; shift; n=$((n - 1)); done
	echo "$@"
}
for round in $(seq "$ROUNDS"); do
	# shellcheck disable=SC2046
	for p in $(rotate "$round" ovl few one uovl fovl user); do
		case $p in
		user)
			# (a) and (c) with the view the user's own.
			mount_peer user
			paths user stat1 stat "$T/lists/miscased"
			paths user stat2 stat "$T/lists/miscased"
			umount_peer user
			t0=$(now)
			mount_peer user
			n=$(as_user find "$UMNT" | wc -l)
			record user find "$(since "$t0")"
			[ "$n" = $((ENTRIES + 1)) ] || { echo "overlay.sh: the user's find saw $n names, not $((ENTRIES + 1))" >&2; record user failed 1; }
			umount_peer user
			;;
		ovl | one | few)
			# (a), (e): stat by other spellings, first and second pass.
			mount_peer "$p"
			paths "$p" stat1 stat "$T/lists/miscased"
			paths "$p" stat2 stat "$T/lists/miscased"
			umount_peer "$p"
			[ "$p" = few ] && continue
			# (b): every directory listed, first and second pass.
			mount_peer "$p"
			paths "$p" list1 list "$T/lists/dirs"
			paths "$p" list2 list "$T/lists/dirs"
			umount_peer "$p"
			if [ "$p" = ovl ]; then
				# (c): mount and find, and the memory it took.
				t0=$(now)
				mount_peer ovl
				record ovl mount "$(since "$t0")"
				rss0=$(rss_of "$PID")
				n=$(find "$MNT" | wc -l)
				record ovl find "$(since "$t0")"
				rss1=$(rss_of "$PID")
				record ovl rss "$((rss1 * 1024 / (n - 1)))"
				record ovl rssgrowth "$(((rss1 - rss0) * 1024 / (n - 1)))"
				record ovl rsskb "$rss1"
				[ "$n" = $((ENTRIES + 1)) ] || { echo "overlay.sh: find saw $n names, not $((ENTRIES + 1))" >&2; record ovl failed 1; }
				umount_peer ovl
			else
				t0=$(now)
				n=$(find "$T/copy/m" | wc -l)
				record plain find "$(since "$t0")"
				# For scale: the copy through a one-tree mount, the same way.
				t0=$(now)
				mount_peer one
				n=$(find "$ROOT" | wc -l)
				record one find "$(since "$t0")"
				umount_peer one
			fi
			;;
		uovl | fovl)
			# (d): exact names, as fuse-overlayfs needs them.
			mount_peer "$p"
			paths "$p" ustat1 stat "$T/ulists/exact"
			paths "$p" ustat2 stat "$T/ulists/exact"
			umount_peer "$p"
			mount_peer "$p"
			paths "$p" open1 open "$T/ulists/exact"
			paths "$p" open2 open "$T/ulists/exact"
			umount_peer "$p"
			mount_peer "$p"
			paths "$p" ulist1 list "$T/ulists/dirs"
			paths "$p" ulist2 list "$T/ulists/dirs"
			umount_peer "$p"
			;;
		esac
	done
	note "round $round done"
done

echo "casefoldfs: \`$CFS\`; $(fuse-overlayfs --version 2>/dev/null | sed -n 's/^fuse-overlayfs: //p' | head -1 | sed 's/^/fuse-overlayfs /');" \
	"$LAYERS lower trees (mods) with $FILES files, $ENTRIES names in the view" \
	"($(wc -l <"$T/lists/dirs") directories); $PICK files picked for stat and open; backing:" \
	"$(findmnt -no FSTYPE,SOURCE -T "$T") under $TMP; $ROUNDS rounds, a fresh mount per pass pair;" \
	"load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
echo
awk -v layers="$LAYERS" -v few="$FEW" -v pick="$PICK" -v entries="$ENTRIES" \
	-v samel="$same_listing" -v samec="$same_contents" "$MEDIAN_AWK$ROUNDS_AWK"'
function f(x, fmt) { return x == "" ? "—" : sprintf(fmt, x) }
function goal(x, target) { return x == "" ? "—" : sprintf("%.2f× %s", x, x <= target ? "(met)" : "**(not met)**") }
function row(what, a, b, m, unit, target, tt,   x) {
	x = ratio(a, m, b, m)
	printf "| %s | %s | %s | %s | %s |\n", what, f(cell(a, m), unit), f(cell(b, m), unit),
		target == "" ? f(x, "%.2f×") : goal(x, target), tt
}
{ val[$1, $2, $3] = $4; if ($1 > maxr) maxr = $1; if ($3 == "failed") failed += $4 }
END {
	print "| measurement | casefoldfs view | peer | ratio | goal |"
	print "|---|--:|--:|--:|---|"
	row(sprintf("(a) stat %d files by another spelling, µs each: %d-layer view vs one-tree mount of the copy, first pass", pick, layers), "ovl", "one", "stat1", "%.1f", 1.5, "≤ 1.5×")
	row("the same, second pass", "ovl", "one", "stat2", "%.1f", "", "")
	row("(b) list every directory, µs per directory: view vs one-tree mount, first pass", "ovl", "one", "list1", "%.0f", 1.5, "≤ 1.5×")
	row("the same, second pass", "ovl", "one", "list2", "%.0f", "", "")
	x = ratio("ovl", "find", "plain", "find")
	printf "| (c) mount the %d-layer view + find all of it (s) vs find over the plain copy (s) | %s | %s | %s | ≤ 2× |\n",
		layers, f(cell("ovl", "find"), "%.2f"), f(cell("plain", "find"), "%.2f"), goal(x, 2)
	x = ratio("ovl", "find", "one", "find")
	printf "| the same vs mount + find through a one-tree casefoldfs mount of the copy (s) | %s | %s | %s | |\n",
		f(cell("ovl", "find"), "%.2f"), f(cell("one", "find"), "%.2f"), f(x, "%.2f×")
	printf "| the mount alone (s) | %s | | | seconds |\n", f(cell("ovl", "mount"), "%.2f")
	x = cell("ovl", "rss")
	printf "| daemon VmRSS after the find, B per name of the view (%d names; VmRSS %s KiB) | %s | | | ≤ 300 B %s |\n",
		entries, f(cell("ovl", "rsskb"), "%d"), f(x, "%.0f"), x == "" ? "" : (x <= 300 ? "(met)" : "**(not met)**")
	printf "| the same, growth over the VmRSS right after the mount | %s | | | |\n", f(cell("ovl", "rssgrowth"), "%.0f")
	row(sprintf("(d) no case conflicts, stat %d files, µs each: casefoldfs vs fuse-overlayfs, first pass", pick), "uovl", "fovl", "ustat1", "%.1f", 1, "≤ 1×")
	row("the same, second pass", "uovl", "fovl", "ustat2", "%.1f", "", "")
	row("(d) open + read + close, µs each, first pass", "uovl", "fovl", "open1", "%.1f", 1, "≤ 1×")
	row("the same, second pass", "uovl", "fovl", "open2", "%.1f", "", "")
	row("(d) list every directory, µs each, first pass", "uovl", "fovl", "ulist1", "%.0f", 1, "≤ 1×")
	row("the same, second pass", "uovl", "fovl", "ulist2", "%.0f", "", "")
	printf "| (d) the same listing and contents as fuse-overlayfs | listing: %s | contents: %s | | same |\n", samel, samec
	row(sprintf("(e) stat by another spelling, µs each: %d layers vs %d layers (same files), first pass", layers, few), "ovl", "few", "stat1", "%.1f", 1.5, "≤ 1.5×")
	row("the same, second pass", "ovl", "few", "stat2", "%.1f", "", "")
	row("(a) as an ordinary user: stat by another spelling, µs each, the view mounted by uid 65534 vs by root, first pass", "user", "ovl", "stat1", "%.1f", "", "")
	row("the same, second pass", "user", "ovl", "stat2", "%.1f", "", "")
	row("(c) as an ordinary user: mount + find (s), uid 65534 vs root", "user", "ovl", "find", "%.2f", "", "")
	print ""
	if (failed) printf "Failed measurements: %d (see stderr).\n\n", failed
}' "$R"
echo "Section time: $(elapsed) s."
echo
# The same views changed while mounted (issue 43): bench/overlay_live.sh,
# its own trees and tables, at quick sizes when these are.
CF_LIVEBENCH_QUICK=${CF_LIVEBENCH_QUICK:-${CF_OVLBENCH_QUICK:-}} \
	CF_LIVEBENCH_DAEMON=${CF_LIVEBENCH_DAEMON:-${CF_OVLBENCH_DAEMON:-}} sh bench/overlay_live.sh "$O"
live=$?
if grep -q ' failed ' "$R" || [ "$same_listing" != yes ] || [ "$same_contents" != yes ]; then
	die "failed measurements or views that differ"
fi
[ "$live" = 0 ] || die "the live mod stack's measurements failed"

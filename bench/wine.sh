#!/bin/sh
# Benchmark section "wine": a Windows program under Wine opening files by the
# exact name, another case and a missing name, (a) in a plain directory of the
# backing ext4, where Wine reads the whole directory on every miss of the
# exact bytes, and (b) in a casefoldfs +F directory, where Wine sees
# EXT4_CASEFOLD_FL (FS_IOC_GETFLAGS) and leaves the matching to the
# filesystem.  Same run, same names, interleaved rounds; the +F directories
# are filled through the mount.  The opens are CreateFileA+CloseHandle timed
# with QueryPerformanceCounter inside the program (tests/clients/wine/winprobe.c),
# so Wine's start-up is not counted.
# Then issue 20's Wine goal, in the same run: in a directory of
# CF_WINEBENCH_PASS_SIZE entries, the same names opened by another case a
# first time and, right after in the same program, a second time (what users
# live in), through a freshly mounted casefoldfs with its defaults and with
# -o opens=kernel, against Wine's exact-case open of the same names in the
# plain ext4 directory; the ratio second pass / ext4 exact, target <= 1.2x.
# Then the FUSE requests that remain per Wine open in each pass (the daemon's
# -d log, as tests/kernel/requests.sh counts them).
# Usage: bench/wine.sh BUILD_DIR (as root: mounts).
#
# Knobs for a quick look (the defaults are the full run):
#   CF_WINEBENCH_SIZES="1000 10000 100000 1000000"  entries per directory
#   CF_WINEBENCH_ROUNDS=3        rounds (medians over them)
#   CF_WINEBENCH_OPENS=1000      opens per measurement, names spread over the directory
#   CF_WINEBENCH_BUDGET_MS=1500  ... or fewer, when they take longer than this
#   CF_WINEBENCH_PASS_SIZE=10000 entries of the first/second-pass directory
#                                (issue 20's goal; filled even when not in SIZES)
# Quick mode: CF_WINEBENCH_SIZES=10000 CF_WINEBENCH_ROUNDS=1.
set -u
O=${1:-build}
SIZES=${CF_WINEBENCH_SIZES:-1000 10000 100000 1000000}
ROUNDS=${CF_WINEBENCH_ROUNDS:-3}
OPENS=${CF_WINEBENCH_OPENS:-1000}
BUDGET=${CF_WINEBENCH_BUDGET_MS:-1500}
PASS_N=${CF_WINEBENCH_PASS_SIZE:-10000}
FILL_SIZES=$SIZES
case " $SIZES " in *" $PASS_N "*) ;; *) FILL_SIZES="$SIZES $PASS_N" ;; esac
START=$(date +%s)

. bench/prelude.sh
WINE=${CF_WINE:-}
if [ -z "$WINE" ]; then
	for w in /usr/lib/wine/wine64 wine64 wine; do
		WINE=$(command -v "$w") && break
	done
fi
[ -n "$WINE" ] || { echo "no wine64 (scripts/install-deps): skipped"; exit 0; }
WINESERVER=$(dirname "$WINE")/wineserver
[ -x "$WINESERVER" ] || WINESERVER=$(command -v wineserver) || die "no wineserver"
command -v x86_64-w64-mingw32-gcc >/dev/null || { echo "no MinGW-w64 compiler: skipped"; exit 0; }
prelude mounts
make -s O="$O" lib "$O/casefoldfs" || die "build failed"
CFS=$O/casefoldfs

TMP=${TMPDIR:-/var/tmp}
entries=0
for n in $FILL_SIZES; do entries=$((entries + 2 * n)); done
avail_inodes=$(df -Pi "$TMP" | awk 'NR == 2 { print $4 }')
[ "$avail_inodes" -ge $((entries + 10000)) ] || die "$TMP: $avail_inodes inodes free, need $((entries + 10000))"
T=$(mktemp -d "$TMP/casefold-winebench.XXXXXX") || exit 1
B=$T/backing M=$T/mnt P=$T/plain R=$T/records R2=$T/passes
mkdir "$B" "$M" "$P" "$T/home"
: >"$R"
: >"$R2"
CFS_PID=
# Headless and private: wineboot writes menus and MIME types under $HOME.
export WINEPREFIX="$T/wineprefix" HOME="$T/home" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
unset DISPLAY WAYLAND_DISPLAY XDG_CONFIG_HOME XDG_DATA_HOME XDG_CACHE_HOME

cleanup() {
	[ -d "$WINEPREFIX" ] && "$WINESERVER" -k 2>/dev/null
	unmount_all "$M"
	[ -z "$CFS_PID" ] || kill "$CFS_PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
elapsed() { echo $(($(date +%s) - START)); }

x86_64-w64-mingw32-gcc -std=c11 -O2 -Wall -Wextra -Werror -o "$T/winprobe.exe" \
	tests/clients/wine/winprobe.c || die "cannot build winprobe.exe"
mkdir "$WINEPREFIX"
"$WINESERVER" -p || die "wineserver does not start"
timeout 300 "$WINE" wineboot -i >"$T/wineboot.log" 2>&1 </dev/null ||
	die "wineboot failed: $(tail -n 3 "$T/wineboot.log")"

# The daemon at this machine's RLIMIT_NOFILE: the kernel remembers every file
# created through the mount, and a daemon that held a descriptor per
# remembered inode would fail here; the table then shows errors, not times.
# mount_cfs [OPTION...]: a fresh daemon on $M, our child (its exit status
# is checked by umount_cfs).
mount_cfs() {
	"$CFS" -f "$@" "$B" "$M" 2>>"$T/daemon.log" &
	CFS_PID=$!
	wait_mount "$M" "$CFS_PID"
}
umount_cfs() {
	rc=0
	# A mount that stays keeps its daemon's PID for cleanup.
	if fusermount3 -u "$M"; then wait "$CFS_PID" || rc=$?; CFS_PID=; else rc=$?; fi
	[ "$rc" = 0 ] || echo "casefoldfs exited with status $rc (log: $(tail -n 3 "$T/daemon.log"))"
	return "$rc"
}
mount_cfs

# File-0000000.Dat .. : long names, not 8.3 (Wine scans for an 8.3 name's
# short alias whatever the flag), created with mknod; a failure stops that
# directory and is reported.
fill() { # DIR N
	python3 - "$1" "$2" <<'PY'
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
for i in range(n):
    try:
        os.mknod(f"File-{i:07d}.Dat", 0o644 | 0o100000, dir_fd=fd)
    except OSError as e:
        sys.exit(f"{d}: created {i} of {n}, then {e}")
PY
}
fill_failed=
for n in $FILL_SIZES; do
	mkdir "$M/d$n" && chattr +F "$M/d$n" || die "chattr +F $M/d$n"
	mkdir "$P/d$n"
	fill "$P/d$n" "$n" || die "filling $P/d$n failed"
	t0=$(date +%s)
	if ! fill "$M/d$n" "$n" 2>>"$T/fill.err"; then
		fill_failed="$fill_failed $n"
	fi
	echo "wine: $n entries filled through the mount in $(($(date +%s) - t0)) s ($(elapsed) s)" >&2
done
sync -f "$B"

win() { printf 'Z:%s' "$(printf '%s' "$1" | tr / '\\')"; }   # Z: is /

# measure PEER DIR N KIND: one winprobe run, recorded as
# "N KIND PEER ROUND ns_per_open opens errors".
measure() {
	peer=$1 dir=$2 n=$3 kind=$4
	count=$OPENS
	[ "$count" -le "$n" ] || count=$n
	step=$((n / count))
	first=$((round % step))
	case $kind in
	exact)   pre=File- suf=.Dat ;;
	other)   pre=fILE- suf=.dAT ;;
	missing) pre=File- suf=.Dat first=$((n + first)) ;;
	esac
	out=$(timeout 900 "$WINE" "$T/winprobe.exe" time "$(win "$dir")" "$pre" "$suf" \
		"$first" "$count" "$step" "$BUDGET" </dev/null 2>>"$T/wine.err")
	# opens N found F notfound M errors E ns_per_open X [first_error NAME]
	# shellcheck disable=SC2086  # the words of the line
	set -- $out
	if [ "${1:-}" != opens ]; then
		echo "$n $kind $peer $round - 0 1 no-result" >>"$R"
		return
	fi
	bad=$8
	case $kind in
	missing) bad=$(($8 + $4)) ;;       # a missing name found is wrong too
	*) bad=$(($8 + $6)) ;;
	esac
	echo "$n $kind $peer $round ${10} $2 $bad ${12:-}" >>"$R"
}

round=0
while [ "$round" -lt "$ROUNDS" ]; do
	round=$((round + 1))
	for n in $SIZES; do
		for kind in exact other missing; do
			# Alternate which peer goes first.
			if [ $((round % 2)) = 1 ]; then peers="ext4 casefoldfs"; else peers="casefoldfs ext4"; fi
			for peer in $peers; do
				case $peer in
				ext4) measure ext4 "$P/d$n" "$n" "$kind" ;;
				casefoldfs) measure casefoldfs "$M/d$n" "$n" "$kind" ;;
				esac
			done
		done
	done
	echo "wine: round $round done ($(elapsed) s)" >&2
done

echo "Wine $("$WINE" --version 2>/dev/null) ($WINE), a MinGW-w64 program timing CreateFileA+CloseHandle" \
	"(QueryPerformanceCounter); up to $OPENS names spread over each directory, at most" \
	"$BUDGET ms a measurement; median of $ROUNDS interleaved rounds; µs per open." \
	"ext4: a plain directory of $(findmnt -no FSTYPE -T "$P") under $TMP (Wine scans it on a miss" \
	"of the exact bytes); casefoldfs: a +F directory filled through the mount; load average" \
	"$(cut -d' ' -f1-3 /proc/loadavg) at the end."
echo
echo "| entries | name | ext4, Wine scans | casefoldfs +F | ext4 / casefoldfs | casefoldfs / ext4's exact case |"
echo "|--:|---|--:|--:|--:|--:|"
# A cell: the median µs per open, with the opens of the median round when the
# budget cut them short; "errors" when any open failed unexpectedly.
awk -v opens="$OPENS" '
function median(key,   k, m, i, j, t, v) {
	m = cnt[key]
	for (i = 1; i <= m; i++) v[i] = ns[key, i]
	for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
	return v[int((m + 1) / 2)]
}
{
	key = $1 " " $2 " " $3
	if ($7 > 0 || $5 == "-") { err[key] += $7; errname[key] = $8; next }
	cnt[key]++; ns[key, cnt[key]] = $5; done[key] = done[key] < $6 ? $6 : done[key]
	if (!($1 in seen)) { seen[$1] = 1; order[++nsizes] = $1 }
}
function cell(key,   s) {
	if (err[key] > 0) return "errors (" err[key] (errname[key] != "" ? ", " errname[key] : "") ")"
	if (!cnt[key]) return "-"
	s = sprintf("%.1f", median(key) / 1000)
	if (done[key] < opens && done[key] < $1) s = s " (" done[key] " opens)"
	return s
}
END {
	split("exact other missing", kinds, " ")
	label["exact"] = "exact case"; label["other"] = "another case"; label["missing"] = "missing"
	for (s = 1; s <= nsizes; s++) for (k = 1; k <= 3; k++) {
		n = order[s]; e = n " " kinds[k] " ext4"; c = n " " kinds[k] " casefoldfs"
		r = (cnt[e] && cnt[c] && !err[e] && !err[c]) ? sprintf("%.1f", median(e) / median(c)) : "-"
		x = n " exact ext4"
		q = "-"
		if (kinds[k] != "missing" && cnt[x] && cnt[c] && !err[x] && !err[c])
			q = sprintf("%.2f", median(c) / median(x))
		printf "| %d | %s | %s | %s | %s | %s |\n", n, label[kinds[k]], cell(e), cell(c), r, q
	}
}' "$R"
echo
# What one FUSE request costs here, same run: statfs is never cached by the
# kernel, so each call through the mount is one round trip to the daemon.
python3 - "$M" "$P" <<'PY'
import os, sys, time
def per_call(path, n=20000):
    t0 = time.perf_counter()
    for _ in range(n):
        os.statvfs(path)
    return (time.perf_counter() - t0) / n * 1e6
m = min(per_call(sys.argv[1]) for _ in range(3))
p = min(per_call(sys.argv[2]) for _ in range(3))
print(f"One FUSE round trip, same run: statfs through the mount {m:.1f} µs, on the backing "
      f"{p:.1f} µs, so {m - p:.1f} µs a request. Wine's first open of a name through a "
      f"default mount costs casefoldfs three requests the kernel cannot answer from its "
      f"caches (LOOKUP of a spelling it has not seen, OPEN, and the wineserver's STATFS "
      f"when it holds no other file of the mount): {3 * (m - p):.0f} µs over the backing's "
      f"own open; what is left of them in a second pass is counted below.")
PY
[ -z "$fill_failed" ] || echo "Filling through the mount failed at:$fill_failed entries ($(tr '\n' ' ' <"$T/fill.err"))."
echo
# Failed opens, a failed fill or a daemon that did not exit cleanly fail the
# section (bench/run names it), after the tables have shown where.
status=0
umount_cfs || status=1

# Issue 20: the same names by another case, a first and a second pass in one
# winprobe run (the second opens exactly the names the first did), in a fresh
# mount per casefoldfs peer per round, so that the first pass is the first
# touch through the daemon (the backing tree and its page cache warm).
# Each casefoldfs mount twice: the program's current directory outside the
# mount (as in the table above), and in the +F directory, as a game started
# from its folder.  That matters: the wineserver keeps one object per st_dev
# while it holds any file of that device, and makes it, with an fstatfs
# (server/fd.c, is_device_removable), whenever it holds none.  Wine's current
# directory is such a file, so outside the mount every CreateFile costs a
# STATFS request, which the kernel never caches.  ext4 runs with its current
# directory in its directory (the same device as outside, here).
# Recorded as "ROUND PEER PASS ns_per_open opens bad [first_error NAME]".
cache_mode() { # "cache MODE timeout T opens WHO" from the root's stats
	getfattr -n trusted.casefoldfs.stats --only-values "$M" 2>/dev/null |
		sed -n 's/.* cache \([^ ]*\) timeout \([^ ]*\) opens \([^ ]*\).*/-o cache=\1 (timeout \2 s), opens=\3/p'
}
opts_of() { case $1 in kernel*) echo "-o opens=kernel" ;; esac; }
cwd_of() { case $1 in ext4) echo "$P/d$PASS_N" ;; *_in) echo "$M/d$PASS_N" ;; *) pwd ;; esac; }
passes() { # PEER DIR PREFIX SUFFIX
	count=$OPENS
	[ "$count" -le "$PASS_N" ] || count=$PASS_N
	(cd "$(cwd_of "$1")" && timeout 900 "$WINE" "$T/winprobe.exe" time "$(win "$2")" "$3" "$4" \
		0 "$count" $((PASS_N / count)) "$BUDGET" 2 </dev/null >"$T/out" 2>>"$T/wine.err")
	for pass in 1 2; do
		# shellcheck disable=SC2046  # the words of the line
		set -- "$1" $(sed -n "${pass}p" "$T/out")
		if [ "${2:-}" != opens ]; then
			echo "$round $1 $pass - 0 1 no-result" >>"$R2"
		else
			echo "$round $1 $pass ${11} $3 $(($9 + $7)) ${13:-}" >>"$R2"
		fi
	done
}
PEERS2="ext4 default default_in kernel kernel_in"
round=0
while [ "$round" -lt "$ROUNDS" ]; do
	round=$((round + 1))
	# The peers in an order rotated from round to round.
	# shellcheck disable=SC2086  # the peers' words
	set -- $PEERS2
	k=$((round % $#))
	while [ "$k" -gt 0 ]; do set -- "$@" "$1"; shift; k=$((k - 1)); done
	for peer; do
		case $peer in
		ext4) passes ext4 "$P/d$PASS_N" File- .Dat ;;
		*)
			# shellcheck disable=SC2046  # options are words
			mount_cfs $(opts_of "$peer")
			[ -n "$(eval echo "\${mode_${peer%_in}:-}")" ] || eval "mode_${peer%_in}=\$(cache_mode)"
			passes "$peer" "$M/d$PASS_N" fILE- .dAT
			umount_cfs || status=1 ;;
		esac
	done
	echo "wine: first/second pass round $round done ($(elapsed) s)" >&2
done

# The FUSE requests left per open: a fresh daemon with -d, 100 of the names,
# a first and a second winprobe run (the -d log between them); a line
# "PEER pass 1: OPCODE COUNT ...; pass 2: ..." in $T/requests.
: >"$T/requests"
requests() { # PEER
	# shellcheck disable=SC2046  # options are words
	mount_cfs -d $(opts_of "$1")
	line="$1:" sep=" "
	for pass in 1 2; do
		before=$(stat -c %s "$T/daemon.log")
		(cd "$(cwd_of "$1")" && timeout 300 "$WINE" "$T/winprobe.exe" time "$(win "$M/d$PASS_N")" \
			fILE- .dAT 1 100 $((PASS_N / 100)) 60000 </dev/null >/dev/null 2>>"$T/wine.err")
		sleep 0.3   # RELEASE is asynchronous
		line="$line${sep}pass $pass: $(tail -c +$((before + 1)) "$T/daemon.log" |
			grep -ao 'opcode: [A-Z_]*' | awk '{ n[$2]++ } END { for (o in n) print o, n[o] }' |
			sort | tr '\n' ' ' | sed 's/ $//')"
		sep="; "
	done
	umount_cfs >/dev/null || status=1
	echo "$line" >>"$T/requests"
}
if [ "$PASS_N" -ge 100 ]; then
	for peer in default default_in kernel kernel_in; do requests "$peer"; done
fi

echo "Issue 20's Wine goal, same run: $PASS_N entries; up to $OPENS names (another case on casefoldfs," \
	"exact case on ext4) opened a first time and right after, in the same program, a second time;" \
	"a fresh mount per casefoldfs peer per round (default: ${mode_default:-?}; -o opens=kernel:" \
	"${mode_kernel:-?}); the program's current directory outside the mount, or in the +F directory" \
	"(ext4: in its directory); median of $ROUNDS rounds, µs per open; ratios: median over rounds of" \
	"the pass over ext4's same pass in the same round; load average $(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| $PASS_N entries | first pass | second pass | first / ext4 exact | second / ext4 exact | target: second pass ≤ 1.2× ext4 exact |"
echo "|---|--:|--:|--:|--:|---|"
awk -v peers="$PEERS2" '
function median(key,   m, i, j, t, v) {
	m = cnt[key]
	for (i = 1; i <= m; i++) v[i] = val[key, i]
	for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
	return v[int((m + 1) / 2)]
}
function add(key, x) { cnt[key]++; val[key, cnt[key]] = x }
{
	if ($6 > 0 || $4 == "-") { err[$2] += $6; errname[$2] = $7 " " $8; next }
	ns[$1, $2, $3] = $4; add($2 " " $3, $4); rounds[$1] = 1
}
END {
	np = split(peers, peer, " ")
	for (r in rounds) for (p = 1; p <= 2; p++) {
		x = ns[r, "ext4", p]
		if (x == "") continue
		for (i = 2; i <= np; i++)
			if (ns[r, peer[i], p] != "") add(peer[i] " r" p, ns[r, peer[i], p] / x)
	}
	label["ext4"] = "ext4, plain directory, exact case (the yardstick)"
	label["default"] = "casefoldfs +F, another case, default mount; current directory outside the mount"
	label["default_in"] = "the same, current directory in the +F directory"
	label["kernel"] = "casefoldfs +F, another case, `-o opens=kernel`; current directory outside the mount"
	label["kernel_in"] = "the same, current directory in the +F directory"
	for (i = 1; i <= np; i++) {
		q = peer[i]
		if (err[q]) { printf "| %s | errors (%d, %s) | | | | |\n", label[q], err[q], errname[q]; continue }
		c1 = cnt[q " 1"] ? sprintf("%.1f", median(q " 1") / 1000) : "-"
		c2 = cnt[q " 2"] ? sprintf("%.1f", median(q " 2") / 1000) : "-"
		if (q == "ext4") { printf "| %s | %s | %s | | | |\n", label[q], c1, c2; continue }
		r1 = cnt[q " r1"] ? sprintf("%.2f", median(q " r1")) : "-"
		r2 = cnt[q " r2"] ? median(q " r2") : ""
		verdict = r2 == "" ? "-" : (r2 <= 1.2 ? "met" : "not met")
		printf "| %s | %s | %s | %s | %s | %s |\n", label[q], c1, c2, r1,
			r2 == "" ? "-" : sprintf("%.2f", r2), verdict
	}
}' "$R2"
echo
if [ -s "$T/requests" ]; then
	echo "FUSE requests of 100 such opens by another case (a fresh daemon with -d, two winprobe runs" \
		"over the same names; a run's start-up included):"
	echo
	sed 's/^\([a-z_]*\):/- \1:/' "$T/requests"
	echo
fi
[ ! -s "$T/wine.err" ] || echo "Wine's stderr: $(sort -u "$T/wine.err" | head -n 3 | tr '\n' ' ')"
echo "Section time: $(elapsed) s."
echo
"$WINESERVER" -k 2>/dev/null
awk '$7 > 0 { bad = 1 } END { exit bad }' "$R" || status=1
awk '$6 > 0 { bad = 1 } END { exit bad }' "$R2" || status=1
[ -z "$fill_failed" ] || status=1
exit $status

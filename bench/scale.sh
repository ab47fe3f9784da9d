#!/bin/sh
# Benchmark section "scale": casefoldfs at real-world scale (issue 12).  One
# mount, everything through it: a million files in one +F directory and a
# million spread over a +F tree, each stat'ed by its name and by another
# spelling; ls -lR, find, du and rm -rf of it all; tar x, rsync -a and a git
# work tree into +F directories.  Per step: wall time, failed operations
# (must be 0), the daemon's peak descriptors (must stay under a bound) and
# peak RSS.  The kernel remembers every inode it looked up until memory
# pressure, so a daemon that keeps a descriptor per inode fails (EMFILE) here.
# Usage: bench/scale.sh BUILD_DIR (as root: mounts).
#
# Knobs (the defaults are the full run; CF_SCALE_FILES=30000 is a quick one):
#   CF_SCALE_FILES=1000000   files in the flat +F directory, and in the tree
#   CF_SCALE_TAR=FILES/5     files in the archive unpacked with tar x
#   CF_SCALE_RSYNC=FILES/10  files of the tree copied with rsync -a
#   CF_SCALE_GIT=FILES/10    files of the git work tree
#   CF_SCALE_FANOUT=100      files per directory, directories per level, in trees
#   CF_SCALE_FD_BOUND=       the bound on the daemon's descriptors; by default
#                            read from the daemon (trusted.casefoldfs.stats:
#                            16 + fd_cache + 3 per thread + 16 held by callers),
#                            else 4200 (the default cache of 4,096 and slack)
#   CF_SCALE_DAEMON=         a casefoldfs binary to measure instead of BUILD_DIR's
#                            (an older build, to show what a change fixed)
set -u
O=${1:-build}
N=${CF_SCALE_FILES:-1000000}
NTAR=${CF_SCALE_TAR:-$((N / 5))}
NRSYNC=${CF_SCALE_RSYNC:-$((N / 10))}
NGIT=${CF_SCALE_GIT:-$((N / 10))}
FAN=${CF_SCALE_FANOUT:-100}
BOUND=${CF_SCALE_FD_BOUND:-}
START=$(date +%s)

. bench/prelude.sh
prelude "mounts, trusted.* xattrs" tar rsync git du find
prelude_build "$O" "${CF_SCALE_DAEMON:-}"

# Inodes: both million-file sets, the tar source and its copy, the rsync
# source and its copy, the git tree, its directories and slack; blocks: a
# kilobyte per file covers directories, the archive and git's index.
TMP=${TMPDIR:-/var/tmp}
files=$((2 * N + 2 * NTAR + 2 * NRSYNC + NGIT))
need_inodes=$((files + files / 50 + 10000))
need_kb=$((files + 512 * 1024))
avail_inodes=$(df -Pi "$TMP" | awk 'NR == 2 { print $4 }')
avail_kb=$(df -Pk "$TMP" | awk 'NR == 2 { print $4 }')
[ "$avail_inodes" -ge "$need_inodes" ] || die "$TMP: $avail_inodes inodes free, need $need_inodes"
[ "$avail_kb" -ge "$need_kb" ] || die "$TMP: $avail_kb KiB free, need $need_kb"

T=$(mktemp -d "$TMP/casefold-scale.XXXXXX") || exit 1
B=$T/backing M=$T/mnt S=$T/src
mkdir "$B" "$M" "$S"
CFS_PID=
WATCH_PID=
ROWS=$T/rows
: >"$ROWS"

cleanup() {
	[ -z "$WATCH_PID" ] || kill "$WATCH_PID" 2>/dev/null
	unmount_all "$M"
	[ -z "$CFS_PID" ] || kill "$CFS_PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

"$CFS" -f "$B" "$M" 2>"$T/daemon.log" &
CFS_PID=$!
wait_mount "$M" "$CFS_PID"

# The daemon's own figures, where it has them: "nodes N fds F ... fd_cache C ...".
stats() { getfattr -n trusted.casefoldfs.stats --only-values "$M" 2>/dev/null; }
stat_field() { stats | tr ' ' '\n' | sed -n "/^$1\$/{n;p;q}"; }
fd_cache=$(stat_field fd_cache)
threads_peak=0

# step LABEL EXPECT_ERRORS_FILE COMMAND...: COMMAND timed under the sampler.
# Failed operations: fsbench's own count (an "errors N" line on stdout), else
# one per line a tool wrote on stderr, plus one for a non-zero exit status.
step() {
	label=$1
	shift
	echo 5 >"/proc/$CFS_PID/clear_refs"   # VmHWM from here
	"$F" watch "$CFS_PID" 50 >"$T/watch" &
	WATCH_PID=$!
	t0=$(date +%s.%N)
	"$@" >"$T/out" 2>"$T/err"
	status=$?
	t1=$(date +%s.%N)
	kill "$WATCH_PID"
	wait "$WATCH_PID"
	WATCH_PID=
	errors=$(sed -n 's/^errors //p' "$T/out" | awk '{ s += $1 } END { print s + 0 }')
	grep -q '^errors ' "$T/out" || errors=$(wc -l <"$T/err")
	[ "$status" = 0 ] || errors=$((errors + 1))
	first=$(head -1 "$T/err" | sed "s|$M|MNT|g; s|$T|TMP|g" | tr '|' '/')
	fds=$(sed -n 's/^peak_fds //p' "$T/watch")
	thr=$(sed -n 's/^peak_threads //p' "$T/watch")
	rss=$(sed -n 's/^peak_rss //p' "$T/watch")
	[ "${thr:-0}" -le "$threads_peak" ] || threads_peak=$thr
	secs=$(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }')
	echo "$label|$secs|$errors|$fds|$rss|$(stats | awk '{ print $2 }')|$first" >>"$ROWS"
	echo "scale: $label: $secs s, $errors errors, peak $fds fds ($(($(date +%s) - START)) s)" >&2
}

# count_is COMMAND...: COMMAND must print $want lines (one per file); a wrong
# count is a failed operation, and so is each line COMMAND writes on stderr.
count_is() {
	got=$("$@" 2>"$T/count.err" | wc -l)
	e=$(wc -l <"$T/count.err")
	[ "$got" = "$want" ] || { echo "$got files, not $want" >&2; e=$((e + 1)); }
	head -1 "$T/count.err" >&2
	echo "errors $e"
}

mkdir "$M/flat" "$M/tree" "$M/tarx" "$M/rsync" "$M/git"
chattr +F "$M/flat" "$M/tree" "$M/tarx" "$M/rsync" "$M/git" || die "chattr +F failed"

step "create $N files in one +F directory" "$F" create "$M/flat" "$N"
step "create $N files in a +F tree ($FAN per directory)" "$F" create -f "$FAN" "$M/tree" "$N"
step "stat every file of the directory, exact names" "$F" statall exact "$M/flat" "$N"
step "stat every file of the directory, other spellings" "$F" statall miscased "$M/flat" "$N"
step "stat every file of the tree, exact names" "$F" statall -f "$FAN" exact "$M/tree" "$N"
step "stat every file of the tree, other spellings" "$F" statall -f "$FAN" miscased "$M/tree" "$N"
ls_all() { ls -lR "$M/flat" "$M/tree" >/dev/null; }
step "ls -lR of both" ls_all
want=$((2 * N))
find_all() { count_is find "$M/flat" "$M/tree" -type f; }
step "find -type f, counted, of both ($want)" find_all
step "du -s of both" du -s "$M/flat" "$M/tree"
step "rm -rf of both" rm -rf "$M/flat" "$M/tree"

# The sources live outside the mount, made directly.
mkdir "$S/tar"
"$F" create -f "$FAN" "$S/tar" "$NTAR" >/dev/null
tar -cf "$T/src.tar" -C "$S/tar" . || die "tar c failed"
rm -rf "$S/tar"
step "tar x of $NTAR files" tar -xf "$T/src.tar" -C "$M/tarx"
rm -f "$T/src.tar"
want=$NTAR
step "find -type f, counted, of the tar copy ($want)" count_is find "$M/tarx" -type f

mkdir "$S/rsync"
"$F" create -f "$FAN" "$S/rsync" "$NRSYNC" >/dev/null
step "rsync -a of $NRSYNC files" rsync -a "$S/rsync/" "$M/rsync/"
rm -rf "$S/rsync"
want=$NRSYNC
step "find -type f, counted, of the rsync copy ($want)" count_is find "$M/rsync" -type f

git_fill() {
	"$F" create -f "$FAN" "$M/git" "$NGIT" >"$T/git.out" || return 1
	grep -qx 'errors 0' "$T/git.out" || { cat "$T/git.out" >&2; return 1; }
}
git_commit() {
	git -C "$M/git" init -q &&
		git -C "$M/git" add -A &&
		git -C "$M/git" -c user.name=bench -c user.email=bench@localhost commit -qm scale
}
git_status() {
	git -C "$M/git" status --porcelain >"$T/status" || return 1
	[ ! -s "$T/status" ] || { head -3 "$T/status" >&2; return 1; }
}
step "git work tree of $NGIT files, made through the mount" git_fill
step "git init, add, commit" git_commit
step "git status (clean)" git_status
step "rm -rf of the copies and the work tree" rm -rf "$M/tarx" "$M/rsync" "$M/git"

# The bound: what fs/tree/DESIGN.md promises, from the daemon's own cache size.
if [ -z "$BOUND" ]; then
	if [ -n "$fd_cache" ]; then
		BOUND=$((16 + fd_cache + 3 * threads_peak + 16))
		how="16 + fd_cache $fd_cache + 3 × $threads_peak threads + 16 held by callers, from the daemon"
	else
		BOUND=4200
		how="default: the daemon reports no fd_cache"
	fi
else
	how="CF_SCALE_FD_BOUND"
fi

echo "casefoldfs: \`$CFS\`; backing: $(findmnt -no FSTYPE -T "$B") under $TMP; RLIMIT_NOFILE" \
	"$(awk '/open files/ { print $4 " soft, " $5 " hard" }' "/proc/$CFS_PID/limits") (the daemon's);" \
	"load average $(cut -d' ' -f1-3 /proc/loadavg) at the end;" \
	"descriptor bound $BOUND ($how); daemon stats at the end: $(stats || echo none)."
echo
echo "| step | wall s | failed operations | peak daemon fds | peak daemon RSS, MiB | nodes after | first error (MNT: the mount) |"
echo "|---|--:|--:|--:|--:|--:|---|"
bad=0
while IFS='|' read -r label secs errors fds rss nodes first; do
	verdict=
	[ "$errors" = 0 ] || { verdict=" **(must be 0)**"; bad=1; }
	fdv=
	[ "${fds:-0}" -lt "$BOUND" ] || { fdv=" **(≥ $BOUND)**"; bad=1; }
	mib=$(echo "${rss:-0}" | awk '{ printf "%.1f", $1 / 1024 }')
	echo "| $label | $secs | $errors$verdict | $fds$fdv | $mib | ${nodes:-—} | $(echo "$first" | cut -c1-100) |"
done <"$ROWS"
echo
fusermount3 -u "$M"
wait "$CFS_PID" || { echo "casefoldfs exited with status $?" >&2; bad=1; }
CFS_PID=
echo "Section time: $(($(date +%s) - START)) s."
echo
[ "$bad" = 0 ] || { echo "scale.sh: failed operations or descriptors over the bound (table above)" >&2; exit 1; }

#!/bin/sh
# Benchmark section "work": a day's real work at the floor (issue 40).  One
# session a developer or a modder has every day — untar a real tree, find,
# grep -r, git add + commit, git status twice (warm), a build, a walk that
# opens every file, rm -rf — on the backing ext4 directly, through bindfs
# (its defaults) and through casefoldfs into a +F directory, as root and as
# an ordinary user (uid 65534's own mount through fusermount3), side by
# side in each round.  The tree is one a Debian machine has: /usr/include
# and /usr/lib/python3.11 by default, less the names that collide when
# folded (xt_CONNMARK.h and xt_connmark.h: a +F directory holds one of
# them), whose count is printed.  casefoldfs's walk opens every file by
# another spelling (each letter of the path's case swapped); the others
# open the exact names.  The build is `make -j2 TARGET` of a copy of this
# project (the copy not timed).  Each round mounts every FUSE peer afresh,
# peers in an order rotated from round to round; cells are medians over
# rounds, ratios the median over rounds of the peer's time over the backing
# ext4's (or bindfs's) in the same round, against issue 40's targets.
# Usage: bench/work.sh BUILD_DIR (as root: mounts, setpriv, /dev/fuse).
#
# Knobs:
#   CF_WORK_ROUNDS=3                       rounds (CF_WORK_ROUNDS=1: a quick look)
#   CF_WORK_TREES="/usr/include /usr/lib/python3.11"   the trees untarred
#   CF_WORK_MAKE=lib                       the build step's make target(s)
#   CF_WORK_PEERS="native bindfs root user"   which peers run
#   CF_WORK_OPTS=                          options for both casefoldfs daemons
#   CF_WORK_DAEMON=                        a casefoldfs binary to measure instead
#                                          of BUILD_DIR's (before/after)
#   CF_WORK_PROFILE=1                      (0: without) the root daemon's requests per
#                                          step by opcode (one more root round,
#                                          with -d, not timed), and what they
#                                          cost at the floor: each step's
#                                          requests a client waits for, times
#                                          the round trip of fsfloor -s (a
#                                          daemon that does no work) in this
#                                          run, plus ext4's time
set -u
O=${1:-build}
ROUNDS=${CF_WORK_ROUNDS:-3}
TREES=${CF_WORK_TREES:-/usr/include /usr/lib/python3.11}
TARGET=${CF_WORK_MAKE:-lib}
PEERS=${CF_WORK_PEERS:-native bindfs root user}
OPTS=${CF_WORK_OPTS:-}
STEPS="untar find grep commit status build walk rm"
START=$(date +%s)

. bench/prelude.sh
prelude "mounts, setpriv, /dev/fuse" bindfs git setpriv tar make
prelude_build "$O" "${CF_WORK_DAEMON:-}" "$O/bench/fsfloor"

TMP=${TMPDIR:-/var/tmp}
T=$(mktemp -d "$TMP/casefold-work.XXXXXX") || exit 1
chmod 755 "$T"     # uid 65534 goes through it to its tree and the tarballs
N=$T/native        # the backing ext4 measured directly
BB=$T/bindfs.backing BM=$T/bindfs.mnt FM=$T/floor.mnt
RB=$T/root.backing RM=$T/root.mnt
UB=$T/user.backing UM=$T/user.mnt
R=$T/records       # ROUND PEER STEP SECONDS
mkdir "$N" "$BB" "$BM" "$RB" "$RM" "$UB" "$UM" "$FM" "$T/home" "$T/bin"
chown 65534:65534 "$UB" "$UM" "$T/home"
: >"$R"
ROOT_PID='' USER_PID='' BFS_PID=''

as_user() { HOME=$T/home setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }

cleanup() {
	unmount_all "$RM" "$UM" "$BM" "$FM"
	for p in $ROOT_PID $USER_PID $BFS_PID; do kill "$p" 2>/dev/null || :; done
	[ -z "$FUSE_MODE" ] || chmod "$FUSE_MODE" /dev/fuse
	rm -rf "$T"
}
FUSE_MODE=
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
prelude_user "$T"
note() { echo "work: $* ($(($(date +%s) - START)) s)" >&2; }

# The inputs.  The tree's tarball: regular files and symbolic links, the
# second and later of names equal when folded left out (ASCII folding: the
# trees' names are ASCII; a miss would show as a wrong count after untar).
# The walk's lists: every regular file, exact and with its case swapped.
for t in $TREES; do
	[ -d "$t" ] || die "no $t (CF_WORK_TREES)"
	find "$t" \( -type f -o -type l \) | sed 's|^/||'
done | LC_ALL=C sort >"$T/all"
LC_ALL=C awk '{ k = tolower($0) } !(k in seen) { seen[k]; print; next } { dup++ }
	END { print dup + 0 > "/dev/stderr" }' "$T/all" >"$T/list" 2>"$T/dups"
tar -C / --no-recursion -cf "$T/tree.tar" -T "$T/list" || die "tar of $TREES failed"
(cd / && while IFS= read -r p; do [ -L "$p" ] || [ ! -f "$p" ] || echo "$p"; done) <"$T/list" >"$T/files"
tr 'a-zA-Z' 'A-Za-z' <"$T/files" >"$T/files.miscased"
FILES=$(wc -l <"$T/files")
# The project to build: this checkout's files as committed, with what is
# not committed yet (git archive of a stash-less tree would miss it).
git ls-files -z | tar --null -T - -cf "$T/src.tar" || die "tar of the project failed"
chmod 644 "$T"/*.tar "$T"/files*
note "inputs: $FILES files, $(cat "$T/dups") left out, $(du -m "$T/tree.tar" | cut -f1) MB"

# The daemons run in the foreground as our children (known PIDs, exit
# status checked at unmount); casefoldfs with its defaults, as
# scripts/quickstart mounts it; bindfs with its defaults.
mount_peer() {
	case $1 in
	root)
		# shellcheck disable=SC2086  # options are words
		"$CFS" -f $OPTS ${2:-} "$RB" "$RM" 2>>"${3:-$T/daemon.log}" &
		ROOT_PID=$!
		wait_mount "$RM" "$ROOT_PID" ;;
	user)
		# setpriv itself, not the function: $! must be the daemon.
		# shellcheck disable=SC2086
		setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
			"$UCFS" -f $OPTS "$UB" "$UM" 2>>"$T/daemon.log" &
		USER_PID=$!
		wait_mount "$UM" "$USER_PID" ;;
	bindfs)
		bindfs -f "$BB" "$BM" 2>>"$T/daemon.log" &
		BFS_PID=$!
		wait_mount "$BM" "$BFS_PID" ;;
	esac
}
umount_peer() {
	case $1 in
	root) fusermount3 -u "$RM"; wait "$ROOT_PID" || die "root casefoldfs exited with status $?"; ROOT_PID= ;;
	user) fusermount3 -u "$UM"; wait "$USER_PID" || die "user casefoldfs exited with status $?"; USER_PID= ;;
	bindfs) fusermount3 -u "$BM"; wait "$BFS_PID" || die "bindfs exited with status $?"; BFS_PID= ;;
	esac
}
# where PEER: dir (the peer's view), run (how its clients run), walk (the
# walk's list: casefoldfs by another spelling).
where() {
	walk=$T/files run='' fsb=$F
	case $1 in
	native) dir=$N ;;
	bindfs) dir=$BM ;;
	root) dir=$RM walk=$T/files.miscased ;;
	user) dir=$UM walk=$T/files.miscased run=as_user fsb=$UF ;;
	esac
}
now() { date +%s.%N; }
GIT="git -c user.name=bench -c user.email=bench@localhost -c gc.auto=0 -c core.fsmonitor=false"

# step NAME: runs the step NAME in $dir/w as the peer's user, checking its
# result; fails (status 1, a message) when the result is wrong.
step() {
	w=$dir/w
	case $1 in
	untar) $run tar -xf "$T/tree.tar" -C "$w" ;;
	find) n=$($run find "$w" -type f | wc -l) && [ "$n" = "$FILES" ] ||
		{ echo "find: $n files, not $FILES" >&2; return 1; } ;;
	# A word no file holds: every byte of every file is read.
	grep) $run grep -r -q -F 'casefold-work-absent' "$w"; [ $? = 1 ] ;;
	commit) $run $GIT -C "$w" init -q && $run $GIT -C "$w" add -A &&
		$run $GIT -C "$w" commit -q -m work ;;
	status) for i in 1 2; do
			$run $GIT -C "$w" status --porcelain >"$T/status" && [ ! -s "$T/status" ] ||
				{ head -3 "$T/status" >&2; return 1; }
		done ;;
	build) $run make -s -C "$w/src" -j2 O=build "$TARGET" >"$T/make.out" 2>&1 ||
		{ tail -5 "$T/make.out" >&2; return 1; } ;;
	walk) $run "$fsb" paths open "$w" "$walk" >"$T/walk" && grep -qx 'errors 0' "$T/walk" &&
		grep -qx "ops $FILES" "$T/walk" || { tr '\n' ' ' <"$T/walk" >&2; return 1; } ;;
	rm) $run rm -rf "$w" ;;
	esac
}

# session PEER [MARK]: the whole session in a fresh +F directory, each step
# timed and recorded; MARK, if given, is called before each step and once at
# the end (the profile's boundaries).
session() {
	peer=$1 mark=${2:-}
	where "$peer"
	$run mkdir "$dir/w" || die "$peer: mkdir"
	case $peer in root | user) $run chattr +F "$dir/w" || die "$peer: chattr +F" ;; esac
	for s in $STEPS; do
		# The project's copy, before the build step and not timed (nor
		# counted with a step's requests: the profile marks it apart).
		[ "$s" != build ] || [ -z "$mark" ] || $mark copy
		[ "$s" != build ] || { $run mkdir "$dir/w/src" && $run tar -xf "$T/src.tar" -C "$dir/w/src"; } ||
			die "$peer: copying the project"
		[ -z "$mark" ] || $mark "$s"
		t0=$(now)
		step "$s" || die "$peer: step $s failed"
		t1=$(now)
		echo "$round $peer $s $(echo "$t0 $t1" | awk '{ printf "%.3f", $2 - $1 }')" >>"$R"
	done
	[ -z "$mark" ] || $mark end
}

for round in $(seq "$ROUNDS"); do
	# shellcheck disable=SC2086  # the peers' words
	for p in $(rotate "$round" $PEERS); do
		mount_peer "$p"
		session "$p"
		umount_peer "$p"
	done
	note "round $round done"
done

# The profile: the root daemon with -d (a line per request) in one more
# session, the log's length at each step's start: the requests of each step.
profile_mark() { echo "$1 $(wc -l <"$T/debug.log")" >>"$T/marks"; }
if [ "${CF_WORK_PROFILE:-1}" = 1 ]; then
	: >"$T/debug.log"
	: >"$T/marks"
	round=profile
	mount_peer root -d "$T/debug.log"
	session root profile_mark
	umount_peer root
	# The floor's round trip in this run: fsfloor -s answering first
	# stats (one LOOKUP each), µs per stat.
	"$O/bench/fsfloor" -s "$FM" 2>>"$T/daemon.log" &
	FL_PID=$!
	wait_mount "$FM" "$FL_PID"
	"$F" statall miscased "$FM/names" 20000 | awk '$1 == "per" { print $2 }' >"$T/roundtrip"
	fusermount3 -u "$FM"
	wait "$FL_PID"
	note "profile done"
fi

echo "casefoldfs: \`$CFS${OPTS:+ $OPTS}\` (root, and uid 65534 through fusermount3);" \
	"$(bindfs --version | head -1) with its defaults; backing: $(findmnt -no FSTYPE,SOURCE -T "$T") under $TMP;" \
	"the tree: $TREES, $FILES files ($(du -m "$T/tree.tar" | cut -f1) MB of tar; $(cat "$T/dups")" \
	"names left out that collide when folded); the build: \`make -j2 $TARGET\` of this project;" \
	"$(git --version); $ROUNDS rounds, a fresh mount per peer per round;" \
	"load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
echo
awk -v steps="$STEPS" "$MEDIAN_AWK$ROUNDS_AWK"'
function fmt(x) { return x == "" ? "—" : sprintf("%.3f", x) }
function rcell(p, s, base, target,   x) {
	x = ratio(p, s, base, s)
	if (x == "") return "—"
	return sprintf("%.2f× %s", x, x <= target ? "(met)" : "**(not met)**")
}
function row(label, s, tn, ttext) {
	printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", label,
		fmt(cell("native", s)), fmt(cell("bindfs", s)),
		fmt(cell("root", s)), fmt(cell("user", s)),
		rcell("root", s, "native", tn), rcell("user", s, "native", tn),
		rcell("root", s, "bindfs", 1), rcell("user", s, "bindfs", 1), ttext
}
$1 != "profile" {
	val[$1, $2, $3] = $4; val[$1, $2, "total"] += $4
	if ($1 > maxr) maxr = $1
}
END {
	label["untar"] = "untar the tree"; label["find"] = "`find -type f`"
	label["grep"] = "`grep -r` (a word no file holds)"
	label["commit"] = "`git init && git add -A && git commit`"
	label["status"] = "`git status` twice, warm"; label["build"] = "the build"
	label["walk"] = "open + read every file (casefoldfs: by another spelling)"
	label["rm"] = "`rm -rf` of it all"
	print "| step (seconds) | backing ext4 | bindfs | casefoldfs root | casefoldfs user | root / ext4 | user / ext4 | root / bindfs | user / bindfs | target (issue 40) |"
	print "|---|--:|--:|--:|--:|--:|--:|--:|--:|---|"
	ns = split(steps, st, " ")
	for (i = 1; i <= ns; i++) row(label[st[i]], st[i], 3, "≤ 3× ext4, ≤ 1.0× bindfs")
	row("**total**", "total", 1.5, "≤ 1.5× ext4, ≤ 1.0× bindfs")
}' "$R"
echo

# The profile table: per step, the requests the root daemon answered, the
# five most frequent opcodes, and what the requests a client waits for
# (all but FORGET, BATCH_FORGET, RELEASE and RELEASEDIR, which the kernel
# sends without waiting) cost at the floor's round trip: with ext4's time,
# what the step would take through a daemon that does no work, given the
# requests the kernel sends for it.  The last column is casefoldfs root's
# time over that (medians over the timed rounds).
if [ -s "${T}/marks" ]; then
	rt=$(cat "$T/roundtrip")
	echo "Requests to the root daemon per step (one more session, with \`-d\`, not timed); fsfloor -s's round trip in this run: ${rt:-—} µs:"
	echo
	echo "| step | requests | waited for | × the round trip (s) | ext4 + that (s) | casefoldfs root (s) | root / (ext4 + that) | most frequent opcodes |"
	echo "|---|--:|--:|--:|--:|--:|--:|---|"
	awk "$MEDIAN_AWK$ROUNDS_AWK"'$1 != "profile" { val[$1, $2, $3] = $4; if ($1 > maxr) maxr = $1 }
	END { n = split(steps, st, " ")
		for (i = 1; i <= n; i++) print st[i], cell("native", st[i]), cell("root", st[i]) }' \
		steps="$STEPS" "$R" >"$T/medians"
	awk -v rt="${rt:-0}" 'FILENAME ~ /medians$/ { nat[$1] = $2; root[$1] = $3; next }
	FILENAME ~ /marks$/ { name[++m] = $1; at[m] = $2; next }
	/opcode: / { line = FNR; for (k = m; k >= 1 && at[k] >= line; k--) ; op = $4
		n[k]++; c[k, op]++; ops[k, op] = 1
		if (op !~ /^(FORGET|BATCH_FORGET|RELEASE|RELEASEDIR)$/) w[k]++ }
	function secs(x) { return x == "" ? "—" : sprintf("%.3f", x) }
	END {
		for (k = 1; k < m; k++) {
			if (name[k] == "copy") continue
			s = ""
			for (j = 0; j < 5; j++) {
				best = ""; bc = 0
				for (key in ops) { split(key, kk, SUBSEP); if (kk[1] == k && c[key] > bc) { bc = c[key]; best = key } }
				if (best == "") break
				split(best, kk, SUBSEP); s = s (s ? ", " : "") kk[2] " " bc; delete ops[best]
			}
			cost = w[k] * rt / 1e6
			limit = nat[name[k]] == "" ? "" : nat[name[k]] + cost
			x = "—"
			if (limit > 0 && root[name[k]] != "") x = sprintf("%.2f×", root[name[k]] / limit)
			printf "| %s | %d | %d | %s | %s | %s | %s | %s |\n", name[k], n[k], w[k], secs(cost),
				secs(limit), secs(root[name[k]]), x, s
		}
	}' "$T/medians" "$T/marks" "$T/debug.log"
	echo
fi
echo "Section time: $(($(date +%s) - START)) s."
echo

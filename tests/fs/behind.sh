#!/usr/bin/env bash
# Changes made in the backing tree behind the daemon's back show through
# the mount within the bound of its cache mode (issue 20; fs/tree/DESIGN.md,
# "Kernel caches"): at once where they are watched (fanotify, inotify),
# within -o timeout where they are not.  For each mode: the kernel's caches
# are warmed (entries under other spellings, misses, attributes, data,
# listings), the backing tree changes (create, write, chmod, rename,
# unlink, a new fold-equal name), and the time until the mount shows the
# change is measured and checked against the bound.  Also: in a watched
# mode, what was warmed stays cached (a second stat costs no request).
. "$(dirname "$0")/../lib/fs.sh"

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# shows LIMIT_MS WHAT COMMAND...: polls COMMAND until it succeeds; fails
# the test if that takes longer than LIMIT_MS; prints the time taken.
shows() {
	local limit=$1 what=$2 start t
	shift 2
	start=$(now_ms)
	until "$@" >/dev/null 2>&1; do
		t=$(($(now_ms) - start))
		[ "$t" -le "$limit" ] || fail "$MODE: $what not shown after ${t} ms (bound ${limit} ms)"
		sleep 0.01
	done
	t=$(($(now_ms) - start))
	LAT="$LAT $what=${t}ms"
}

gone() { ! stat "$1" >/dev/null 2>&1; }
has() { [ "$(cat "$1")" = "$2" ]; }
mode_is() { [ "$(stat -c %a "$1")" = "$2" ]; }
listed() { names "$1" | grep -qx "$2"; }

scenario() {
	MODE=$1 LIMIT=$2
	shift 2
	rm -rf "$B" && mkdir "$B"
	cfs_mount -o "cache=$MODE" "$@"
	getfattr --only-values -n "${CFS_XATTRS}stats" "$M" 2>/dev/null | grep -q "cache $MODE" ||
		fail "$MODE: the stats xattr does not name the mode: $(getfattr --only-values \
			-n "${CFS_XATTRS}stats" "$M" 2>&1)"
	casefolded "$M/ci"
	mkdir "$M/plain"
	echo aaaa > "$M/ci/data"
	touch "$M/ci/perm" "$M/ci/old" "$M/ci/doomed" "$M/ci/name" "$M/plain/doomed"
	# Warm every cache the kernel has: twice, so the second is cached.
	for _ in 1 2; do
		stat "$M/ci/NEW" "$M/plain/new" "$M/ci/OLD" "$M/ci/DOOMED" "$M/plain/doomed" \
			>/dev/null 2>&1
		cat "$M/ci/DATA" "$M/ci/Perm" >/dev/null
		stat -c %a "$M/ci/PERM" >/dev/null
		names "$M/ci" >/dev/null
	done
	LAT=
	touch "$B/ci/new" && shows "$LIMIT" create stat "$M/ci/NEW"
	touch "$B/plain/new" && shows "$LIMIT" create-plain stat "$M/plain/new"
	echo bbbb > "$B/ci/data" && shows "$LIMIT" write has "$M/ci/DATA" bbbb
	chmod 600 "$B/ci/perm" && shows "$LIMIT" chmod mode_is "$M/ci/PERM" 600
	mv "$B/ci/old" "$B/ci/renamed" &&
		shows "$LIMIT" rename-away gone "$M/ci/OLD" &&
		shows "$LIMIT" rename-to stat "$M/ci/RENAMED"
	rm "$B/ci/doomed" && shows "$LIMIT" unlink gone "$M/ci/DOOMED"
	rm "$B/plain/doomed" && shows "$LIMIT" unlink-plain gone "$M/plain/doomed"
	touch "$B/ci/NAME" && shows "$LIMIT" fold-equal listed "$M/ci" NAME
	echo "$MODE:$LAT"
	cfs_umount
}

# The second stat of a warmed name asks the daemon nothing, in a watched
# mode: counted in the daemon's -d log.
stays_cached() {
	local mode=$1 before after
	rm -rf "$B" && mkdir "$B"
	cfs_mount -d -o "cache=$mode"
	casefolded "$M/ci"
	touch "$M/ci/file"
	sleep 0.5   # inotify echoes the daemon's own changes: let them pass
	stat "$M/ci/FILE" "$M/ci/file" >/dev/null
	sleep 1.5   # longer than the unwatched timeout
	before=$(grep -c 'opcode: \(LOOKUP\|GETATTR\)' "$T/daemon.log")
	stat "$M/ci/FILE" "$M/ci/file" >/dev/null
	after=$(grep -c 'opcode: \(LOOKUP\|GETATTR\)' "$T/daemon.log")
	[ "$after" = "$before" ] || fail "$mode: a warmed stat cost $((after - before)) requests"
	cfs_umount
}

# Watched: within 2 s (notices arrive in milliseconds; the margin is for a
# loaded machine).  Unwatched: within the timeout (1 s) plus that margin.
if [ -z "$CF_UNPRIV" ]; then
	scenario fanotify 2000
	stays_cached fanotify
else
	out=$("$CFS" -f -o cache=fanotify "$B" "$M" 2>&1) && fail "a user's fanotify mount worked"
	echo "$out" | grep -q "cache=fanotify" || fail "no reason given: $out"
fi
scenario inotify 2000
stays_cached inotify
scenario timeout 3000 -o timeout=1
echo "behind: ok"

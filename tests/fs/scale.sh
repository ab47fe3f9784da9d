#!/usr/bin/env bash
# Issue 12's bound, cheaply: with RLIMIT_NOFILE 256 the daemon serves 20,000
# files (made through the mount in one +F directory and over a tree) by
# exact and other spellings, ls -lR, find, du and rm -rf, with no error and
# never more descriptors than its cache and a small base; in both locator
# modes (file handles, and path locators as an unprivileged daemon has).
# Also: a file replaced behind the daemon's back is found afresh (ESTALE is
# retried by the kernel), and an open, unlinked file keeps working after its
# descriptor would have been evicted.
. "$(dirname "$0")/../lib/fs.sh"
command -v python3 >/dev/null || skip "no python3"
N=${CF_SCALE_FILES:-20000}

# work DIR: creates, stats and walks N files; prints the error count.
work() {
	python3 - "$1" "$N" <<'PY'
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
errors = 0
def run(f, *a):
    global errors
    try:
        f(*a)
    except OSError as e:
        errors += 1
        if errors <= 5:
            print("error:", e, file=sys.stderr)
os.makedirs(d + "/flat")
os.system("chattr +F '%s/flat'" % d)
for i in range(n):
    run(lambda p: os.close(os.open(p, os.O_CREAT | os.O_WRONLY, 0o644)), "%s/flat/File%d" % (d, i))
for i in range(n // 100):
    run(os.makedirs, "%s/tree/Dir%d" % (d, i))
    for j in range(100):
        run(lambda p: os.close(os.open(p, os.O_CREAT | os.O_WRONLY, 0o644)),
            "%s/tree/Dir%d/f%d" % (d, i, j))
for i in range(n):
    run(os.stat, "%s/flat/File%d" % (d, i))
    run(os.stat, "%s/flat/fILE%d" % (d, i))
for i in range(n // 100):
    run(os.stat, "%s/tree/Dir%d/f99" % (d, i))
print(errors)
PY
}

# bound PID: the daemon's descriptors must stay within cache + base.
bound() {
	local fds cache
	fds=$(ls "/proc/$1/fd" | wc -l)
	stats=$(getfattr -n ${CFS_XATTRS}stats --only-values "$M" 2>/dev/null)
	cache=$(echo "$stats" | sed -n 's/.*fd_cache \([0-9]*\).*/\1/p')
	echo "daemon: $fds descriptors; $stats"
	[ -n "$cache" ] || fail "no stats from the daemon"
	[ "$fds" -le $((cache + 32)) ] || fail "$fds descriptors, cache $cache"
}

for opts in "" "-o nohandles"; do
	rm -rf "${B:?}"/* "$B"/.casefoldfs
	# shellcheck disable=SC2086
	cfs_mount $opts
	errs=$(work "$M/w") || fail "the workload failed"
	[ "$errs" = 0 ] || fail "$errs errors with $opts"
	bound "$CFS_PID"
	# File handles need CAP_DAC_READ_SEARCH: a user's daemon finds by name.
	echo "$stats" | grep -q "handles $( [ -z "$opts$CF_UNPRIV" ] && echo yes || echo no)" ||
		fail "unexpected locator mode: $stats"
	files=$(find "$M/w" -type f | wc -l)
	[ "$files" = $((N + N / 100 * 100)) ] || fail "find counted $files files"
	ls -lR "$M/w" > /dev/null 2> "$T/ls.err" || fail "ls -lR: $(head -3 "$T/ls.err")"
	du -s "$M/w" > /dev/null || fail "du -s"
	bound "$CFS_PID"

	# Replaced behind our back: the old node's locator is stale.
	echo old > "$M/w/flat/File1"
	stat "$M/w/flat/FILE1" > /dev/null
	rm "$B/w/flat/File1" && echo new > "$B/w/flat/File1"
	sleep 1.1  # the kernel's cached entry and attributes expire
	[ "$(cat "$M/w/flat/file1")" = new ] || fail "a replaced file is not found afresh"

	# An open, unlinked file outlives its name and the cache's turnover.
	exec {held}<>"$M/w/flat/File2"
	rm "$M/w/flat/File2"
	find "$M/w/tree" -type f > /dev/null   # evicts every cached descriptor
	python3 - "$held" <<'PY' || fail "an open, unlinked file stopped working"
import os, sys
fd = int(sys.argv[1])
os.write(fd, b"still here")
os.fchmod(fd, 0o600)
st = os.fstat(fd)
assert st.st_nlink == 0 and st.st_mode & 0o777 == 0o600, st
PY
	exec {held}<&-

	rm -rf "$M/w" || fail "rm -rf"
	[ -z "$(ls -A "$B/w" 2>/dev/null)" ] || fail "rm -rf left entries"
	bound "$CFS_PID"
	cfs_umount
done
echo "scale: ok"

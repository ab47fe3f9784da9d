#!/usr/bin/env bash
# Request timeouts (issue 30, Linux 6.14+): with the daemon stopped, a
# process asking through the mount gets an error instead of waiting for
# ever.  The kernel takes a timeout of 15 s at least and looks for expired
# requests every 15 s, so the error comes within the timeout plus 15 s
# (plus a second of slack); without the option the default, 600 s, is
# what INIT settled.
# tests/run: alone (the error must come between the timeout and 16 s after it)
. "$(dirname "$0")/../lib/fs.sh"

stats() { getfattr --only-values -n "${CFS_XATTRS}stats" "$M" 2>/dev/null; }
field() { stats | tr ' ' '\n' | awk -v k="$1" 'p { print; exit } $0 == k { p = 1 }'; }

cfs_mount
stats | grep -q "init [a-z0-9_,]*request_timeout" || {
	cfs_umount
	skip "the kernel offers no FUSE_REQUEST_TIMEOUT (Linux < 6.14)"
}
[ "$(field request_timeout)" = 600 ] || fail "default request_timeout $(field request_timeout)"
cfs_umount

timeout=15
cfs_mount -o request_timeout=$timeout
[ "$(field request_timeout)" = $timeout ] || fail "request_timeout $(field request_timeout)"
kill -STOP "$CFS_PID"
start=$(date +%s%N)
err=$(stat "$M/not-yet-looked-up" 2>&1) && fail "stat through a stopped daemon succeeded"
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
kill -CONT "$CFS_PID"
echo "stopped daemon: error after ${elapsed_ms} ms: $err"
[ "$elapsed_ms" -le $(( (timeout + 15 + 1) * 1000 )) ] ||
	fail "the error came after ${elapsed_ms} ms, more than $timeout + 15 + 1 s"
[ "$elapsed_ms" -ge $(( timeout * 1000 - 500 )) ] ||
	fail "the error came after ${elapsed_ms} ms, before the timeout"
# The kernel ended the connection: the daemon leaves by itself.
for _ in $(seq 100); do kill -0 "$CFS_PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$CFS_PID" 2>/dev/null && fail "the daemon still runs after the connection ended"
wait "$CFS_PID" || fail "the daemon exited with status $?"
CFS_PID=
fusermount3 -u "$M" 2>/dev/null || fusermount3 -uz "$M"

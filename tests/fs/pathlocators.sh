#!/usr/bin/env bash
# The namespace suites again with path locators (what an unprivileged daemon
# uses) and a 16-descriptor cache, so that nearly every operation reopens
# its objects by parent and name and checks their identity.
set -u
here=$(dirname "$0")
export CF_MOUNT_OPTS="-o nohandles,fd_cache=16"
status=0
for t in lookup rename links version flags normalize strict cache hostile races stress_model; do
	if out=$("$here/$t.sh" 2>&1); then
		echo "ok   $t"
	else
		rc=$?
		[ "$rc" = 77 ] && { echo "skip $t"; continue; }
		echo "FAIL $t (exit $rc)"; echo "$out" | tail -n 20 | sed 's/^/    | /'
		status=1
	fi
done
exit $status

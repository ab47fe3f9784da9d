#!/usr/bin/env bash
# The namespace suites again with path locators (what an unprivileged daemon
# uses) and a 16-descriptor cache, so that nearly every operation reopens
# its objects by parent and name and checks their identity.
set -u
. "$(dirname "$0")/../lib/suites.sh"
export CF_MOUNT_OPTS="-o nohandles,fd_cache=16"
again fs/lookup fs/rename fs/links fs/version fs/flags fs/normalize fs/strict fs/cache fs/hostile \
	fs/races fs/stress_model

#!/usr/bin/env bash
# The namespace suites again with path locators (what an unprivileged daemon
# uses) and a 16-descriptor cache, so that nearly every operation reopens
# its objects by parent and name and checks their identity.
set -u
. "$(dirname "$0")/suites.sh"
export CF_MOUNT_OPTS="-o nohandles,fd_cache=16"
again lookup rename links flags normalize strict cache hostile races stress_model

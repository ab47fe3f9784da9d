#!/usr/bin/env bash
# The suites again with -o opens=kernel (issue 20; fs/tree/DESIGN.md, "File
# data"): files open without OPEN, RELEASE or FLUSH, so every read, write,
# fsync and truncation reaches the daemon without a file of its own, and a
# removed file still open in the kernel lives on in a held descriptor.
# Not coherence.sh: this mode gives up its guarantee (measured there).
set -u
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root: -o opens=kernel is root's only"; exit 77; }
. "$(dirname "$0")/../lib/suites.sh"
export CF_MOUNT_OPTS="-o opens=kernel"
again fs/lookup fs/rename fs/links fs/flags fs/cache fs/killed fs/hostile fs/acl \
	fs/stress_model fs/kill_stress

#!/bin/sh
# Benchmark section "attack": another user's latency while one user attacks
# a shared mount (fs/README.md, Threat model: availability).  Each attack is
# the stage of its test, run here for its figures: stall.sh (file leases on
# the attacker's files, lease breaks ignored), nested.sh (70 FUSE mounts that
# never answer, below the backing root), watchstall.sh (a +F directory of
# 100,000 names churned behind the daemon while six threads look it up).
# Each test measures root's stat latency over fresh names of its own
# directory, once idle and once while the attack runs, on root's daemon
# (attacked by uid 65534) and on a user's daemon with allow_other (attacked
# by uid 4242).  The goal: p99 under 10 ms during every attack; the idle p99
# of the same mount in the same run is the machine's own floor.
# Usage: bench/attack.sh BUILD_DIR (as root: mounts, two users).
set -u
O=${1:-build}

. bench/prelude.sh
prelude "mounts as two users" setpriv python3
make -s O="$O" "$O/casefoldfs" || die "build failed"
export CF_BUILD="$(cd "$O" && pwd)" CF_ROOT="$(pwd)"

echo "| attack | daemon | idle p99 (max), µs | under attack p99 (max), µs | ratio | goal: p99 < 10 ms |"
echo "|---|---|---|---|---|---|"
for t in stall nested watchstall; do
	out=$(tests/fs/$t.sh 2>&1)
	rc=$?
	[ "$rc" = 0 ] || { printf '%s\n' "$out" | tail -5 >&2; die "tests/fs/$t.sh failed (exit $rc)"; }
	printf '%s\n' "$out" | sed -n "s/^\([a-z]*\)'s daemon: root's stat p99 (max): idle \([0-9]*\) (\([0-9]*\)) us, during the attack \([0-9]*\) (\([0-9]*\)) us.*/\1 \2 \3 \4 \5/p" |
	while read -r mode idle idle_max p99 worst; do
		awk -v t="$t.sh" -v m="$mode" -v i="$idle" -v im="$idle_max" -v p="$p99" -v w="$worst" 'BEGIN {
			printf "| %s | %s'"'"'s | %d (%d) | %d (%d) | %.2f× | %s |\n", t, m, i, im, p, w,
				p / (i > 0 ? i : 1), p < 10000 ? "met" : "not met"
		}'
	done
done
echo
echo "Reproduce one: \`CF_BUILD=\$PWD/$O CF_ROOT=\$PWD tests/fs/stall.sh\` (prints each daemon's line)."

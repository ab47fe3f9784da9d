#!/bin/sh
# Benchmark section "attack": another user's latency while one user attacks
# a shared mount (fs/THREAT-MODEL.md: availability).  Each attack is
# the stage of its test, run here for its figures: fs/stall.sh (file leases
# on the attacker's files, lease breaks ignored), fs/nested.sh (70 FUSE
# mounts that never answer, below the backing root), fs/watchstall.sh (a +F
# directory of 100,000 names churned behind the daemon while six threads
# look it up), view/stall.sh (leases, FIFOs swapped in, silent FUSE mounts
# in a layer, against root's overlay view).
# Each test measures root's stat latency over fresh names of its own
# directory, once idle and once while the attack runs, on root's daemon
# (attacked by uid 65534) and on a user's daemon with allow_other (attacked
# by uid 4242); the view's, on root's view only.  The goal: p99 under 10 ms
# during every attack; the idle p99 of the same mount in the same run is the
# machine's own floor.
# Usage: bench/attack.sh BUILD_DIR (as root: mounts, two users).
set -u
O=${1:-build}

. bench/prelude.sh
prelude "mounts as two users" setpriv python3
make -s O="$O" "$O/casefoldfs" || die "build failed"
export CF_BUILD="$(cd "$O" && pwd)" CF_ROOT="$(pwd)"

echo "| attack | daemon | idle p99 (max), µs | under attack p99 (max), µs | ratio | goal: p99 < 10 ms |"
echo "|---|---|---|---|---|---|"
for t in fs/stall fs/nested fs/watchstall view/stall; do
	out=$(tests/$t.sh 2>&1)
	rc=$?
	[ "$rc" = 0 ] || { printf '%s\n' "$out" | tail -5 >&2; die "tests/$t.sh failed (exit $rc)"; }
	# A tree's line names its daemon; the view's names its attack.
	printf '%s\n' "$out" | sed -n \
		-e "s/^\([a-z]*\)'s daemon: root's stat p99 (max): idle \([0-9]*\) (\([0-9]*\)) us, during the attack \([0-9]*\) (\([0-9]*\)) us.*/- \1's \2 \3 \4 \5/p" \
		-e "s/^\([a-z]*\): root's stat p99 (max) \([0-9]*\) (\([0-9]*\)) us, idle \([0-9]*\) (\([0-9]*\)) us.*/\1 root's_view \4 \5 \2 \3/p" |
	while read -r attack daemon idle idle_max p99 worst; do
		awk -v t="$t" -v a="$attack" -v d="$daemon" -v i="$idle" -v im="$idle_max" -v p="$p99" -v w="$worst" 'BEGIN {
			sub(/_/, " ", d)
			if (a != "-") t = t " (" a ")"
			printf "| %s | %s | %d (%d) | %d (%d) | %.2f× | %s |\n", t, d, i, im, p, w,
				p / (i > 0 ? i : 1), p < 10000 ? "met" : "not met"
		}'
	done
done
echo
echo "Reproduce one: \`CF_BUILD=\$PWD/$O CF_ROOT=\$PWD tests/fs/stall.sh\` (prints each daemon's line)."

#!/usr/bin/env bash
# Concurrency: workers create, rename and remove random spellings of a few
# names in one casefolded directory at the same time.  Afterwards no two
# stored names may be fold-equal, the mount must list exactly the backing
# directory, and every entry must be reachable by another spelling.
. "$(dirname "$0")/../lib/fs.sh"

# spell NAME: NAME with each letter's case chosen at random.
spell() {
	local s=$1 out= c i
	for ((i = 0; i < ${#s}; i++)); do
		c=${s:i:1}
		((RANDOM % 2)) && c=${c^^}
		out+=$c
	done
	printf '%s' "$out"
}

worker() {
	local end=$((SECONDS + 3)) a b
	local names=(alpha beta gamma delta omega)
	while [ $SECONDS -lt $end ]; do
		a=ci/$(spell "${names[RANDOM % 5]}")
		b=ci/$(spell "${names[RANDOM % 5]}")
		case $((RANDOM % 5)) in
		0|1) echo "$a" > "$a" ;;
		2) mv -T "$a" "$b" ;;
		3) rm -f "$a" ;;
		4) mkdir "ci/$(spell sub)" && rmdir "ci/$(spell sub)" ;;
		esac 2>/dev/null
	done
}

cfs_mount
cd "$M" || fail "cd"
casefolded ci
pids=
for _ in 1 2 3 4 5 6; do
	worker &
	pids="$pids $!"
done
wait $pids
dups=$(names "$B/ci" | tr '[:upper:]' '[:lower:]' | sort | uniq -d)
[ -z "$dups" ] || fail "fold-equal names stored: $dups"
[ "$(names ci)" = "$(names "$B/ci")" ] || fail "listing differs from the backing directory"
for n in $(names "$B/ci"); do
	[ -e "ci/${n^^}" ] || fail "$n unreachable as ${n^^}"
done
echo "stress: $(names "$B/ci" | wc -l) entries left, consistent"
cd /
cfs_umount

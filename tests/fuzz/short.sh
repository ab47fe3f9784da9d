#!/usr/bin/env bash
# Each fuzz target for a fixed number of executions under ASan+UBSan, from
# the generated seed corpus.  A property violation or crash fails the test.
. "$(dirname "$0")/../lib.sh"
runs=${CF_FUZZ_RUNS:-100000}
bin=$CF_BUILD/fuzz
[ -d "$bin" ] || skip "fuzz targets not built in $bin (make O=$CF_BUILD fuzz-targets)"
work=$(mktemp -d)
at_exit "rm -rf '$work'"
"$CF_ROOT/tests/fuzz/seeds" "$work"
status=0
for t in "$bin"/fuzz_*; do
	name=$(basename "$t")
	if "$t" -runs="$runs" -max_len=512 -seed=1 -print_final_stats=1 "$work/$name" >"$work/$name.log" 2>&1; then
		echo "$name: $(grep -o 'stat::number_of_executed_units: [0-9]*' "$work/$name.log" || echo "$runs runs") ok"
	else
		echo "$name: FAILED"; tail -n 30 "$work/$name.log"; status=1
	fi
done
exit $status

#!/usr/bin/env bash
# Random operations from 1, 4 and 16 processes checked against a reference
# model (stress.py, stress_model.py): every outcome, and at the end every
# name, file, link, xattr and flag of the tree.  `make stress` runs it long
# (CF_STRESS_OPS operations per process, default here 1,500 / 400 / 120).
. "$(dirname "$0")/../lib/fs.sh"
command -v python3 >/dev/null || skip "no python3"

ops=${CF_STRESS_OPS:-}
for run in "1 ${ops:-1500}" "4 ${ops:-400}" "16 ${ops:-120}"; do
	set -- $run
	rm -rf "$B" && mkdir "$B" || fail "fresh backing tree"
	python3 "$CF_ROOT/tests/lib/stress.py" --cfs "$CFS" --cli "$CF_BUILD/casefold" \
		--dir "$T" --procs "$1" --ops "$2" --seed "${CF_STRESS_SEED:-$1}" ||
		fail "stress with $1 processes (daemon log: $(tail -n 5 "$T/daemon.log"))"
done

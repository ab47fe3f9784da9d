#!/usr/bin/env bash
# The model stress on an overlay view (issue 25; overlay_stress.py): four
# lower trees spelling every name their own way, with whiteouts of both
# forms, under an upper tree; random operations from 1, 4 and 16 processes
# checked against the reference model, then kill -9 rounds: after every
# kill and remount the view is what the model says (or the state just
# before or after the operation in flight), no lower tree changed in any
# way, and the upper tree holds only whiteouts and what the view shows,
# every file a complete copy (the lower files check themselves).
# CF_STRESS_OPS, CF_STRESS_KILLS and CF_STRESS_SEED as for stress.sh.
. "$(dirname "$0")/overlay_lib.sh"

ops=${CF_STRESS_OPS:-}
# overlay_stress.py mounts on $T/ovl/mnt: unmounted here should it fail.
at_exit "grep -qs ' $T/ovl/mnt fuse' /proc/mounts && fusermount3 -uz '$T/ovl/mnt'"
run() { # PROCS OPS KILLS SEED
	rm -rf "$T/ovl" && mkdir "$T/ovl" || fail "fresh trees"
	python3 "$CF_ROOT/tests/fs/overlay_stress.py" --cfs "$CFS" --cli "$CF_BUILD/casefold" \
		--dir "$T/ovl" --procs "$1" --ops "$2" --kills "$3" --seed "$4" --layers 4 ||
		fail "overlay stress, $1 processes, $3 kills (daemon log: $(tail -n 5 "$T/ovl/daemon.log"))"
}
# A few seconds each: one process (deterministic for a seed) on three sets
# of layers, then 4 and 16 racing, then 4 with kills.
for seed in 1 2 3; do
	run 1 "${ops:-3000}" 0 "${CF_STRESS_SEED:-$seed}"
done
run 4 "${ops:-1500}" 0 "${CF_STRESS_SEED:-4}"
run 16 "${ops:-300}" 0 "${CF_STRESS_SEED:-16}"
run 4 "${ops:-1500}" "${CF_STRESS_KILLS:-6}" "${CF_STRESS_SEED:-7}"

#!/usr/bin/env bash
# The model test of an overlay view's rule, one name per fold group
# (issue 41; model.py): twins of every kind in every layer (files,
# directories, a file and a directory of one group, whiteouts; case, NFC
# and NFD, ß/SS/ẞ, the Kelvin sign, final sigma); random operations from
# 1, 4 and 16 processes, the whole view compared with the model after every
# phase, live and after a remount; and layer changes (issue 43: a layer
# added, removed, two swapped, a new stack, the upper layer switched, with
# or without a new stack) between parts of each phase, after each of which
# the live view, the model worked out again from the layers and a fresh
# mount of the new stack must agree.  Short here; `make stress` runs it long
# (CF_STRESS_OPS operations per process and phase).
. "$(dirname "$0")/lib.sh"

ops=${CF_STRESS_OPS:-}
at_exit "fuse_mounted '$T/m/mnt' && fusermount3 -uz '$T/m/mnt'"
at_exit "fuse_mounted '$T/m/fresh' && fusermount3 -uz '$T/m/fresh'"
run() { # PROCS OPS PHASES SEED
	rm -rf "$T/m" && mkdir "$T/m" || fail "fresh layers"
	python3 "$CF_ROOT/tests/view/model.py" --cfs "$CFS" --cli "$CF_BUILD/casefold" \
		--dir "$T/m" --procs "$1" --ops "$2" --phases "$3" --changes 3 --seed "$4" ||
		fail "overlay model, $1 processes (daemon log: $(tail -n 5 "$T/m/daemon.log"))"
}
for seed in 1 2 3; do
	run 1 "${ops:-300}" 3 "${CF_STRESS_SEED:-$seed}"
done
run 4 "${ops:-150}" 3 "${CF_STRESS_SEED:-4}"
run 16 "${ops:-40}" 3 "${CF_STRESS_SEED:-16}"

#!/usr/bin/env bash
# kill -9 the daemon at random moments of a model-checked stress run (see
# stress.py): after each kill the mount is dropped (fusermount3 -uz) and
# remounted, and the backing tree must hold exactly what the model says —
# names, contents (fsynced or not: the daemon keeps nothing in memory),
# links, xattrs, flags — with no temporary files, and every stored name must
# be found again by its other spellings through the rebuilt index.
. "$(dirname "$0")/../lib/fs.sh"
command -v python3 >/dev/null || skip "no python3"

python3 "$CF_ROOT/tests/lib/stress.py" --cfs "$CFS" --cli "$CF_BUILD/casefold" --dir "$T" \
	--procs 4 --ops "${CF_STRESS_OPS:-600}" --kills "${CF_STRESS_KILLS:-4}" \
	--seed "${CF_STRESS_SEED:-7}" || fail "stress with kills (daemon log: $(tail -n 5 "$T/daemon.log"))"

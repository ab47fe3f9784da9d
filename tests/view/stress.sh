#!/usr/bin/env bash
# The model stress on an overlay view (issue 25; view_stress.py): four
# lower layers spelling every name their own way, with whiteouts of both
# forms, under an upper layer; random operations from 1, 4 and 16 processes
# checked against the reference model, then kill -9 rounds: after every
# kill and remount the view is what the model says (or the state just
# before or after the operation in flight), no lower layer changed in any
# way, and the upper layer holds only whiteouts and what the view shows,
# every file a complete copy (the lower files check themselves).  Then
# kill -9 in the middle of a 128 MiB copy-up, and opens racing with removals.
# CF_STRESS_OPS, CF_STRESS_KILLS and CF_STRESS_SEED as for tests/fs/stress.sh.
. "$(dirname "$0")/lib.sh"

ops=${CF_STRESS_OPS:-}
# view_stress.py mounts on $T/ovl/mnt: unmounted here should it fail.
at_exit "fuse_mounted '$T/ovl/mnt' && fusermount3 -uz '$T/ovl/mnt'"
run() { # PROCS OPS KILLS SEED
	rm -rf "$T/ovl" && mkdir "$T/ovl" || fail "fresh layers"
	python3 "$CF_ROOT/tests/view/view_stress.py" --cfs "$CFS" --cli "$CF_BUILD/casefold" \
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

# ---- kill -9 in the middle of a big copy-up, several times: the upper
# tree has the whole copy or none, the work directory is emptied by the
# next mount, and the lower file never changes.
L=$T/big.lower U=$T/big.upper W=$T/big.work
mkdir -p "$L/Data" "$U" "$W"
head -c $((128 << 20)) /dev/urandom >"$L/Data/Big.bsa" || fail "making the big lower file"
want=$(sha256sum <"$L/Data/Big.bsa")
lower_state=$(tree_state "$L")
copies=0
for round in 1 2 3; do
	ovl_mount "lowerdir=$L,upperdir=$U,workdir=$W"
	if [ -e "$U/Data/Big.bsa" ]; then          # copied in an earlier round
		cfs_umount
		rm -rf "$U/Data"
		ovl_mount "lowerdir=$L,upperdir=$U,workdir=$W"
	fi
	[ -z "$(find "$W" -type f)" ] || fail "round $round: the work directory was not emptied: $(find "$W" -type f)"
	(echo appended >>"$M/data/BIG.BSA") 2>/dev/null &
	writer=$!
	# Kill once the copy has started: a file growing in the work directory,
	# looked for without pause (a copy takes some tens of milliseconds).
	end=$((SECONDS + 30))
	until [ -n "$(find "$W" -type f -size +0 2>/dev/null)" ] || [ -e "$U/Data/Big.bsa" ]; do
		[ $SECONDS -lt $end ] || fail "round $round: no copy-up began"
	done
	kill -9 "$CFS_PID"
	wait "$writer" 2>/dev/null
	wait "$CFS_PID" 2>/dev/null
	CFS_PID=
	fusermount3 -u "$M" 2>/dev/null || fusermount3 -uz "$M" || fail "unmount after the kill"
	if [ -e "$U/Data/Big.bsa" ]; then
		copies=$((copies + 1))
		got=$(head -c $((128 << 20)) "$U/Data/Big.bsa" | sha256sum)
		rest=$(tail -c +$(((128 << 20) + 1)) "$U/Data/Big.bsa")
		[ "$got" = "$want" ] && { [ -z "$rest" ] || [ "$rest" = appended ]; } ||
			fail "round $round: the upper layer holds a partial copy ($(stat -c %s "$U/Data/Big.bsa") bytes)"
	fi
	ovl_mount "lowerdir=$L,upperdir=$U,workdir=$W"
	[ "$(head -c $((128 << 20)) "$M/DATA/big.bsa" | sha256sum)" = "$want" ] || fail "round $round: the view's file after the kill"
	cfs_umount
	[ "$(tree_state "$L")" = "$lower_state" ] || fail "round $round: the lower layer changed"
done
echo "kill -9 during a 128 MiB copy-up, 3 rounds: the upper layer held the whole copy after $copies, none after the others"

# ---- Opens, truncates and chmods racing with a name's removal and
# re-creation (a lower file, then upper ones; each removal leaves a
# whiteout in its place): each finds the file or nothing (ENOENT), never
# the whiteout (an open of it is ENXIO).
L=$T/race.lower U=$T/race.upper W=$T/race.work
mkdir -p "$L/s" "$U" "$W" && echo lower >"$L/s/f"
ovl_mount "lowerdir=$L,upperdir=$U,workdir=$W"
python3 - "$M/s" <<'PY' || fail "opens racing with removals"
import errno, multiprocessing as mp, os, sys, time
d = sys.argv[1]
def churn(stop):
    i = 0
    while not stop.is_set():
        try:
            if i % 2:
                os.unlink(os.path.join(d, "F"))
            else:
                fd = os.open(os.path.join(d, "f"), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
                os.write(fd, b"upper\n")
                os.close(fd)
        except OSError:
            pass
        i += 1
stop = mp.Event()
p = mp.Process(target=churn, args=(stop,))
p.start()
seen = {}
end = time.time() + 3
f = os.path.join(d, "f")
calls = {
    "open": lambda: os.close(os.open(f, os.O_RDONLY)),
    "truncate": lambda: os.truncate(f, 1),
    "chmod": lambda: os.chmod(f, 0o600),
}
i = 0
while time.time() < end:
    what = list(calls)[i % len(calls)]
    i += 1
    try:
        calls[what]()
        k = "OK"
    except OSError as e:
        k = errno.errorcode.get(e.errno, str(e.errno))
    if k not in ("OK", "ENOENT"):
        k = what + " " + k
    seen[k] = seen.get(k, 0) + 1
stop.set()
p.join()
print("opens racing with removals:", seen)
sys.exit(0 if set(seen) <= {"OK", "ENOENT"} else 1)
PY
cfs_umount

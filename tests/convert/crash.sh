#!/usr/bin/env bash
# Crash safety: the converter is stopped dead after every single step of a
# conversion (CASEFOLD_CONVERT_CRASH_AFTER=N makes it _exit after N steps),
# and killed with SIGKILL at random moments of a large one.  After each
# kill, every file and symlink of the backing tree exists exactly as many
# times as it has links; a rerun finishes, and the tree equals the one an
# uninterrupted run makes.
. "$(dirname "$0")/lib.sh"

cfs_mount
# Copying the original reads it and moves its atimes: leave file atimes out
# here (basic.sh checks them).
snapshot() { manifest "$1" --no-atime-dirs | sed -E 's/^(\S+ f \S+ \S+ \S+) \S+/\1/'; }
make_tree "$T/orig" 1
echo a > "$T/orig/Makefile"; echo b > "$T/orig/makefile"
mkdir "$T/orig/X" "$T/orig/x"; echo 1 > "$T/orig/X/f"; echo 2 > "$T/orig/x/F"

# The reference: one uninterrupted run.
cp -a "$T/orig" "$B/ref"
"$CF" convert --on-collision=rename "$M/ref" >/dev/null 2>&1 || fail "reference run"
snapshot "$M/ref" >"$T/want"

# census_ok DIR: the files of the copy being converted are all there, once.
census_ok() {
	inode_census "$B/$1" "$B"/.*"$1".casefold-* >"$T/census"
	cmp -s "$T/census" "$T/census0" || {
		diff "$T/census0" "$T/census" >&2
		fail "$1: files lost or duplicated after a kill ($2)"
	}
}

# Each attempt gets its own copy, made in the backing tree (fast), under a
# new name (no dentry of an earlier copy can be cached).
# CF_CRASH_STRIDE=1 stops at every step (slower); the default, every other.
stride=${CF_CRASH_STRIDE:-2}
n=1
while :; do
	c=c$n
	cp -a "$T/orig" "$B/$c"
	inode_census "$B/$c" >"$T/census0"
	CASEFOLD_CONVERT_CRASH_AFTER=$n "$CF" convert --on-collision=rename "$M/$c" >/dev/null 2>&1
	rc=$?
	[ $rc = 0 ] && break
	[ $rc = 99 ] || fail "step $n: exit $rc"
	census_ok $c "after step $n"
	# A crash during the rerun too, a third of the time.
	if [ $((n % 3)) = 0 ]; then
		CASEFOLD_CONVERT_CRASH_AFTER=$((n / 3 + 1)) "$CF" convert --on-collision=rename \
			"$M/$c" >/dev/null 2>&1
		census_ok $c "after step $n and a second crash"
	fi
	"$CF" convert --on-collision=rename "$M/$c" >"$T/out" 2>&1 ||
		fail "rerun after step $n: $(cat "$T/out")"
	census_ok $c "after the rerun that followed step $n"
	# The whole manifest costs more: every fourth crash point.
	if [ $((n % 4)) = 1 ] || [ $stride -gt 1 ]; then
		check_flags "$M/$c"
		snapshot "$M/$c" >"$T/got"
		diff "$T/want" "$T/got" >&2 || fail "after a crash at step $n the tree differs"
	fi
	n=$((n + stride))
done
steps=$n points=$(((n + stride - 1) / stride))
[ $steps -gt 40 ] || fail "only $steps steps: the hook does not work"
ls -A "$B" | grep -q 'casefold-' && fail "leftovers: $(ls -A "$B")"

# kill -9 at moments spread over a conversion of 2000 files.
rm -rf "$T/orig"
make_tree "$T/orig" 660
cp -a "$T/orig" "$B/bigref"
"$CF" convert "$M/bigref" >/dev/null 2>&1 || fail "reference run (large)"
snapshot "$M/bigref" >"$T/want"
kills=0
for delay in 0.05 0.2 0.4 0.6; do
	c=big$delay
	cp -a "$T/orig" "$B/$c"
	inode_census "$B/$c" >"$T/census0"
	"$CF" convert "$M/$c" >/dev/null 2>&1 &
	pid=$!
	sleep "$delay"
	kill -9 $pid 2>/dev/null && kills=$((kills + 1))
	wait $pid 2>/dev/null
	census_ok $c "kill -9 after ${delay}s"
	"$CF" convert "$M/$c" >"$T/out" 2>&1 || fail "rerun after kill: $(cat "$T/out")"
	snapshot "$M/$c" >"$T/got"
	diff "$T/want" "$T/got" >&2 || fail "after kill -9 at ${delay}s the tree differs"
done

# A kill between the probe's two mkdirs leaves the probe directory with the
# invalid name inside (a kill -9 at 0.05 s once did): the rerun clears it.
cp -a "$T/orig" "$B/probed"
mkdir "$M/.probed.casefold-probe" && chattr +F "$M/.probed.casefold-probe" &&
	mkdir "$M/.probed.casefold-probe/$(printf '\xff')" || fail "setup: a leftover probe"
"$CF" convert "$M/probed" >"$T/out" 2>&1 || fail "run after a killed probe: $(cat "$T/out")"
[ ! -e "$M/.probed.casefold-probe" ] || fail "the leftover probe is still there"
snapshot "$M/probed" >"$T/got"
diff "$T/want" "$T/got" >&2 || fail "after a killed probe the tree differs"
cfs_umount
echo "crash: ok ($points of $steps crash points, $kills real kills, a leftover probe)"

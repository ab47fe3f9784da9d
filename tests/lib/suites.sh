# again SUITES...: runs the named suites (fs/lookup, clients/git...) again
# as they are, each through the command in the array AGAIN_AS if set (a
# change of user, say), with whatever the caller exported (CF_MOUNT_OPTS:
# options added to every mount).  Sourced, not run.  Prints a line per
# suite; returns 1 if any failed, 77 if every one skipped.
again() {
	local tests status=0 ran=0 out rc
	tests=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	for t in "$@"; do
		if out=$(${AGAIN_AS[@]+"${AGAIN_AS[@]}"} "$tests/$t.sh" 2>&1); then
			echo "ok   $t"
			ran=$((ran + 1))
		else
			rc=$?
			[ "$rc" = 77 ] && { echo "skip $t: $(echo "$out" | tail -n 1)"; continue; }
			echo "FAIL $t (exit $rc)"; echo "$out" | tail -n 20 | sed 's/^/    | /'
			status=1 ran=$((ran + 1))
		fi
	done
	[ "$ran" -gt 0 ] || return 77
	return $status
}

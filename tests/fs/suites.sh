# again SUITES...: runs the named tests/fs suites again as they are, with the
# options in CF_MOUNT_OPTS added to every mount (sourced, not run; for
# pathlocators.sh and kernelopens.sh).  Prints a line per suite; returns 1
# if any failed, 77 if every one skipped.
again() {
	local here status=0 ran=0 out rc
	here=$(dirname "${BASH_SOURCE[0]}")
	for t in "$@"; do
		if out=$("$here/$t.sh" 2>&1); then
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

# Sourced by the tests/cli/*.sh scripts (not itself a test: not executable).
# Each script runs the casefold binary of $CF_BUILD, counts failures with
# record_failure and goes on, and ends with `finish`: exit 0 if all passed,
# 1 otherwise.  skip and fail (stop now) are tests/lib.sh's.
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

[ -x "$CF_BUILD/casefold" ] || skip "no casefold binary in $CF_BUILD"
CF=$CF_BUILD/casefold
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
at_exit "rm -rf '$TMP'"
failures=0
checks=0

# record_failure REASON: one check failed; the test goes on.
record_failure() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# check DESCRIPTION WANT_STATUS WANT_STDOUT CMD... : run CMD with stdin from
# $TMP/in when it exists, compare its exit status and its stdout (as
# printed by $(...), trailing newlines dropped).  A hang fails in 2 minutes.
# CMD may be one of the exported functions below.
check() {
	local what=$1 want_rc=$2 want_out=$3 out rc
	shift 3
	checks=$((checks + 1))
	if [ -e "$TMP/in" ]; then
		out=$(timeout 120 bash -c '"$@"' sh "$@" <"$TMP/in" 2>"$TMP/err"); rc=$?
	else
		out=$(timeout 120 bash -c '"$@"' sh "$@" </dev/null 2>"$TMP/err"); rc=$?
	fi
	if [ "$rc" != "$want_rc" ]; then
		record_failure "$what: exit $rc, want $want_rc ($(head -c 300 "$TMP/err"))"
	elif [ "$out" != "$want_out" ]; then
		record_failure "$what: got [$out], want [$want_out]"
	fi
}

# input BYTES... : the next checks read these bytes (printf %b escapes).
input() {
	printf '%b' "$@" >"$TMP/in"
}

# no_input: the next checks read /dev/null.
no_input() {
	rm -f "$TMP/in"
}

# reasons CMD...: CMD with "error: <reason>" lines shown as "error: R" (the
# reason is the library's wording; the tests check only that there is one).
reasons() {
	"$@" | sed 's/^error: ..*$/error: R/'
	return "${PIPESTATUS[0]}"
}

# nul2nl CMD...: CMD with NUL shown as newline and newline as |.
nul2nl() {
	"$@" | tr '\0\n' '\n|'
	return "${PIPESTATUS[0]}"
}
export -f reasons nul2nl

finish() {
	echo "$checks checks, $failures failed"
	[ "$failures" -eq 0 ]
	exit
}

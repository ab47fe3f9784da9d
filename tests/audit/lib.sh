# Helpers for the casefold audit tests (sourced, not run): the CLI under
# test, $CF, and a private temporary directory $T, removed on exit.
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
CF=$CF_BUILD/casefold
[ -x "$CF" ] || skip "no $CF"
T=$(mktemp -d) || exit 1
at_exit "rm -rf '$T'"

#!/usr/bin/env bash
# Usage errors exit 2 with "casefold: ..." on stderr and nothing on stdout;
# --help works for the tool and every verb; help --man is well-formed roff.
. "$(dirname "$0")/lib.sh"

# usage DESCRIPTION CMD...: a usage error.
usage() {
	local what=$1
	shift
	check "$what" 2 "" "$@"
	grep -q '^casefold: ' "$TMP/err" || record_failure "$what: no 'casefold: ' message on stderr"
}

usage "no verb" "$CF"
usage "unknown verb" "$CF" frobnicate
usage "unknown long option" "$CF" fold --frob a
usage "unknown short option" "$CF" fold -x a
usage "option with an argument it does not take" "$CF" fold --hex=1 a
usage "missing option argument" "$CF" fold a --encoding
usage "unknown encoding" "$CF" fold --encoding=utf8-99.0.0 a
usage "bad --ignorables" "$CF" fold --ignorables=drop a
usage "no names" "$CF" fold
usage "normalize without names" "$CF" normalize --hex
usage "validate without names" "$CF" validate
usage "--nocase is for cmp" "$CF" fold --nocase a
usage "cmp -0" "$CF" cmp -0 a b
usage "help of an unknown verb" "$CF" help frobnicate
usage "help --man with a verb" "$CF" help --man fold

check "options after names" 0 616263 "$CF" fold ABC --hex
check "-- ends options" 0 2d61 "$CF" fold --hex -- -A
check "option abbreviation" 0 6162 "$CF" fold --ignorables=strip --enc=utf8 --hex AB

for verb in fold normalize cmp validate versions help; do
	"$CF" "$verb" --help >"$TMP/help"; rc=$?
	checks=$((checks + 1))
	[ "$rc" = 0 ] || record_failure "$verb --help: exit $rc"
	grep -q "^Usage: casefold $verb" "$TMP/help" || record_failure "$verb --help: no usage line"
	"$CF" help "$verb" | cmp -s - "$TMP/help" || record_failure "help $verb differs from $verb --help"
	# Help fits a terminal.
	awk 'length > 80 { exit 1 }' "$TMP/help" || record_failure "$verb --help: line over 80 columns"
done
"$CF" --help >"$TMP/help"; rc=$?
checks=$((checks + 1))
[ "$rc" = 0 ] || record_failure "--help: exit $rc"
for verb in fold normalize cmp validate versions; do
	grep -q "^  $verb " "$TMP/help" || record_failure "--help does not list $verb"
done
check "cmp --help mentions --nocase" 0 1 \
	bash -c '"$1" cmp --help | grep -c -- "--nocase  "' sh "$CF"

"$CF" help --man >"$TMP/man"; rc=$?
checks=$((checks + 1))
[ "$rc" = 0 ] || record_failure "help --man: exit $rc"
grep -q '^\.TH CASEFOLD 1' "$TMP/man" || record_failure "help --man: no .TH"
for verb in fold normalize cmp validate versions; do
	grep -q "^\.SS $verb\$" "$TMP/man" || record_failure "help --man: no section for $verb"
done
if command -v groff >/dev/null; then
	groff -k -man -Tutf8 -ww -z "$TMP/man" 2>"$TMP/warn"
	[ -s "$TMP/warn" ] && record_failure "groff warnings: $(head -n 5 "$TMP/warn")"
fi

finish

#!/usr/bin/env bash
# Names from standard input: newline and NUL separators, one result per
# name in order, error lines in place, long lines, big streams, and answers
# that come back while the input is still open.
. "$(dirname "$0")/lib.sh"

input 'Abc\n\xff\nDEF\n'
check "error line in the middle" 1 $'abc\nerror: R\ndef' reasons "$CF" fold -
check "same, hex" 1 $'616263\nerror: R\n646566' reasons "$CF" fold --hex -
check "normalize keeps case" 1 $'Abc\nerror: R\nDEF' reasons "$CF" normalize -

input 'Abc\0\xff\0D\nEF\0'
check "-0: NUL-separated in, NUL-terminated out" 1 $'abc\nerror: R\nd|ef' \
	reasons nul2nl "$CF" fold -0 -
check "-0 --hex" 1 $'616263\nerror: R\n640a6566' reasons nul2nl "$CF" fold -0 --hex -

input 'A\n\nB'
check "empty line kept, last line without newline counts" 0 $'a\n\nb' "$CF" fold -
input 'A\r\n'
check "carriage return is part of the name" 0 "610d" "$CF" fold --hex -
input 'ab\0cd\nEF\n'
check "NUL ends a name, as in the kernel" 0 $'6162\n6566' "$CF" fold --hex -
input ''
check "no input, no output" 0 "" "$CF" fold -

input 'B\nC\n'
check "operands and - in order" 0 $'a\nb\nc\nd' "$CF" fold A - D
check "a second - reads on from the end" 0 $'b\nc\nx' "$CF" fold - X -

# Longest name accepted is 1 MiB; a longer line is one error line, skipped.
limit=$((1 << 20))
{ head -c "$limit" /dev/zero | tr '\0' A; printf '\n'; } >"$TMP/in"
check "1 MiB name: length" 0 $((limit + 1)) \
	bash -c 'set -o pipefail; "$1" fold - | wc -c' sh "$CF"
check "1 MiB name: folded" 0 1 \
	bash -c 'set -o pipefail; "$1" fold - | tr -d a | wc -c' sh "$CF"
{ head -c $((limit + 1)) /dev/zero | tr '\0' A; printf '\nB\n'
  head -c $((3 * limit)) /dev/zero | tr '\0' C; } >"$TMP/in"
check "too long: error line, then on" 1 $'error: R\nb\nerror: R' reasons "$CF" fold -
tr '\n' '\0' <"$TMP/in" >"$TMP/in0" && mv "$TMP/in0" "$TMP/in"
check "too long with -0" 1 $'error: R\nb\nerror: R' reasons nul2nl "$CF" fold -0 -

# A big stream: 300,000 names, every 10,000th invalid, in order.
awk 'BEGIN { for (i = 1; i <= 300000; i++)
	if (i % 10000 == 0) printf "\377\n"; else printf "Name%dX\n", i }' >"$TMP/in"
awk 'BEGIN { for (i = 1; i <= 300000; i++)
	if (i % 10000 == 0) print "error: R"; else printf "name%dx\n", i }' >"$TMP/want"
checks=$((checks + 1))
reasons "$CF" fold - <"$TMP/in" >"$TMP/got"
rc=$?
[ "$rc" = 1 ] || record_failure "big stream: exit $rc, want 1"
cmp -s "$TMP/got" "$TMP/want" || record_failure "big stream: output differs ($(cmp "$TMP/got" "$TMP/want"))"

# Results are not held back while the input stays open: a program can feed
# one name and read its answer (output is flushed before reading blocks).
checks=$((checks + 1))
coproc CO { "$CF" fold --hex -; }
# bash forgets CO and CO_PID once the coprocess is reaped: keep copies.
co_pid=$CO_PID co_in=${CO[1]} co_out=${CO[0]}
echo ABC >&"$co_in"
if IFS= read -r -t 20 answer <&"$co_out"; then
	[ "$answer" = 616263 ] || record_failure "coprocess: got [$answer]"
else
	record_failure "coprocess: no answer while input open"
fi
exec {co_in}>&-
wait "$co_pid" || record_failure "coprocess: exit $?"
no_input

# Output that cannot be written, input that cannot be read: exit 2.
if [ -w /dev/full ]; then
	check "write error" 2 "" bash -c '"$1" fold -0 - </dev/zero >/dev/full' sh "$CF"
	grep -q '^casefold: write error' "$TMP/err" || record_failure "write error: not reported"
fi
check "closed standard input" 2 "" bash -c '"$1" fold - <&-' sh "$CF"

finish

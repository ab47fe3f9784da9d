#!/usr/bin/env bash
# fold and normalize on the known vectors of expected/vectors.txt, from
# operands and streamed from standard input, with and without --hex.
. "$(dirname "$0")/lib.sh"

# bytes HEX: the bytes written in hex ("-" for none), as printf %b escapes.
bytes() {
	[ "$1" = - ] || sed 's/../\\x&/g' <<<"$1"
}

stream_in=() stream_nfdi=() stream_nfdicf=()
while read -r enc ign in nfdi nfdicf _; do
	case $enc in '#'*|'') continue ;; esac
	name=$(printf '%b' "$(bytes "$in")")
	[ "$nfdi" = - ] && nfdi=
	[ "$nfdicf" = - ] && nfdicf=
	check "normalize $enc $ign $in" 0 "$nfdi" \
		"$CF" normalize --hex --encoding="$enc" --ignorables="$ign" "$name"
	check "fold $enc $ign $in" 0 "$nfdicf" \
		"$CF" fold --hex --encoding="$enc" --ignorables="$ign" "$name"
	if [ "$enc $ign" = "utf8-12.1.0 strip" ]; then
		stream_in+=("$(bytes "$in")")
		stream_nfdi+=("$nfdi")
		stream_nfdicf+=("$nfdicf")
	fi
done <"$HERE/expected/vectors.txt"

# The same vectors in one stream: one result per name, in order.
input "$(printf '%s\\n' "${stream_in[@]}")"
check "fold - (newline-separated)" 0 "$(printf '%s\n' "${stream_nfdicf[@]}")" \
	"$CF" fold --hex -
check "normalize - (newline-separated)" 0 "$(printf '%s\n' "${stream_nfdi[@]}")" \
	"$CF" normalize --hex -
input "$(printf '%s\\0' "${stream_in[@]}")"
check "fold -0 -" 0 "$(printf '%s\n' "${stream_nfdicf[@]}")" \
	sh -c '"$1" fold --hex -0 - | tr "\0" "\n"' sh "$CF"
no_input

# Without --hex the bytes themselves.
check "fold raw" 0 "$(printf 'strasse\n\x61\xcc\x8a')" "$CF" fold Straße $'\u212b'
check "normalize raw" 0 "Straße" "$CF" normalize Straße
check "fold -0 raw" 0 "$(printf 'abc\0def\0' | od -An -c)" \
	sh -c '"$1" fold -0 ABC DEF | od -An -c' sh "$CF"

# The three spellings of Å fold to the same bytes (the issue's example).
check "three A-rings" 0 "$(printf '61cc8a\n61cc8a\n61cc8a')" \
	"$CF" fold --hex $'\u00c5' $'A\u030a' $'\u212b'

# An empty name yields an empty line, not nothing.
check "empty name" 0 $'\n6162' "$CF" fold --hex "" AB

finish

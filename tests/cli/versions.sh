#!/usr/bin/env bash
# versions: the supported encodings, latest first, ascii last; --version.
. "$(dirname "$0")/lib.sh"

"$CF" versions >"$TMP/v"; rc=$?
checks=$((checks + 1))
[ "$rc" = 0 ] || record_failure "versions: exit $rc"
[ "$(head -n 1 "$TMP/v")" = utf8-17.0.0 ] || record_failure "versions: first is $(head -n 1 "$TMP/v")"
[ "$(tail -n 1 "$TMP/v")" = ascii ] || record_failure "versions: last is $(tail -n 1 "$TMP/v")"
grep -qx utf8-12.1.0 "$TMP/v" || record_failure "versions: no utf8-12.1.0"
grep -qx utf8-1.1.0 "$TMP/v" || record_failure "versions: no utf8-1.1.0"
# Newest first: the utf8 lines are in descending version order.
sed -n 's/^utf8-//p' "$TMP/v" >"$TMP/utf8"
sort -Vr "$TMP/utf8" | cmp -s - "$TMP/utf8" || record_failure "versions: not newest first"
[ "$(wc -l <"$TMP/utf8")" -ge 20 ] || record_failure "versions: only $(wc -l <"$TMP/utf8") Unicode versions"
# Every listed name is accepted by --encoding.
while read -r enc; do
	"$CF" fold --encoding="$enc" A >/dev/null || record_failure "--encoding=$enc refused"
done <"$TMP/v"

check "versions takes no operand" 2 "" "$CF" versions extra
"$CF" --version >"$TMP/ver"; rc=$?
checks=$((checks + 1))
[ "$rc" = 0 ] || record_failure "--version: exit $rc"
grep -q '^casefold [0-9][0-9.]*$' "$TMP/ver" || record_failure "--version: $(cat "$TMP/ver")"
grep -q '17\.0\.0' "$TMP/ver" || record_failure "--version: no Unicode data version"

finish

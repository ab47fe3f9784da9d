#!/usr/bin/env bash
# The committed tables are exactly what gen/mktables makes from the UCD
# files of ../shared/ucd/17.0.0 (skipped when those are not present).
set -u
ucd=$CF_ROOT/../shared/ucd/17.0.0
[ -f "$ucd/UnicodeData.txt" ] || { echo "no UCD 17.0.0 at $ucd"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$CF_BUILD/mktables" "$ucd" "$out" || exit 1
for f in unicode_tables.h unicode_tables.c; do
	cmp "$out/$f" "$CF_ROOT/lib/tables/$f" || { echo "lib/tables/$f differs from a regeneration"; exit 1; }
done
echo "lib/tables reproduced byte for byte from $ucd"
# The generator also accepts the 12.1.0 data and passes its own checks.
ucd12=$CF_ROOT/../shared/ucd/12.1.0
if [ -f "$ucd12/UnicodeData.txt" ]; then
	"$CF_BUILD/mktables" "$ucd12" "$out" || exit 1
	grep -q 'CF_UCD_VERSION "12.1.0"' "$out/unicode_tables.h" || exit 1
fi

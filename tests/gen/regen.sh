#!/usr/bin/env bash
# The committed tables are exactly what gen/mktables makes from the UCD
# 17.0.0 files: those at CF_UCD, default ../shared/ucd/17.0.0, skipped when
# absent.  Anywhere else: make regen-check UCD=DIR (README.md says where to
# get the files).  The files must be the ones the tables' banner names.
. "$(dirname "$0")/../lib.sh"
ucd=${CF_UCD:-$CF_ROOT/../shared/ucd/17.0.0}
[ -f "$ucd/UnicodeData.txt" ] || skip "no UCD 17.0.0 at $ucd (make regen-check UCD=DIR; see README.md)"
out=$(mktemp -d)
at_exit "rm -rf '$out'"
sed -n 's/^ \*   \([0-9a-f]\{64\}\)  \([A-Za-z]*\.txt\)$/\1  \2/p' \
	"$CF_ROOT/lib/tables/unicode_tables.h" >"$out/SHA256SUMS"
[ "$(wc -l <"$out/SHA256SUMS")" -ge 5 ] || { echo "no input sums in the tables' banner"; exit 1; }
(cd "$ucd" && sha256sum --quiet -c "$out/SHA256SUMS") ||
	{ echo "$ucd does not hold the files lib/tables was made from"; exit 1; }
"$CF_BUILD/mktables" "$ucd" "$out" || exit 1
for f in unicode_tables.h unicode_tables.c; do
	cmp "$out/$f" "$CF_ROOT/lib/tables/$f" || { echo "lib/tables/$f differs from a regeneration"; exit 1; }
done
echo "lib/tables reproduced byte for byte from $ucd"
# The generator also accepts the 12.1.0 data (CF_UCD12) and passes its own checks.
ucd12=${CF_UCD12:-$CF_ROOT/../shared/ucd/12.1.0}
[ -z "${CF_UCD12:-}" ] || [ -f "$ucd12/UnicodeData.txt" ] || { echo "no UCD 12.1.0 at $ucd12"; exit 1; }
if [ -f "$ucd12/UnicodeData.txt" ]; then
	"$CF_BUILD/mktables" "$ucd12" "$out" || exit 1
	grep -q 'CF_UCD_VERSION "12.1.0"' "$out/unicode_tables.h" || exit 1
	echo "and mktables accepts the 12.1.0 data at $ucd12"
fi

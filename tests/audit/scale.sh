#!/usr/bin/env bash
# Memory stays bounded by the largest directory: a 100,000-entry directory
# plus 2,000 small ones, audited with a peak RSS well under what holding
# the tree would take; the one planted collision is found.
. "$(dirname "$0")/lib.sh"
[ -x /usr/bin/time ] || skip "no /usr/bin/time"
mkdir "$T/big"
(cd "$T/big" && seq -f 'file-%06g' 100000 | xargs touch && touch FILE-000777)
seq -f "$T/d%g" 2000 | xargs mkdir
(cd "$T" && for i in $(seq 2000); do echo d$i/a d$i/b; done | xargs touch)
/usr/bin/time -f '%M %e' -o "$T/rss" "$CF" audit -0 "$T" >"$T/out"
rc=$?
[ $rc = 1 ] || fail "exit $rc"
[ "$(tr '\0' '\n' <"$T/out" | grep -c .)" = 3 ] || fail "findings: $(tr '\0' ' ' <"$T/out")"
read -r kb secs < <(tail -n 1 "$T/rss")
echo "102,002 entries in $secs s, peak RSS $kb KiB"
# ASan's shadow memory and quarantine make RSS meaningless there.
grep -q __asan_init "$CF" || [ "$kb" -lt 65536 ] || fail "peak RSS $kb KiB"

#!/usr/bin/env bash
# casefold audit's text report tells apart what a terminal shows alike:
# canonically equivalent spellings (NFC and NFD, U+00C5 and U+212B) are
# printed with their characters beyond ASCII escaped, names that merely
# collide by case stay as they are.  And it reports the names that will
# collide because their parent directories fold equal (Icons/app.ico and
# icons/App.ico), at every depth, once each.
. "$(dirname "$0")/lib.sh"
t=$T/t
mkdir -p "$t/x" "$t/y" "$t/Icons/Sub" "$t/icons/sub" "$t/Icons/Deep/A" "$t/ICONS/deep/a"
touch "$t/x/$(printf 'caf\xc3\xa9.txt')" "$t/x/$(printf 'cafe\xcc\x81.txt')" "$t/x/Foo" "$t/x/foo"
touch "$t/y/$(printf '\xc3\x85ngstr\xc3\xb6m')" "$t/y/$(printf '\xe2\x84\xabngstr\xc3\xb6m')"
touch "$t/Icons/app.ico" "$t/icons/App.ico" "$t/Icons/only" "$t/Icons/x" "$t/Icons/X"
touch "$t/Icons/Sub/f" "$t/icons/sub/F" "$t/Icons/Deep/A/z" "$t/ICONS/deep/a/Z"

"$CF" audit "$t" | sed "s|$t|T|" >"$T/got"
rc=${PIPESTATUS[0]}
[ "$rc" = 1 ] || fail "exit $rc with findings, want 1"
cat >"$T/want" <<'W'
T: names that collide: ICONS Icons icons
T: names that collide: ICONS/deep Icons/Deep
T: names that collide: ICONS/deep/a Icons/Deep/A
T: names that collide: ICONS/deep/a/Z Icons/Deep/A/z
T: names that collide: Icons/Sub icons/sub
T: names that collide: Icons/Sub/f icons/sub/F
T: names that collide: Icons/app.ico icons/App.ico
T/Icons: names that collide: X x
T/x: names that collide: Foo foo
T/x: names that collide: $'cafe\u0301.txt' $'caf\u00e9.txt'
T/y: names that collide: $'\u00c5ngstr\u00f6m' $'\u212bngstr\u00f6m'
W
grep -v '^[0-9]* directories' "$T/got" | diff "$T/want" - >&2 || fail "the text report"
grep -q '^[0-9]* directories, [0-9]* entries: 11 collision sets' "$T/got" ||
	fail "summary: $(tail -n 1 "$T/got")"

# JSON carries the merged findings too, their names relative to the audited
# directory.
"$CF" audit --json "$t" >"$T/json"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = [f["names"] for f in d["findings"] if f["kind"] == "collision"]
assert ["Icons/app.ico", "icons/App.ico"] in names, names
assert ["ICONS/deep/a/Z", "Icons/Deep/A/z"] in names, names
' "$T/json" || fail "--json lacks the merged collisions"
echo "look-alike spellings escaped, collisions through merging parents found"

#!/usr/bin/env bash
# casefold audit on a generated tree with known problems finds exactly
# them: case, NFC/NFD, ß/ss, KELVIN SIGN, ignorables, invalid bytes; JSON
# is valid and stable; nothing is modified; links and mounts are respected.
. "$(dirname "$0")/lib.sh"
at_exit "umount '$T/t/mnt' 2>/dev/null"
t=$T/t
mkdir -p "$t/a/b" "$t/clean" "$t/mnt"
cd "$t" || exit 1
touch Makefile makefile README "Straße" STRASSE "$(printf 'A\xcc\x8a')" "$(printf '\xc3\x85')"
touch .git "$(printf '.g\xe2\x80\x8dit')" "$(printf 'bad\xff')" "$(printf 'x\xc0\xafy')"
touch "a/$(printf '\xe2\x84\xaa')elvin" a/kelvin "a/b/x" "a/b/X" "a/b/y" clean/one clean/two
ln -s a link
cd "$T" || exit 1
find "$t" -exec touch -h -d '2020-01-01' {} +
find "$t" >/dev/null   # listing moves old atimes once (relatime); audit must not
before=$(find "$t" -printf '%p %T@ %A@ %C@\n' | sort)

# -0 records: kind, then paths, then an empty field.
"$CF" audit -0 "$t" | tr '\0' '\n' | sed "s|$t|T|" >"$T/got"
rc=${PIPESTATUS[0]}
[ "$rc" = 1 ] || fail "exit $rc with findings, want 1"
printf '%s\n' collision T/.git "T/$(printf '.g\xe2\x80\x8dit')" '' \
	collision "T/$(printf 'A\xcc\x8a')" "T/$(printf '\xc3\x85')" '' \
	collision T/Makefile T/makefile '' \
	collision T/STRASSE "T/Straße" '' \
	ignorable T/.git "T/$(printf '.g\xe2\x80\x8dit')" '' \
	invalid "T/$(printf 'bad\xff')" '' \
	invalid "T/$(printf 'x\xc0\xafy')" '' \
	collision T/a/kelvin "T/a/$(printf '\xe2\x84\xaa')elvin" '' \
	collision T/a/b/X T/a/b/x '' >"$T/want"
diff "$T/want" "$T/got" >&2 || fail "-0 findings"

# Kept ignorables: .git and .g<ZWJ>it no longer collide, but are still
# reported as look-alikes.
"$CF" audit --ignorables=keep -0 "$t" | tr '\0' '\n' | grep -c '^collision$' | grep -qx 5 ||
	fail "--ignorables=keep"
"$CF" audit --ignorables=keep -0 "$t" | tr '\0' '\n' | grep -qx ignorable || fail "keep: look-alikes"
# ascii folds only A-Z: ß, Å and K are other names there (and invalid).
[ "$("$CF" audit --encoding=ascii -0 "$t" | tr '\0' '\n' | grep -c '^collision$')" = 2 ] ||
	fail "--encoding=ascii"

# JSON: valid, stable, same findings.
"$CF" audit --json "$t" >"$T/j1"; "$CF" audit --json "$t" >"$T/j2"
cmp -s "$T/j1" "$T/j2" || fail "JSON differs between runs"
if command -v python3 >/dev/null; then
	python3 -m json.tool "$T/j1" >/dev/null || fail "invalid JSON"
	python3 - "$T/j1" <<'PY' || fail "JSON contents"
import json, sys
d = json.load(open(sys.argv[1]))
kinds = [f["kind"] for f in d["findings"]]
assert kinds.count("collision") == 6 and kinds.count("invalid") == 2, kinds
assert kinds.count("ignorable") == 1 and d["summary"]["collisions"] == 6, d["summary"]
bad = [f for f in d["findings"] if f["kind"] == "invalid"][0]
assert bytes.fromhex(bad["names_hex"][0]) == b"bad\xff", bad
PY
fi

# Human output quotes invisible characters and invalid bytes.
"$CF" audit "$t" >"$T/human"
grep -qF "names that collide: .git \$'.g\\u200dit'" "$T/human" || fail "human: $(cat "$T/human")"
grep -qF "\$'bad\\xff'" "$T/human" || fail "human: invalid byte"

# Clean tree: 0.  Missing path: 2.  --follow: the symlink is entered.
"$CF" audit "$t/clean" >/dev/null || fail "clean tree: exit $?"
"$CF" audit "$t/nonexistent" >/dev/null 2>&1; [ $? = 2 ] || fail "missing path: want 2"
# (--follow reads symlinks, which moves their atimes: checked before it.)
after=$(find "$t" -printf '%p %T@ %A@ %C@\n' | sort)
[ "$before" = "$after" ] || fail "audit modified the tree (times)"
[ "$("$CF" audit --follow -0 "$t" | tr '\0' '\n' | grep -c '/link/')" = 4 ] ||
	fail "--follow: $("$CF" audit --follow -0 "$t" | tr '\0' '\n' | grep link/)"

# A mount point inside is not entered unless asked.
if mount -t tmpfs none "$t/mnt" 2>/dev/null; then
	touch "$t/mnt/Q" "$t/mnt/q"
	"$CF" audit -0 "$t" | tr '\0' '\n' | grep -q mnt/ && fail "entered a mount point"
	"$CF" audit --cross-mounts -0 "$t" | tr '\0' '\n' | grep -q mnt/q || fail "--cross-mounts"
	umount "$t/mnt"
fi

echo "findings: ok"

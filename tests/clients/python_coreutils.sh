#!/usr/bin/env bash
# Python's pathlib/os and coreutils (cp -a, mv, find) in a casefolded
# directory, with the results Linux ext4 with casefold gives.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"

cfs_mount
C=$M/ci
casefolded "$C"

# Python: one file under every spelling, stored as first written; a case-
# only os.rename succeeds and changes nothing; exclusive creation and mkdir
# of another spelling fail with FileExistsError; glob matches stored names
# byte for byte (it reads the directory), as on ext4.
python3 - "$C" <<'PY' || fail "python"
import os, sys
from pathlib import Path
d = Path(sys.argv[1])
(d / "Straße.TXT").write_text("x")
assert (d / "STRASSE.txt").read_text() == "x"
assert (d / "strasse.txt").exists() and os.path.samefile(d / "STRASSE.TXT", d / "Straße.TXT")
assert os.listdir(d) == ["Straße.TXT"], os.listdir(d)
os.rename(d / "Straße.TXT", d / "STRASSE.TXT")
assert os.listdir(d) == ["Straße.TXT"], os.listdir(d)
for make in (lambda: open(d / "straße.txt", "x"), lambda: os.mkdir(d / "STRASSE.TXT")):
    try:
        make()
        raise SystemExit("created a fold-equal name")
    except FileExistsError:
        pass
(d / "Sub").mkdir()
(d / "SUB" / "Inner").mkdir(parents=True, exist_ok=True)
assert sorted(p.name for p in d.iterdir()) == ["Straße.TXT", "Sub"]
assert [p.name for p in d.glob("straße*")] == []
assert [p.name for p in d.glob("Straße*")] == ["Straße.TXT"]
assert os.path.isdir(d / "sub" / "INNER")
os.rename(d / "Straße.TXT", d / "tmp")
os.rename(d / "tmp", d / "STRASSE.TXT")
assert sorted(os.listdir(d)) == ["STRASSE.TXT", "Sub"], os.listdir(d)
PY
[ "$(names "$B/ci" | tr '\n' ' ')" = "STRASSE.TXT Sub " ] || fail "backing after python: $(names "$B/ci")"

# cp -a of a tree: names, modes and times kept.
mkdir -p "$T/src/Dir/Deep" && echo a >"$T/src/Dir/File" && echo b >"$T/src/Dir/Deep/Leaf"
chmod 600 "$T/src/Dir/File" && touch -d '2001-02-03' "$T/src/Dir/File"
cp -a "$T/src" "$C/copy" || fail "cp -a"
[ "$(tree "$C/copy")" = "$(tree "$T/src")" ] || fail "cp -a changed the tree"
[ "$(cat "$C/COPY/dir/deep/LEAF")" = b ] || fail "lookup through the copy"
# cp onto another spelling of the source: the same file, refused.
cp "$C/copy/Dir/File" "$C/copy/Dir/FILE" 2>"$T/cp.err" && fail "cp onto itself succeeded"
grep -q "are the same file" "$T/cp.err" || fail "cp: $(cat "$T/cp.err")"

# mv: a case-only rename is refused by coreutils ("are the same file"),
# as on ext4; through a temporary name it works.
mv "$C/copy/Dir/File" "$C/copy/Dir/FILE" 2>"$T/mv.err" && fail "mv File FILE succeeded"
grep -q "are the same file" "$T/mv.err" || fail "mv: $(cat "$T/mv.err")"
mv "$C/copy/Dir/File" "$C/copy/Dir/tmp" && mv "$C/copy/Dir/tmp" "$C/copy/Dir/FILE" || fail "mv through tmp"
[ "$(names "$B/ci/copy/Dir" | tr '\n' ' ')" = "Deep FILE " ] || fail "after mv: $(names "$B/ci/copy/Dir")"
# mv onto a fold-equal existing name in another directory replaces it,
# keeping the target's stored name.
echo new >"$C/copy/new" && mv "$C/copy/new" "$C/copy/dir/file" || fail "mv onto dir/file"
[ "$(names "$B/ci/copy/Dir" | tr '\n' ' ')" = "Deep FILE " ] && [ "$(cat "$C/copy/Dir/FILE")" = new ] ||
	fail "mv onto a fold-equal name: $(names "$B/ci/copy/Dir")"

# find: -name matches the stored bytes, -iname ignores case (its own rule),
# a path operand in any case works.
[ "$(cd "$C" && find copy -name file)" = "" ] || fail "find -name matched another case"
[ "$(cd "$C" && find copy -iname file)" = "copy/Dir/FILE" ] || fail "find -iname"
[ "$(find "$C/COPY/DIR" -name Leaf -printf '%P\n')" = "Deep/Leaf" ] || fail "find from another spelling"

cfs_umount
echo "python pathlib/os, cp -a, mv, find: ok"

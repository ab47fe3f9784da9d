#!/usr/bin/env bash
# Trees with colliding names: abort lists them and changes nothing; rename
# keeps the first of each set in byte order and gives the others the first
# free suffix of ~0, ~1, ... (makefile~0 exists, so Makefile gets ~1).
. "$(dirname "$0")/lib.sh"

cfs_mount
t=$M/t
make_tree "$t" 2
echo a > "$t/Makefile"; echo b > "$t/makefile"; echo c > "$t/MAKEFILE"
echo d > "$t/makefile~0"                          # taken: the next is ~1
echo e > "$t/Straße"; echo f > "$t/STRASSE"
echo g > "$t/$(printf 'A\xcc\x8a')"; echo h > "$t/$(printf '\xc3\x85')"   # NFD, NFC
echo i > "$t/ab"; echo j > "$t/$(printf 'a\xe2\x80\x8db')"                 # ZWJ
mkdir "$t/Sub" "$t/sub"; echo k > "$t/Sub/x"; echo l > "$t/sub/X"; echo m > "$t/sub/y"
manifest "$t" >/dev/null
manifest "$t" --no-atime-dirs >"$T/before"

"$CF" convert "$t" >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 1 ] || fail "abort: exit $rc, want 1: $(cat "$T/err")"
[ "$(grep -c 'names that collide' "$T/out")" = 5 ] || fail "abort listed: $(cat "$T/out")"
grep -q 'nothing was changed' "$T/err" || fail "abort message: $(cat "$T/err")"
manifest "$t" --no-atime-dirs >"$T/after"
diff "$T/before" "$T/after" >&2 || fail "abort changed the tree"
ls -A "$M" | grep -q casefold && fail "abort left a journal"

"$CF" convert --on-collision=rename "$t" >"$T/out" 2>&1 || fail "rename: $(cat "$T/out")"
grep '^rename' "$T/out" | sed "s|$t/||" >"$T/renames"
cat >"$T/want" <<'WANT'
rename Å -> 'Å~0'
rename Makefile -> 'Makefile~1'
rename makefile -> 'makefile~2'
rename Straße -> 'Straße~0'
rename sub -> 'sub~0'
rename $'a\u200db' -> $'a\u200db~0'
WANT
diff "$T/want" "$T/renames" >&2 || fail "renames"
check_flags "$t"
check_lookups "$t"
# Every file is still there, under its new name where it has one, with all
# it had (directories' times too: they are restored).
rn() { printf 's#\\./%s\\([ /]\\|$\\)#./%s\\1#;' "$1" "$2"; }
zwj=$(printf 'a\xe2\x80\x8db') nfc=$(printf '\xc3\x85')
sed "$(rn Makefile 'Makefile~1')$(rn makefile 'makefile~2')$(rn Straße 'Straße~0')$(rn "$zwj" "$zwj~0")$(rn "$nfc" "$nfc~0")$(rn sub 'sub~0')" \
	"$T/before" | LC_ALL=C sort >"$T/want-manifest"
manifest "$t" --no-atime-dirs | LC_ALL=C sort >"$T/got-manifest"
diff "$T/want-manifest" "$T/got-manifest" >&2 || fail "contents after rename"
[ "$(cat "$t/Makefile~1")" = a ] && [ "$(cat "$t/makefile~2")" = b ] && [ "$(cat "$t/makefile")" = c ] ||
	fail "contents under the new names"
[ "$(cat "$t/SUB~0/Y")" = m ] || fail "a renamed directory keeps its entries"
cfs_umount
echo "collisions: ok"

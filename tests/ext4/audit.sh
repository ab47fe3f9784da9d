#!/usr/bin/env bash
# casefold ext4 audit on images seeded with problems by debugfs: names that
# fold equal, invalid UTF-8 (strict and not), htree entries misplaced for
# the file system's hash (a directory indexed before it was casefolded: its
# names sit where their raw bytes hash), including names placed as Linux
# 6.12-6.13 hashed them (ignorables kept); and nothing on clean images,
# among them htree directories indexed by e2fsck.  The image is never written.
. "$(dirname "$0")/lib.sh"

img=$TMP/fs.img
# audit_check LABEL WANT_STATUS GREP-PATTERN... : the text report matches
# every pattern (grep -E), and exit status is as wanted.
audit_check() {
	local label=$1 want=$2 rc
	shift 2
	checks=$((checks + 1))
	"$CF" ext4 audit "$img" >"$TMP/report" 2>"$TMP/err"; rc=$?
	[ "$rc" = "$want" ] || record_failure "$label: exit $rc, want $want ($(head -c 300 "$TMP/err"))"
	for p in "$@"; do
		grep -Eq -- "$p" "$TMP/report" ||
			record_failure "$label: no line matches '$p' in: $(head -c 600 "$TMP/report")"
	done
}

# names PREFIX COUNT DIR: debugfs commands creating COUNT empty files.
names() {
	for i in $(seq 1 "$2"); do printf 'write /dev/null %s/%s%03d\n' "$3" "$1" "$i"; done
}

# A clean image: casefolded directories with Unicode names, one indexed by
# e2fsck (which hashes casefolded names as Linux does), one inline, and an
# ordinary directory holding names that would collide if it were folded.
mkimage "$img" 16M -t ext4 -O casefold,inline_data
{
	printf 'mkdir ci\nmkdir big\nmkdir cs\nmkdir tiny\n'
} >"$TMP/cmds"
dbg "$img" "$TMP/cmds"
addflags "$img" ci $CASEFOLD_FL
addflags "$img" big $CASEFOLD_FL
addflags "$img" tiny $CASEFOLD_FL
{
	printf 'write /dev/null ci/%s\n' "Straße" "café" $'e\xcc\x81t\xc3\xa9' "x"$'\xe2\x80\x8d'"y" \
		"❤"$'\xef\xb8\x8f' README Ω
	names "Entry-" 300 big
	names "e" 3 tiny
	printf 'write /dev/null cs/%s\n' Foo foo FOO
} >"$TMP/cmds"
dbg "$img" "$TMP/cmds"
e2fsck -fyD "$img" >/dev/null 2>&1
checks=$((checks + 1))
flags=$(debugfs -R "stat big" "$img" 2>/dev/null | sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p')
(( flags & 0x1000 )) || record_failure "e2fsck -D did not index /big (flags $flags)"
before=$(md5sum <"$img")
audit_check "clean image" 0 "^3 casefolded directories, 310 names: 0 problems, 0 notes$"
check "clean image, json" 0 1 bash -c '"$1" ext4 audit --json "$2" | grep -c "^\],\"directories\":3,\"names\":310,.*\"problems\":0,\"notes\":0}$\|^{.*\"findings\":\[\],\"directories\":3"' sh "$CF" "$img"
[ "$(md5sum <"$img")" = "$before" ] || record_failure "audit changed the image"

# Seeded problems on a strict file system: names that fold equal (debugfs
# does not fold) and an invalid name (debugfs does not validate).
mkimage "$img" 8M -t ext4 -O casefold -E encoding=utf8,encoding_flags=strict
dbg "$img" <(printf 'mkdir d\n')
addflags "$img" d $CASEFOLD_FL
printf 'write /dev/null d/%s\n' Foo foo Straße STRASSE $'b\xffc' ok $'\xc3\x85' $'\xe2\x84\xab' >"$TMP/cmds"
printf 'ln d/Foo d/FOO\n' >>"$TMP/cmds"
dbg "$img" "$TMP/cmds"
audit_check "strict: duplicates and invalid" 1 \
	'^/d: fold-equal: Foo \(inode [0-9]+\), foo \(inode [0-9]+\), FOO \(inode [0-9]+\)$' \
	'^/d: fold-equal: Straße .*STRASSE' \
	'^/d: fold-equal: '$'\xc3\x85'' .*'$'\xe2\x84\xab' \
	$'^/d: invalid-utf8: \\$\'b\\\\xffc\' \\(inode [0-9]+\\): strict' \
	'^1 casefolded directories, 9 names: 4 problems, 0 notes$'
check "strict: json kinds" 1 $'fold-equal\nfold-equal\nfold-equal\ninvalid-utf8' \
	bash -c 'set -o pipefail; "$1" ext4 audit --json "$2" | grep -o "\"kind\":\"[a-z0-9-]*\"" | cut -d\" -f4 | sort' sh "$CF" "$img"
check "strict: json keeps the exact bytes" 1 1 \
	bash -c 'set -o pipefail; "$1" ext4 audit --json "$2" | grep -c "\"name\":\"b\\\\ufffdc\",\"hex\":\"62ff63\""' sh "$CF" "$img"

# Not strict: the invalid name is legal, matched as opaque bytes: a note.
mkimage "$img" 8M -t ext4 -O casefold
dbg "$img" <(printf 'mkdir d\n')
addflags "$img" d $CASEFOLD_FL
dbg "$img" <(printf 'write /dev/null d/%s\n' $'b\xffc' ok)
audit_check "not strict: invalid name is a note" 0 \
	$'^/d: note: invalid-utf8: \\$\'b\\\\xffc\' \\(inode [0-9]+\\): matched as opaque bytes' \
	'^1 casefolded directories, 2 names: 0 problems, 1 notes$'

# Misplaced htree entries: directories indexed by e2fsck while not
# casefolded, then flagged.  "Name-NNN" sat where its raw bytes hash; folded
# it hashes elsewhere, under either ignorable policy.  "n<ZWJ>NNN" is its
# own fold with ignorables kept: it sits where Linux 6.12-6.13 put it.
# (No metadata_csum: the test sets an encoding flag with dd below.)
mkimage "$img" 16M -t ext4 -O casefold,^metadata_csum
dbg "$img" <(printf 'mkdir plain\nmkdir zwj\n')
{ names "Name-" 200 plain; names "n"$'\xe2\x80\x8d' 200 zwj; } >"$TMP/cmds"
dbg "$img" "$TMP/cmds"
e2fsck -fyD "$img" >/dev/null 2>&1
addflags "$img" plain $CASEFOLD_FL
addflags "$img" zwj $CASEFOLD_FL
audit_check "misplaced entries" 1 \
	'^/plain: misplaced: Name-[0-9]+ \(inode [0-9]+\) in block [0-9]+, hash [0-9a-f]{8} outside .*; not with ignorables kept either$' \
	$'^/zwj: misplaced: \\$\'n\\\\u200d[0-9]+\' \\(inode [0-9]+\\) in block [0-9]+, hash [0-9a-f]{8} outside .*; fits with ignorables kept \\(hashed by Linux 6.12-6.13\\)$' \
	'^misplaced names are found only by kernels that fall back to a linear search$'
checks=$((checks + 1))
nplain=$(grep -c '^/plain: misplaced' "$TMP/report")
nzwj=$(grep -c '^/zwj: misplaced.*fits with ignorables kept' "$TMP/report")
[ "$nplain" -ge 100 ] && [ "$nzwj" -ge 100 ] ||
	record_failure "misplaced: $nplain of 200 plain, $nzwj of 200 zwj reported"
grep '^/zwj:' "$TMP/report" | grep -v 'fits with ignorables kept' | head -3 | grep . &&
	record_failure "zwj: an entry that does not fit with ignorables kept"
echo "misplaced: $nplain of 200 plain names, $nzwj of 200 zwj names"
printf '\x02' | dd of="$img" bs=1 seek=$((1024 + 0x27E)) conv=notrunc status=none
audit_check "no-compat-fallback" 1 '^misplaced names cannot be looked up: the file system has no-compat-fallback$'

# A casefold flag on a file system without the feature: Linux refuses it.
mkimage "$img" 8M -t ext4
dbg "$img" <(printf 'mkdir d\n')
addflags "$img" d $CASEFOLD_FL
audit_check "flag without feature" 1 '^/d: damage: casefold flag without the casefold feature'

# Errors: exit 2 with a message.
head -c 100000 "$img" >"$TMP/short.img"
check "truncated image" 2 "" "$CF" ext4 audit "$TMP/short.img"
grep -q "short.img: " "$TMP/err" || record_failure "truncated: message '$(cat "$TMP/err")'"
check "not a file system" 2 "" "$CF" ext4 audit /dev/null
finish

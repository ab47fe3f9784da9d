#!/usr/bin/env bash
# casefold hash against debugfs's dx_hash (e2fsprogs): a sample of code
# points and random valid names, every algorithm, signed and unsigned,
# folded (-c -e utf8) and not, with a seed and without.  The unit test
# test_kernel_oracle compares the library with ext2fs_dirhash2 on every code
# point; this checks the command line (options, seed parsing, output).
. "$(dirname "$0")/lib.sh"

img=$TMP/hash.img
mkimage "$img" 4M -O casefold
seed=8e0b1c2a-35f7-4d6e-9a10-c4b2d3e4f501

# Names debugfs's command parser passes through: no ASCII space, quote,
# backslash or control character.  Every 251st code point between "a" and
# "B", and 400 random names mixing scripts, combining marks, ignorables
# (U+200D, U+FE0F, U+00AD), Hangul and emoji, 1 to 40 characters.
perl -CO -e '
	srand(3);
	my @pool = (0x41..0x5a, 0x61..0x7a, 0x30..0x39, 0xc0..0x17f, 0x391..0x3c9,
		0x400..0x44f, 0x300..0x36f, 0x1e00..0x1eff, 0x200d, 0xfe0f, 0xad, 0x2764,
		0xac00..0xac40, 0x4e00..0x4e40, 0x1f600..0x1f640, 0x10400..0x1044f, 0x212a, 0xdf);
	for (my $c = 0x21; $c <= 0x10ffff; $c += 251) {
		next if $c >= 0xd800 && $c <= 0xdfff;
		next if $c == 0x22 || $c == 0x27 || $c == 0x5c || $c == 0x7f;
		print "a", chr($c), "B\n";
	}
	for (1..400) {
		my $n = 1 + int(rand(40));
		print join("", map { chr($pool[int(rand(@pool))]) } 1..$n), "\n";
	}' >"$TMP/names"
nnames=$(wc -l <"$TMP/names")

# compare LABEL DEBUGFS-OPTIONS CASEFOLD-OPTIONS...
compare() {
	local label=$1 dopts=$2
	shift 2
	checks=$((checks + 1))
	sed "s/^/dx_hash $dopts /" "$TMP/names" >"$TMP/cmds"
	debugfs -f "$TMP/cmds" "$img" 2>/dev/null |
		perl -ne 'printf "%08x %08x\n", hex($1), hex($2)
			if /^Hash of .* is 0x([0-9a-f]+) \(minor 0x([0-9a-f]+)\)$/' >"$TMP/want"
	if [ "$(wc -l <"$TMP/want")" != "$nnames" ]; then
		record_failure "$label: debugfs answered $(wc -l <"$TMP/want") of $nnames names"
		return
	fi
	"$CF" hash "$@" - <"$TMP/names" >"$TMP/got" || { record_failure "$label: exit $?"; return; }
	if ! cmp -s "$TMP/got" "$TMP/want"; then
		record_failure "$label: $(diff "$TMP/got" "$TMP/want" | grep -c '^<') of $nnames differ"
		paste "$TMP/names" "$TMP/got" "$TMP/want" | awk -F'\t' '$2 != $3' | head -3
	fi
}

# debugfs knows the unsigned variants by number only: 3, 4, 5.
declare -A unsigned=([legacy]=3 [half_md4]=4 [tea]=5)
for alg in legacy half_md4 tea; do
	compare "$alg casefold seed" "-h $alg -s $seed -c -e utf8" --alg=$alg --seed=$seed --casefold
	compare "$alg unsigned casefold seed" "-h ${unsigned[$alg]} -s $seed -c -e utf8" \
		--alg=$alg --unsigned --seed=$seed --casefold=utf8
	compare "$alg plain seed" "-h $alg -s $seed" --alg=$alg --seed=$seed
	compare "$alg casefold default seed" "-h $alg -c -e utf8" --alg=$alg --casefold
done
compare "defaults: half_md4, signed, no seed, no folding" "-h half_md4" -- 
echo "$nnames names per comparison"

# The seed is the UUID's bytes in order, as dumpe2fs prints it: upper case
# is the same seed, anything else is a usage error.
check "seed in upper case" 0 "$("$CF" hash --seed=$seed x)" \
	"$CF" hash --seed="${seed^^}" x
check "seed not a UUID" 2 "" "$CF" hash --seed=8e0b1c2a35f74d6e9a10c4b2d3e4f501 x
check "seed too short" 2 "" "$CF" hash --seed=8e0b1c2a-35f7-4d6e-9a10-c4b2d3e4f50 x
check "unknown algorithm" 2 "" "$CF" hash --alg=md5 x
check "strict needs casefold" 2 "" "$CF" hash --strict x

# Streaming like fold: -0, error lines in place (--strict), and the raw
# bytes of an invalid name hashed as Linux does.
input 'Foo\0\xff\0foo\0'
check "-0 and a strict error line" 1 $'74c657ac 85a8d812\nerror: R\n74c657ac 85a8d812' \
	reasons nul2nl "$CF" hash --casefold --strict -0 -
check "invalid name hashed as raw bytes" 0 \
	"$("$CF" hash $'\xff')" "$CF" hash --casefold $'\xff'
no_input
finish

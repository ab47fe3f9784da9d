#!/usr/bin/env bash
# casefold ext4 info against dumpe2fs -h on images made by mke2fs: with and
# without casefold, strict or not, other hash algorithms, 1 KiB and 4 KiB
# blocks, with and without metadata_csum; and clear errors (exit 2) for
# truncated, foreign and corrupt images.
. "$(dirname "$0")/lib.sh"

# field FILE NAME: the value of "NAME: value" in dumpe2fs -h output.
field() {
	sed -n "s/^$2: *//p" "$1" | sed 's/ *$//'
}

# agree LABEL IMAGE: every casefold-related line of info matches dumpe2fs,
# or the raw superblock for the encoding flags (which dumpe2fs does not print).
agree() {
	local label=$1 img=$2 d=$TMP/dumpe2fs info=$TMP/info
	local want_cf=no want_enc=none want_sign=unset want_flags

	checks=$((checks + 1))
	dumpe2fs -h "$img" >"$d" 2>/dev/null || { record_failure "$label: dumpe2fs failed"; return; }
	"$CF" ext4 info "$img" >"$info" || { record_failure "$label: exit $?"; return; }
	field "$d" "Filesystem features" | grep -qw casefold && want_cf=yes
	[ -n "$(field "$d" "Character encoding")" ] &&
		want_enc="$(field "$d" "Character encoding").0 (magic 1)"
	case $(field "$d" "Filesystem flags") in
	*unsigned_directory_hash*) want_sign=unsigned ;;
	*signed_directory_hash*) want_sign=signed ;;
	esac
	want_flags=$(od -An -tu2 -j $((1024 + 0x27E)) -N2 "$img" | tr -d ' ')
	[ "$(field "$info" casefold)" = "$want_cf" ] ||
		record_failure "$label: casefold $(field "$info" casefold), dumpe2fs says $want_cf"
	[ "$(field "$info" encoding)" = "$want_enc" ] ||
		record_failure "$label: encoding '$(field "$info" encoding)', want '$want_enc'"
	[ "$(field "$info" hash)" = "$(field "$d" "Default directory hash"), $want_sign" ] ||
		record_failure "$label: hash '$(field "$info" hash)', dumpe2fs: $(field "$d" "Default directory hash") $want_sign"
	[ "$(field "$info" "hash seed")" = "$(field "$d" "Directory Hash Seed")" ] ||
		record_failure "$label: seed $(field "$info" "hash seed"), dumpe2fs $(field "$d" "Directory Hash Seed")"
	[[ $(field "$info" "encoding flags") == *"($(printf '0x%04x' "$want_flags"))" ]] ||
		record_failure "$label: flags '$(field "$info" "encoding flags")', superblock has $want_flags"
	"$CF" ext4 info --json "$img" >"$info" || record_failure "$label: --json exit $?"
	grep -q "\"hash_seed\":\"$(field "$d" "Directory Hash Seed")\"" "$info" ||
		record_failure "$label: --json: $(cat "$info")"
}

img=$TMP/fs.img
mkimage "$img" 8M -t ext4 -O casefold
agree "ext4 casefold" "$img"
check "not strict" 0 "none (0x0000)" bash -c '"$1" ext4 info "$2" | sed -n "s/^encoding flags: *//p"' sh "$CF" "$img"

mkimage "$img" 8M -t ext4 -O casefold -E encoding=utf8,encoding_flags=strict
agree "ext4 casefold strict" "$img"
check "strict" 0 "strict (0x0001)" bash -c '"$1" ext4 info "$2" | sed -n "s/^encoding flags: *//p"' sh "$CF" "$img"
check "strict, json" 0 1 bash -c '"$1" ext4 info --json "$2" | grep -c "\"strict\":true,"' sh "$CF" "$img"

mkimage "$img" 8M -t ext4
agree "ext4 without casefold" "$img"
# mke2fs cannot choose the hash or its signedness: tune2fs and debugfs can.
mkimage "$img" 8M -O casefold -b 4096
tune2fs -E hash_alg=tea "$img" >/dev/null 2>&1
debugfs -w -R "ssv flags 2" "$img" >/dev/null 2>&1
agree "ext2, casefold, tea, unsigned, 4 KiB blocks" "$img"
check "unsigned tea" 0 "tea, unsigned" bash -c '"$1" ext4 info "$2" | sed -n "s/^hash: *//p"' sh "$CF" "$img"
mkimage "$img" 8M -t ext4 -O casefold,^metadata_csum
tune2fs -E hash_alg=legacy "$img" >/dev/null 2>&1
agree "ext4 casefold legacy, no metadata_csum" "$img"

# The seed info prints is the one hash takes: an htree directory built by
# e2fsck lists its entries under their hashes (htree_dump), which must be
# the hashes casefold computes with that seed.
mkimage "$img" 8M -t ext4 -O casefold
printf 'mkdir d\nset_inode_field d flags 0x40080000\n' >"$TMP/cmds"
for i in $(seq 1 120); do printf 'write /dev/null d/File-%03d\n' "$i"; done >>"$TMP/cmds"
dbg "$img" "$TMP/cmds"
e2fsck -fyD "$img" >/dev/null 2>&1
seed=$(sed -n 's/^hash seed: *//p' <("$CF" ext4 info "$img"))
debugfs -R "htree_dump d" "$img" 2>/dev/null |
	perl -ne 'while (/(\d+) 0x([0-9a-f]+)-([0-9a-f]+) \((\d+)\) (File-\d+)/g) { printf "%s %08x %08x\n", $5, hex($2), hex($3) }' |
	sort >"$TMP/want"
checks=$((checks + 1))
if [ "$(wc -l <"$TMP/want")" -lt 100 ]; then
	record_failure "htree_dump listed $(wc -l <"$TMP/want") entries"
else
	cut -d' ' -f1 "$TMP/want" | "$CF" hash --casefold --seed="$seed" - |
		paste -d' ' <(cut -d' ' -f1 "$TMP/want") - >"$TMP/got"
	cmp -s "$TMP/got" "$TMP/want" || record_failure "hashes with the seed of info differ from htree_dump: $(diff "$TMP/got" "$TMP/want" | head -4)"
fi

# Errors: a clear message and exit 2, never a crash.
head -c 1500 "$img" >"$TMP/short.img"
check "truncated image" 2 "" "$CF" ext4 info "$TMP/short.img"
grep -q "truncated" "$TMP/err" || record_failure "truncated: message '$(cat "$TMP/err")'"
: >"$TMP/empty.img"
check "empty file" 2 "" "$CF" ext4 info "$TMP/empty.img"
head -c 65536 /dev/zero >"$TMP/zero.img"
check "no ext4 magic" 2 "" "$CF" ext4 info "$TMP/zero.img"
grep -q "not an ext2/ext3/ext4" "$TMP/err" || record_failure "no magic: message '$(cat "$TMP/err")'"
cp "$img" "$TMP/bad.img"
printf '\x02' | dd of="$TMP/bad.img" bs=1 seek=$((1024 + 0x27E)) conv=notrunc status=none
check "superblock checksum mismatch" 2 "" "$CF" ext4 info "$TMP/bad.img"
grep -q "corrupt superblock: checksum" "$TMP/err" || record_failure "checksum: message '$(cat "$TMP/err")'"
check "missing file" 2 "" "$CF" ext4 info "$TMP/nonexistent.img"
check "a directory" 2 "" "$CF" ext4 info "$TMP"
check "unknown action" 2 "" "$CF" ext4 frobnicate "$img"

# An encoding magic Linux does not know (no metadata_csum to update).
mkimage "$img" 8M -O casefold
printf '\x07' | dd of="$img" bs=1 seek=$((1024 + 0x27C)) conv=notrunc status=none
check "unknown encoding magic" 0 "unknown (magic 7): Linux refuses to mount" \
	bash -c '"$1" ext4 info "$2" | sed -n "s/^encoding: *//p"' sh "$CF" "$img"
check "audit refuses an unknown encoding" 2 "" "$CF" ext4 audit "$img"
finish

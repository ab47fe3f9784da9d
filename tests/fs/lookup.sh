#!/usr/bin/env bash
# Lookups in casefolded directories: case, canonical equivalence, ignorables,
# name preservation, EEXIST on fold-equal names, O_CREAT, long and invalid
# names, a 2,001-file directory, racing creators.  The backing tree is the
# oracle for what was stored.
. "$(dirname "$0")/../lib/fs.sh"

cfs_mount
cd "$M" || fail "cd"
casefolded ci
mkdir cs

# Case and name preservation.
echo data > ci/ReadMe.TXT
[ "$(cat ci/readme.txt)" = data ] || fail "lookup in another case"
[ "$(names "$B/ci")" = ReadMe.TXT ] || fail "stored name is not as created"
[ "$(names ci)" = ReadMe.TXT ] || fail "readdir does not return the stored name"
echo other > cs/ReadMe.TXT
[ -e cs/readme.txt ] && fail "plain directories are case-sensitive"

# Unicode equivalences (as Linux's utf8-12.1 nfdicf).
touch "ci/$(printf 'a\xcc\x8angstr\xc3\xb6m')"         # a + U+030A (NFD)
[ -e "ci/$(printf '\xc3\x85NGSTR\xc3\x96M')" ] || fail "NFC/upper U+00C5 vs NFD"
[ -e "ci/$(printf '\xe2\x84\xabngstro\xcc\x88m')" ] || fail "U+212B ANGSTROM SIGN"
touch ci/straße
[ -e ci/STRASSE ] || fail "ß folds to ss"
touch "ci/$(printf '\xe2\x84\xaaelvin')"                 # U+212A KELVIN SIGN
[ -e ci/kelvin ] || fail "KELVIN SIGN folds to k"
touch "ci/$(printf 'a\xe2\x80\x8db')"                   # a ZWJ b
[ -e ci/AB ] || fail "Default_Ignorable code points are ignored"
# Portuguese, French, Arabic, Japanese: NFC created, NFD looked up, and back.
touch ci/ação ci/café
[ -e "ci/$(printf 'ac\xcc\xa7a\xcc\x83o')" ] || fail "Portuguese NFD"
[ -e "ci/$(printf 'CAFE\xcc\x81')" ] || fail "French NFD upper"
touch "ci/$(printf '\xd8\xa2')"                          # U+0622 ALEF WITH MADDA
[ -e "ci/$(printf '\xd8\xa7\xd9\x93')" ] || fail "Arabic NFD (U+0627 U+0653)"
touch "ci/$(printf '\xe3\x81\x8b\xe3\x82\x99')"          # か + U+3099 (NFD が)
[ -e "ci/$(printf '\xe3\x81\x8c')" ] || fail "Japanese NFC が"
names "$B/ci" | grep -qx "$(printf 'a\xcc\x8angstr\xc3\xb6m')" || fail "NFD name not preserved"
[ -e "cs/$(printf 'A\xcc\x8a')" ] && fail "plain dirs are byte-exact"

# Creating a fold-equal name refers to the existing entry.
mkdir ci/Dir
expect EEXIST mkdir ci/DIR
expect EEXIST excl ci/README.txt
expect EEXIST symlink target ci/readme.TXT
expect EEXIST link ci/ReadMe.TXT ci/README.TXT
expect EEXIST fifo ci/readme.txt
expect OK create ci/README.TXT
echo appended >> ci/README.TXT
[ "$(names "$B/ci" | grep -ic readme)" = 1 ] || fail "O_CREAT stored a second name"
grep -q appended "$B/ci/ReadMe.TXT" || fail "O_CREAT did not open the existing file"

# Name reuse after delete: the new spelling is stored.
rm ci/README.txt
[ -e "$B/ci/ReadMe.TXT" ] && fail "rm by another spelling did not remove"
touch ci/README.txt
names "$B/ci" | grep -qx README.txt || fail "recreated name not stored as given"

# Long names: 255 bytes fine, 256 ENAMETOOLONG.
long=$(printf 'x%.0s' $(seq 255))
expect OK create "ci/$long"
expect ENAMETOOLONG create "ci/${long}x"
expect ENAMETOOLONG stat "ci/${long}x"

# Invalid UTF-8 (non-strict): opaque bytes, matched exactly, kept distinct.
touch "ci/$(printf 'bad\xff')" "ci/$(printf 'BAD\xff')"
[ "$(names "$B/ci" | LC_ALL=C grep -ac '^bad.$\|^BAD.$')" = 2 ] || fail "invalid names must stay distinct"
expect ENOENT stat "ci/$(printf 'Bad\xff')"

# Hidden files and ".casefoldfs" elsewhere are ordinary names.
touch ci/.casefoldfs
[ -e "$B/ci/.casefoldfs" ] || fail ".casefoldfs below the root is an ordinary name"

# A 2,001-file directory looked up in another case.
casefolded big
(cd big && for i in $(seq 0 2000); do echo "$i" > "File_$i.Txt"; done)
[ "$(ls big | wc -l)" = 2001 ] || fail "2001 files"
[ "$(names big)" = "$(names "$B/big")" ] || fail "readdir of 2001 files differs from the backing tree"
for i in 0 999 2000; do
	[ "$(cat "big/FILE_$i.TXT")" = "$i" ] || fail "big/FILE_$i.TXT"
done
start=$(date +%s%N)
for i in $(seq 0 40 2000); do [ -e "big/file_$i.txt" ] || fail "big/file_$i.txt"; done
echo "51 inexact lookups: $(( ($(date +%s%N) - start) / 1000000 )) ms"

# Racing creators of fold-equal names end with exactly one entry.
casefolded race
for round in $(seq 10); do
	pids=
	for s in Race RACE race rAcE; do
		(echo "$s" > "race/${s}$round") &
		pids="$pids $!"
	done
	wait $pids   # not a bare wait: the daemon is a child too
done
[ "$(ls race | wc -l)" = 10 ] || fail "racing creators made $(ls race | wc -l) entries"

cd /
cfs_umount
echo "lookup: ok"

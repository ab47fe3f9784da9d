#!/usr/bin/env bash
# -o casefold_nonempty (issue 21, part 1): Proton makes a prefix's drive_c
# case-insensitive by OR-ing FS_CASEFOLD_FL into the directory's flags
# (open, FS_IOC_GETFLAGS, FS_IOC_SETFLAGS), often after Steam Cloud has
# written saves into it.  With the option, +F on a non-empty directory
# succeeds when its names stay distinct under folding, and is ENOTEMPTY
# with the colliding names logged otherwise; atomically with creations
# racing in the directory.  Without it, ext4's ENOTEMPTY.
. "$(dirname "$0")/../lib/fs.sh"

"${CC:-cc}" -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -O2 -o "$T/ioctlflags" \
	"$CF_ROOT/tests/lib/ioctlflags.c" || fail "cannot build the ioctl helper"
proton() { "$T/ioctlflags" proton "$1"; }
has_f() { lsattr -d "$1" | grep -q '^[^ ]*F'; }

# populate DIR: what a game's prefix has before Proton flags it.
populate() {
	mkdir -p "$1/users/steamuser/Saved Games" "$1/Program Files" &&
	echo save > "$1/users/steamuser/Saved Games/Slot1.sav" &&
	echo cfg > "$1/Config.INI" && ln -s Config.INI "$1/Link" && mkfifo "$1/Fifo"
}

# Off (the default): ext4's rule.
cfs_mount
cd "$M" || fail "cd"
mkdir empty full
populate full || fail "populate"
[ "$(proton empty)" = OK ] && has_f empty || fail "Proton's sequence on an empty directory"
[ "$(proton full)" = ENOTEMPTY ] || fail "without the option: not ENOTEMPTY"
has_f full && fail "the refused flag is set"
cd /
cfs_umount

cfs_mount -o casefold_nonempty
cd "$M" || fail "cd"
expect ENOENT stat full/CONFIG.ini     # a negative dentry the flag must expire
[ "$(proton full)" = OK ] || fail "a populated directory: $(proton full)"
has_f full || fail "no F after Proton's sequence"
[ "$(cat full/CONFIG.ini)" = cfg ] || fail "lookup by another spelling"
[ "$(readlink full/link)" = Config.INI ] || fail "symlink by another spelling"
[ -p full/FIFO ] || fail "fifo by another spelling"
expect EEXIST excl full/config.ini
expect OK create full/config.INI
[ "$(names "$B/full" | tr '\n' ' ')" = "Config.INI Fifo Link Program Files users " ] ||
	fail "names changed: $(names "$B/full" | tr '\n' ' ')"
# Subdirectories keep their own flags (as ext4's inheritance is at mkdir).
has_f full/users && fail "a subdirectory was flagged"
expect ENOENT stat "full/USERS/STEAMUSER"
expect OK stat "full/USERS/steamuser/Saved Games/Slot1.sav"
[ "$(proton full/users)" = OK ] && [ "$(proton full/users/steamuser)" = OK ] ||
	fail "flagging the subdirectories one by one"
expect OK stat "full/USERS/STEAMUSER/Saved Games/Slot1.sav"
mkdir full/New && has_f full/New || fail "a new subdirectory inherits F"
# Still only +F: -F on a non-empty directory is ext4's ENOTEMPTY.
chattr -F full 2>&1 | grep -q "Directory not empty" || fail "-F on a non-empty directory"

# Save.dat and save.dat: ENOTEMPTY, nothing changes, the log names both.
mkdir saves && echo 1 > saves/Save.dat && echo 2 > saves/save.dat && touch saves/Other
[ "$(proton saves)" = ENOTEMPTY ] || fail "fold-equal names: not ENOTEMPTY"
has_f saves && fail "the flag was set over a collision"
grep -q '"Save.dat" and "save.dat"\|"save.dat" and "Save.dat"' "$T/daemon.log" ||
	fail "the log does not name the colliding entries: $(cat "$T/daemon.log")"
grep -q "casefold audit.*casefold convert" "$T/daemon.log" || fail "the log gives no way out"
[ "$(cat saves/Save.dat)$(cat saves/save.dat)" = 12 ] || fail "contents changed"
rm saves/save.dat
[ "$(proton saves)" = OK ] && [ "$(cat saves/SAVE.DAT)" = 1 ] || fail "after removing one"

# Canonically equivalent names collide too (NFC and NFD é).
mkdir nfd && touch "nfd/$(printf '\xc3\xa9')" "nfd/$(printf 'e\xcc\x81')"
[ "$(proton nfd)" = ENOTEMPTY ] || fail "NFC/NFD pair"

# Atomic with creations racing in the directory: after the call either the
# directory is +F and no two names fold equal, or it is unchanged.
for i in $(seq 20); do
	mkdir "race$i" && touch "race$i/seed"
	( for n in A B C D E F; do : > "race$i/$n"; : > "race$i/$(echo $n | tr A-F a-f)"; done ) &
	r=$(proton "race$i")
	wait $!
	if has_f "race$i"; then
		[ "$r" = OK ] || fail "race$i: flagged, but the call said $r"
		dup=$(names "$B/race$i" | tr a-z A-Z | sort | uniq -d)
		[ -z "$dup" ] || fail "race$i: flagged with fold-equal names $dup"
	else
		[ "$r" = ENOTEMPTY ] || fail "race$i: unflagged, the call said $r"
	fi
done
flagged=$(for i in $(seq 20); do has_f "race$i" && echo; done | wc -l)
echo "races: $flagged of 20 flagged, the rest refused"

cd /
cfs_umount
echo "proton: ok"

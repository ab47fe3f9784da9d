#!/usr/bin/env bash
# rsync -a and tar into a casefolded directory: a tree without collisions
# round-trips identically (names, modes, times, links, contents).
#
# A tree whose names collide under folding is merged by both tools without
# a word, as on ext4 with casefold (the same system calls): rsync renames
# its temporary file onto the existing entry, so the first name survives
# holding the last file; tar removes the entry in the way, so the last name
# and file survive; directories are merged.  What reports collisions:
# tar -k (--keep-old-files: "Cannot open: File exists", exit 2, the first
# file kept) and, before copying, casefold audit (exit 1).
. "$(dirname "$0")/lib.sh"
command -v rsync >/dev/null || skip "no rsync"
command -v tar >/dev/null || skip "no tar"

# The source tree, on plain /tmp: mixed case, NFC and NFD, nesting, an
# empty directory, a symlink, a hard link, modes and old times.
S=$T/src
mkdir -p "$S/Docs/Read Me" "$S/empty" "$S/src/Übung" "$S/src/$(printf 'U\xcc\x88bung2')"
echo one >"$S/Docs/Read Me/Notes.TXT"
echo two >"$S/src/Übung/Straße.c"
printf '\0binary\377' >"$S/blob.BIN"
echo '#!/bin/sh' >"$S/run.sh" && chmod 750 "$S/run.sh"
ln -s "docs/read me/NOTES.txt" "$S/link"
# rsync -H makes hard links after it has set the times of their directory:
# at the top, whose own times are not compared.
ln "$S/blob.BIN" "$S/hard"
touch -h -d '2001-02-03 04:05:06' "$S/link" "$S/run.sh" "$S/blob.BIN" "$S/src/Übung"
want=$(tree "$S")

cfs_mount
C=$M/ci
casefolded "$C"

# rsync's default --modify-window=0 compares times in whole seconds: it
# leaves alone a directory whose time is already in the second of the
# source's, and the source's directories were made in this very second
# more often than not (on any filesystem: plain ext4 keeps the creation
# times too).  -1 compares nanoseconds.
rsync -aH --modify-window=-1 "$S/" "$C/rsync/" || fail "rsync into the mount"
[ "$(tree "$C/rsync")" = "$want" ] || fail "rsync: the mount differs from the source"
[ "$(tree "$B/ci/rsync")" = "$want" ] || fail "rsync: the backing tree differs from the source"
same_file "$C/rsync/blob.bin" "$C/rsync/HARD"
rsync -aH --modify-window=-1 "$C/rsync/" "$T/back.rsync/" || fail "rsync out of the mount"
[ "$(tree "$T/back.rsync")" = "$want" ] || fail "rsync round trip differs"
[ -z "$(rsync -aHn --modify-window=-1 --itemize-changes "$S/" "$C/rsync/")" ] ||
	fail "a second rsync would copy again"

# pax archives keep times to the nanosecond (GNU format: whole seconds).
tar -C "$S" --format=posix -cf "$T/src.tar" . || fail "tar c"
mkdir "$C/tar" && tar -C "$C/tar" -xf "$T/src.tar" || fail "tar x into the mount"
[ "$(tree "$C/tar")" = "$want" ] || fail "tar: the mount differs from the source"
tar -C "$C/tar" --format=posix -cf "$T/mnt.tar" . && mkdir "$T/back.tar" && tar -C "$T/back.tar" -xf "$T/mnt.tar" ||
	fail "tar out of the mount"
[ "$(tree "$T/back.tar")" = "$want" ] || fail "tar round trip differs"

# Colliding names: a/A (different contents, same size) and sub/SUB.
X=$T/coll
mkdir -p "$X/sub" "$X/SUB"
echo lower >"$X/a" && echo upper >"$X/A" && echo f >"$X/sub/f" && echo g >"$X/SUB/g"
audit=$("$CF_BUILD/casefold" audit "$X") && fail "casefold audit found no collision"
grep -q 'names that collide: A a' <<<"$audit" && grep -q 'names that collide: SUB sub' <<<"$audit" ||
	fail "casefold audit: $audit"

rsync -a "$X/" "$C/rc/" || fail "rsync of colliding names failed"
[ "$(names "$C/rc" | tr '\n' ' ')" = "A SUB " ] || fail "rsync stored $(names "$C/rc")"
[ "$(cat "$C/rc/A")" = lower ] || fail "rsync: A holds $(cat "$C/rc/A")"
[ "$(names "$C/rc/SUB" | tr '\n' ' ')" = "f g " ] || fail "rsync: SUB holds $(names "$C/rc/SUB")"

tar -C "$X" -cf "$T/coll.tar" . && mkdir "$C/tc" && tar -C "$C/tc" -xf "$T/coll.tar" || fail "tar x of colliding names failed"
[ "$(names "$C/tc" | tr '\n' ' ')" = "a sub " ] || fail "tar stored $(names "$C/tc")"
[ "$(cat "$C/tc/a")" = lower ] || fail "tar: a holds $(cat "$C/tc/a")"

mkdir "$C/tk"
tar -C "$C/tk" -xkf "$T/coll.tar" 2>"$T/tk.err"
rc=$?
[ "$rc" = 2 ] && grep -q 'a: Cannot open: File exists' "$T/tk.err" || fail "tar -k: exit $rc, $(cat "$T/tk.err")"
[ "$(names "$C/tk" | tr '\n' ' ')" = "A sub " ] && [ "$(cat "$C/tk/A")" = upper ] || fail "tar -k stored $(names "$C/tk")"

cfs_umount
echo "rsync and tar: round trips identical; collisions merged (rsync, tar) or reported (tar -k, audit): ok"

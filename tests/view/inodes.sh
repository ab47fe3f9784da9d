#!/usr/bin/env bash
# Inode numbers and link counts of the view's directories (issue 33, C and
# D): the same live and after a remount, with a copy-up in between; an
# opaque directory (made where a lower one was removed, or moved over an
# empty lower one of its group) reports its own upper inode, not the one
# it hides.
. "$(dirname "$0")/lib.sh"

L=$T/low U=$T/upper W=$T/work
mkdir -p "$L/D/a" "$L/D/b" "$L/E/x" "$L/g" "$U" "$W"
echo e >"$L/E/x/f"
opts="lowerdir=$L,upperdir=$U,workdir=$W"
ovl_mount "$opts" overlay
attrs() { stat -c '%n %i %h' "$M/D" "$M/E" "$M/G"; }
before=$(stat -c '%i %h' "$M/D")
echo f >"$M/D/f" || fail "create D/f"
[ "$(stat -c '%i %h' "$M/D")" = "$before" ] || fail "D's number or count changed by a copy-up: $before, now $(stat -c '%i %h' "$M/D")"
rm -r "$M/E" || fail "rm -r E"
mkdir "$M/E" || fail "mkdir E"
[ "$(stat -c %i "$M/E")" = "$(stat -c %i "$U/E")" ] ||
	fail "opaque E reports $(stat -c %i "$M/E"), its upper directory is $(stat -c %i "$U/E")"
mkdir "$M/new" || fail "mkdir new"
mv -T "$M/new" "$M/G" || fail "mv new over the empty lower g"
[ "$(stat -c %i "$M/G")" = "$(stat -c %i "$U/g")" ] ||
	fail "G moved over g reports $(stat -c %i "$M/G"), its upper directory is $(stat -c %i "$U/g")"
live=$(attrs)
cd / || fail cd
cfs_umount
ovl_mount "$opts" overlay
[ "$(attrs)" = "$live" ] || fail "after a remount: $(diff <(echo "$live") <(attrs))"
cfs_umount
echo "inodes: directory numbers and counts stable, opaque ones their own"

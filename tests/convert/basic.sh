#!/usr/bin/env bash
# convert on casefoldfs, a tree without collisions: every directory ends up
# +F, every entry keeps its content, mode, owner, times, xattrs and link
# count, any spelling finds it; --dry-run and a rerun change nothing.
. "$(dirname "$0")/lib.sh"

cfs_mount
make_tree "$M/t"
manifest "$M/t" >/dev/null   # reading settles the atimes once
manifest "$M/t" --no-atime-dirs >"$T/before" || fail "manifest"

"$CF" convert --dry-run "$M/t" >"$T/dry" || fail "dry run failed: $(cat "$T/dry")"
grep -q '^would convert 5 of 7 directories' "$T/dry" || fail "dry run: $(cat "$T/dry")"
manifest "$M/t" --no-atime-dirs >"$T/after-dry"
cmp -s "$T/before" "$T/after-dry" || fail "--dry-run changed the tree"
lsattr -d "$M/t" | grep -q '^[^ ]*F' && fail "--dry-run set the flag"

"$CF" convert "$M/t" >"$T/out" 2>&1 || fail "convert: $(cat "$T/out")"
grep -q '^converted .*: 5 directories replaced' "$T/out" || fail "summary: $(cat "$T/out")"
check_flags "$M/t"
manifest "$M/t" --no-atime-dirs >"$T/after"
diff "$T/before" "$T/after" >&2 || fail "the tree changed"
check_lookups "$M/t"
[ "$(cat "$M/t/SRC/LIB/DEEP/data1")" = "deep 1" ] || fail "lookup in another case"
ls -A "$M" | grep -q casefold && fail "leftovers: $(ls -A "$M")"

# Done is done: a second run finds nothing to do.  (Reading the files for
# the manifest above moved their atimes: renames had changed their ctimes.)
manifest "$M/t" --no-atime-dirs >"$T/before2"
"$CF" convert "$M/t" >"$T/out2" 2>&1 || fail "second run: $(cat "$T/out2")"
grep -q ': 0 directories replaced, 0 entries moved' "$T/out2" || fail "second run: $(cat "$T/out2")"
manifest "$M/t" --no-atime-dirs >"$T/after2"
diff "$T/before2" "$T/after2" >&2 || fail "the second run changed the tree"

# A filesystem without the flag is refused clearly, before any change.
mkdir -p "$T/plain/d" && touch "$T/plain/d/f"
"$CF" convert "$T/plain/d" >"$T/out3" 2>&1 && fail "convert on $(stat -f -c %T "$T") succeeded?"
grep -q 'cannot casefold directories' "$T/out3" || fail "refusal: $(cat "$T/out3")"
[ -e "$T/plain/d/f" ] && [ -z "$(ls -A "$T/plain" | grep -v '^d$')" ] || fail "refusal left changes"
cfs_umount
echo "basic: ok"

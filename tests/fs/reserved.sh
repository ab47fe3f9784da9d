#!/usr/bin/env bash
# The superblock's names at a +F root (issue 24, finding 5): every name
# equal under the root's rule to .casefoldfs or .casefoldfs.tmp is refused
# like the exact names — EPERM on create and on rename or link onto it,
# ENOENT on lookup, absent from listings — for any user; a plain root
# keeps ext4's rule, where .CASEFOLDFS is another name.  The backing tree
# is the judge: no name fold-equal to the record may appear there.
. "$(dirname "$0")/../lib/fs.sh"
command -v setpriv >/dev/null || skip "no setpriv"
who=()
if [ -z "$CF_UNPRIV" ]; then
	chmod 755 "$T"
	cfs_mount -o allow_other
	who=(as_nobody)
else
	cfs_mount
fi
# Spellings of the two names: case, a long s (U+017F folds to s), an
# ignorable zero-width space (Linux strips Default_Ignorable code points).
variants=(.CASEFOLDFS .CaseFoldFS $'.casefoldf\xc5\xbf' $'.case\xe2\x80\x8bfoldfs'
	.CASEFOLDFS.TMP .casefoldfs.Tmp)

# A plain root: other names, as on ext4.
expect OK excl "$M/.CASEFOLDFS"
expect OK unlink "$M/.CASEFOLDFS"
chmod 1777 "$M" && chattr +F "$M" || fail "chattr +F on the root"
lsattr -d "$M" | grep -q '^[^ ]*F' || fail "root not +F"

# sys_as OP ARGS: sys as the mount's user.
sys_as() { "${who[@]}" perl -e '1' 2>/dev/null; "${who[@]}" bash -c "$(declare -f sys); sys \"\$@\"" sys "$@"; }
# sys_as OP ARGS: sys as the mount's user.
sys_as() {
	if [ ${#who[@]} -eq 0 ]; then sys "$@"; return; fi
	"${who[@]}" bash -c "$(declare -f sys)"'; sys "$@"' sys "$@"
}
"${who[@]}" sh -c ": > '$M/mine'" || fail "create a file of one's own"
for v in .casefoldfs .casefoldfs.tmp "${variants[@]}"; do
	for op in excl create mkdir fifo; do
		got=$(sys_as "$op" "$M/$v")
		[ "$got" = EPERM ] || fail "$op $v gave $got"
	done
	got=$(sys_as symlink mine "$M/$v"); [ "$got" = EPERM ] || fail "symlink $v gave $got"
	got=$(sys_as rename "$M/mine" "$M/$v"); [ "$got" = EPERM ] || fail "rename onto $v gave $got"
	got=$(sys_as link "$M/mine" "$M/$v"); [ "$got" = EPERM ] || fail "link onto $v gave $got"
	got=$(sys_as stat "$M/$v"); [ "$got" = ENOENT ] || fail "lookup $v gave $got"
done
# Only our record, and the user's file, in the backing root.
[ "$(names "$B")" = "$(printf '.casefoldfs\nmine')" ] || fail "backing root: $(names "$B" | tr '\n' ' ')"

# Made behind our back: hidden all the same.
: > "$B/.CASEFOLDFS" && : > "$B/.Casefoldfs.tmp" || fail "backing writes"
sleep 1.1  # the kernel's cached negatives expire
[ "$(names "$M")" = mine ] || fail "listing: $(names "$M" | tr '\n' ' ')"
for v in "${variants[@]}"; do
	got=$(sys_as stat "$M/$v"); [ "$got" = ENOENT ] || fail "lookup $v (planted) gave $got"
done
got=$(sys_as rename "$M/mine" "$M/.casefoldfs"); [ "$got" = EPERM ] || fail "rename onto planted"
cmp -s "$B/.CASEFOLDFS" /dev/null && [ -s "$B/.casefoldfs" ] || fail "backing files changed"
cfs_umount

#!/usr/bin/env bash
# Fold-equal twins (issue 33, A): two names of one group in one lower
# directory are two entries of the view, and a change to one — rm, append,
# chmod, mv, a file made inside a twin directory — neither hides nor alters
# the other, live or after a remount.  For each change: a fresh upper layer,
# the change, the view compared with what it must be, a remount, the view
# compared again.  Then twins in a middle layer between other spellings.
. "$(dirname "$0")/lib.sh"

L=$T/low L2=$T/mid U=$T/upper W=$T/work
mkdir -p "$L" "$L2"

# fresh: the lower layer of the twins (and nothing in the middle layer).
fresh() {
	rm -rf "$L" "$L2" "$U" "$W"
	mkdir -p "$L/Dir" "$L/dir" "$L2" "$U" "$W"
	echo upper-case >"$L/README"
	echo lower-case >"$L/readme"
	echo in-Dir >"$L/Dir/f"
	echo in-dir >"$L/dir/f"
}

# check WHAT EXPECTED: the view now, then after a remount.
check() {
	local got
	got=$(view "$M")
	[ "$got" = "$2" ] || fail "$1, live: $(diff <(echo "$2") <(echo "$got"))"
	cd / || fail cd
	cfs_umount
	ovl_mount "lowerdir=$L:$L2,upperdir=$U,workdir=$W" overlay
	got=$(view "$M")
	[ "$got" = "$2" ] || fail "$1, after a remount: $(diff <(echo "$2") <(echo "$got"))"
	cfs_umount
}

# expected: what `view` prints for NAME=CONTENT... files (directories
# Dir/dir and their f always there unless given as -Dir or -dir).
expected() {
	local d=$T/expect
	rm -rf "$d"
	mkdir -p "$d/Dir" "$d/dir"
	echo in-Dir >"$d/Dir/f"
	echo in-dir >"$d/dir/f"
	for a in "$@"; do
		case $a in
		-*) rm -rf "${d:?}/${a#-}" ;;
		*=*) mkdir -p "$(dirname "$d/${a%%=*}")"; printf '%b\n' "${a#*=}" >"$d/${a%%=*}" ;;
		esac
	done
	view "$d"
}

start() {
	fresh
	ovl_mount "lowerdir=$L:$L2,upperdir=$U,workdir=$W" overlay
}

# Nothing changed: both twins listed, each by its spelling.
start
check "no change" "$(expected README=upper-case readme=lower-case)"

start
rm "$M/README" || fail "rm README"
[ "$(cat "$M/readme")" = lower-case ] || fail "rm README altered readme"
check "rm README" "$(expected readme=lower-case)"

start
rm "$M/readme" || fail "rm readme"
check "rm readme" "$(expected README=upper-case)"

start
echo more >>"$M/README" || fail "append"
check "append to README" "$(expected 'README=upper-case\nmore' readme=lower-case)"

start
chmod 600 "$M/readme" || fail "chmod"
[ "$(stat -c %a "$M/readme")" = 600 ] || fail "chmod readme"
check "chmod readme" "$(sed 's/^readme|f|644/readme|f|600/' <<<"$(expected README=upper-case readme=lower-case)")"

start
mv "$M/README" "$M/other" || fail "mv README other"
check "mv README other" "$(expected other=upper-case readme=lower-case)"

# A rename onto the twin replaces it, as on a casefolded ext4 directory.
start
mv -T "$M/README" "$M/readme" || fail "mv README readme"
check "mv README readme" "$(expected readme=upper-case)"

# Removing both, then making a third spelling: only that one shows.
start
rm "$M/README" "$M/readme" || fail "rm both"
echo third >"$M/ReadMe" || fail "create ReadMe"
check "rm both, create ReadMe" "$(expected ReadMe=third)"

# Both removed, a third spelling made (over one of the two whiteouts), a
# remount; then a rename onto the group (which takes the other whiteout)
# and one out of it: the whiteout left behind still hides both twins.
start
rm "$M/README" "$M/readme" || fail "rm both"
echo third >"$M/ReadMe" || fail "create ReadMe"
cd / && cfs_umount
ovl_mount "lowerdir=$L:$L2,upperdir=$U,workdir=$W" overlay
echo moved >"$M/Dir/m" || fail "create Dir/m"
mv "$M/Dir/m" "$M/README" || fail "mv Dir/m README"
mv "$M/ReadMe" "$M/gone" || fail "mv ReadMe gone"
check "a remount, mv onto the group, mv out of it" "$(expected gone=moved)"

# Directories: a file made inside one twin copies only it up, the other
# keeps its own content; rm -r of one leaves the other.
start
echo new >"$M/Dir/g" || fail "create Dir/g"
check "Dir/g made" "$(expected README=upper-case readme=lower-case Dir/g=new)"

start
rm -r "$M/dir" || fail "rm -r dir"
check "rm -r dir" "$(expected README=upper-case readme=lower-case -dir)"

# Twins in the bottom layer under a layer holding another spelling of the
# group: that layer's name is what the view shows, before and after a
# change to it; a remount shows what the view showed.
rm -rf "$L" "$L2" "$U" "$W"
mkdir -p "$L" "$L2" "$U" "$W"
echo middle >"$L/ReadMe"
echo upper-case >"$L2/README"
echo lower-case >"$L2/readme"
ovl_mount "lowerdir=$L:$L2,upperdir=$U,workdir=$W" overlay
[ "$(names "$M")" = ReadMe ] || fail "three spellings, two layers: $(names "$M" | tr '\n' ' ')"
echo more >>"$M/README" || fail "append README"
[ "$(cat "$M/readme")" = "$(printf 'middle\nmore')" ] || fail "append reached $(cat "$M/readme")"
check "twins below another spelling, appended" "$(printf 'ReadMe|f|644|12|\n%s  ./ReadMe' \
	"$(printf 'middle\nmore\n' | sha256sum | cut -d' ' -f1)")"
echo "twins: every change live and after a remount as expected"

#!/usr/bin/env bash
# git in a casefolded directory: clone, status, a branch that renames README
# to Readme, and git's own warning for a repository with both a and A.
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || skip "no git"

# No configuration of the host's: a private HOME, no system file.
export HOME=$T GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org \
	GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
g() { git -c init.defaultBranch=main -c advice.detachedHead=false "$@"; }

# The repositories are made on the plain, case-sensitive /tmp.
src=$T/src
g init -q "$src" && mkdir "$src/Src" &&
	echo readme >"$src/README" && echo 'int main;' >"$src/Src/Main.c" &&
	g -C "$src" add . && g -C "$src" commit -qm one &&
	g -C "$src" checkout -qb rename && g -C "$src" mv README Readme &&
	g -C "$src" commit -qm rename && g -C "$src" checkout -q main || fail "making $src"
two=$T/two
g init -q "$two" && echo lower >"$two/a" && echo upper >"$two/A" &&
	g -C "$two" add . && g -C "$two" commit -qm two || fail "making $two"

cfs_mount
C=$M/ci
casefolded "$C"

# Clone: git probes the directory (it creates "CoNfIg" and looks up
# "config") and sets core.ignorecase, as on ext4 with casefold.
g clone -q "$src" "$C/work" || fail "git clone"
[ "$(git -C "$C/work" config core.ignorecase)" = true ] || fail "core.ignorecase is not true"
[ -z "$(git -C "$C/work" status --porcelain)" ] || fail "status after clone: $(git -C "$C/work" status --porcelain)"
[ "$(names "$C/work" | grep -v '^\.git$')" = "$(printf 'README\nSrc')" ] || fail "clone stored $(names "$C/work")"
same_file "$C/work/src/main.C" "$B/ci/work/Src/Main.c"

# A branch that renames README to Readme: git removes README and creates
# Readme, so the stored name follows the branch, both ways.
g -C "$C/work" checkout -q rename || fail "checkout rename"
[ "$(names "$C/work" | grep -v '^\.git$')" = "$(printf 'Readme\nSrc')" ] || fail "on rename: $(names "$C/work")"
[ -z "$(git -C "$C/work" status --porcelain)" ] || fail "status on rename: $(git -C "$C/work" status --porcelain)"
g -C "$C/work" checkout -q main || fail "checkout main"
[ "$(names "$C/work" | grep -v '^\.git$')" = "$(printf 'README\nSrc')" ] || fail "back on main: $(names "$C/work")"
[ -z "$(git -C "$C/work" status --porcelain)" ] || fail "status on main"
[ "$(names "$B/ci/work" | grep -v '^\.git$')" = "$(printf 'README\nSrc')" ] || fail "backing tree: $(names "$B/ci/work")"

# a and A: git's collision warning.  Checkout goes in index order (A, then
# a): git finds A in the way of a, removes it and creates a, so the tree
# holds a, and status calls A modified — as on ext4 with casefold.
g clone "$two" "$C/two" 2>"$T/clone.err" || fail "git clone of a and A"
grep -q "have collided" "$T/clone.err" || fail "no collision warning: $(cat "$T/clone.err")"
[ "$(names "$C/two" | grep -v '^\.git$' | wc -l)" = 1 ] || fail "two: $(names "$C/two")"
[ "$(git -C "$C/two" ls-files | wc -l)" = 2 ] || fail "the index lost a path"
[ "$(names "$C/two" | grep -v '^\.git$')" = a ] && [ "$(cat "$C/two/A")" = lower ] ||
	fail "two holds $(names "$C/two")"
[ "$(git -C "$C/two" status --porcelain)" = " M A" ] || fail "status of two: $(git -C "$C/two" status --porcelain)"

cfs_umount
echo "git: clone, ignorecase, status, README/Readme checkout, a/A warning: ok"

#!/usr/bin/env bash
# README.md's commands, and casefoldfs(8)'s marked examples, as printed, in
# a newcomer's setting: a copy of the
# checkout, a scratch home, scripts/quickstart first; then every ```sh
# block marked for the user or for root (tests/install/readme_blocks.py
# says how blocks are marked and run; an unmarked one fails).  As root:
# root's blocks as root (mount -t fuse.casefoldfs finds the copy's
# casefoldfs on the default PATH, /srv is a tmpfs of the test's own), and
# the user's as uid 65534, all in a private mount namespace with a /dev/fuse
# of mode 0666 of its own.  As an ordinary user: the user's blocks, as
# that user.  Preconditions the README states in words are set up here:
# mods/ and game/ for the mod stacks; the placeholder repository
# https://example.org/project.git is a local one (git's url.insteadOf).
. "$(dirname "$0")/lib.sh"
cf_may_mount
if [ "$(id -u)" = 0 ]; then
	cf_private_ns "$@"
	fuse_bind 0666
fi
for tool in git python3 setpriv fusermount3 chattr lsattr findmnt; do
	command -v "$tool" >/dev/null || skip "no $tool"
done
[ -r /dev/fuse ] && [ -w /dev/fuse ] ||
	skip "/dev/fuse (mode $(fuse_mode)) is not usable by uid $(id -u); root can make it so (README: /dev/fuse)"
chmod 755 "$T"
# The tour's comment says what its second 'Å' is: U+212B, not U+00C5 again.
grep -q "^\$ build/casefold fold --hex 'Straße' 'Å' '$(printf '\342\204\253')' .*U+212B" "$CF_ROOT/README.md" ||
	fail "the tour's second Å is not U+212B ANGSTROM SIGN"

# unmount_all: every FUSE mount under $T and /srv, the last made first.
unmount_all() {
	local m
	for m in $(awk -v t="$T" '$3 ~ /^fuse/ && (index($2, t) == 1 || index($2, "/srv") == 1) { print $2 }' \
			/proc/mounts | tac); do
		fusermount3 -u "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done
}
at_exit unmount_all

# The placeholder repository of "A source tree born on Windows" (each
# newcomer gets a copy of its own: git refuses a repository of another owner).
git init -q --bare "$T/project.git" && git clone -q "$T/project.git" "$T/work" 2>/dev/null &&
	(cd "$T/work" && echo '#include "Config.h"' >main.c && echo x >config.h && git add . &&
	 git -c user.name=t -c user.email=t@t commit -qm init && git push -q origin HEAD) ||
	fail "cannot make the placeholder repository"

# newcomer DIR OWNER: a copy of the checkout in DIR/casefold and a home in
# DIR/home, both OWNER's, with the README's stated preconditions.
# A newcomer's checkout has no build tree, so the copy leaves build/ out:
# other tests build in it meanwhile (tests/install/quickstart.sh), and a
# copy taken halfway through a compile linked a half-written object.
newcomer() {
	local d=$1 owner=$2
	mkdir -p "$d/casefold" "$d/home" && (cd "$CF_ROOT" && tar --exclude=./.git --exclude=./build \
		--exclude=./casefold --exclude=./casefold.backing -cf - .) |
		tar -C "$d/casefold" -xpf - ||
		fail "cannot copy the checkout"
	mkdir -p "$d/home"/mods/{SkyUI/Data/Textures,USSEP/data/textures,Textures4K/Data/{Textures,textures}} \
		"$d/home/game/Data/Textures" "$d/manhome"/{mods/A/Data,mods/B/data,game/DATA}
	touch "$d/home/mods/SkyUI/Data/Textures/a.dds" "$d/home/mods/USSEP/data/textures/b.dds" \
		"$d/home/mods/Textures4K/Data/Textures/c.dds" "$d/home/mods/Textures4K/Data/textures/e.dds" \
		"$d/home/game/Data/Textures/d.dds"
	cp -a "$T/project.git" "$d/project.git" &&
		git config --file "$d/home/.gitconfig" url."$d/project.git".insteadOf \
			https://example.org/project.git || fail "cannot set up the placeholder repository"
	chown -R "$owner" "$d"
}

# blocks DIR MODE [AS...]: quickstart, then MODE's blocks, as AS.
blocks() {
	local d=$1 mode=$2
	shift 2
	(cd "$d/casefold" && "$@" env HOME="$d/home" PATH="$PATH" scripts/quickstart) >"$T/qs.log" 2>&1 ||
		{ cat "$T/qs.log"; fail "scripts/quickstart as $mode failed"; }
	(cd "$d/home" && "$@" env HOME="$d/home" PATH="$PATH" \
		python3 "$CF_ROOT/tests/install/readme_blocks.py" "$CF_ROOT/README.md" "$mode" "$d/casefold") ||
		fail "README.md's blocks as $mode"
	"$@" lsattr -d "$d/home/skyrim/overwrite" >/dev/null || fail "the mod stack's upperdir is gone"
	unmount_all
	# The manual's examples, in a home of their own: its ~/games is the README's.
	(cd "$d/manhome" && "$@" env HOME="$d/manhome" PATH="$PATH" python3 \
		"$CF_ROOT/tests/install/readme_blocks.py" "$CF_ROOT/man/casefoldfs.8.in" "$mode" "$d/casefold") ||
		fail "casefoldfs(8)'s examples as $mode"
	unmount_all
}

if [ "$(id -u)" = 0 ]; then
	newcomer "$T/root" 0:0
	# What an installed casefoldfs gives mount -t (mount.fuse3 runs it from the
	# shell's default PATH) and every user's PATH: the copy's build, built
	# by quickstart, bound over /usr/local/bin; /srv is the test's.
	(cd "$T/root/casefold" && scripts/quickstart) >"$T/qs.log" 2>&1 ||
		{ cat "$T/qs.log"; fail "scripts/quickstart as root failed"; }
	fusermount3 -u "$T/root/casefold/casefold" || fail "cannot unmount quickstart's mount"
	mkdir "$T/bin" && cp "$T/root/casefold/build/casefoldfs" "$T/root/casefold/build/casefold" "$T/bin/" &&
		chmod -R a+rX "$T/bin" && mount --bind "$T/bin" /usr/local/bin &&
		mount -t tmpfs casefold-srv /srv || fail "cannot set up /usr/local/bin and /srv"
	[ "$(env -i /bin/sh -c 'command -v casefoldfs')" = /usr/local/bin/casefoldfs ] ||
		skip "casefoldfs is not found first in the shell's default PATH"
	blocks "$T/root" root
	newcomer "$T/user" 65534:65534
	blocks "$T/user" user setpriv --reuid=65534 --regid=65534 --clear-groups
else
	newcomer "$T/user" "$(id -u):$(id -g)"
	PATH=$T/user/casefold/build:$PATH    # "installed, drop the build/"
	blocks "$T/user" user
fi
echo "README.md: every block marked for $([ "$(id -u)" = 0 ] && echo "root and for the user" || echo "the user") runs as printed"

# Helpers for the casefold convert tests (sourced): the casefoldfs mount of
# tests/lib/fs.sh ($B backing, $M mount), a tree generator and manifests.
. "$CF_ROOT/tests/lib/fs.sh"

CF=$CF_BUILD/casefold
[ -x "$CF" ] || skip "$CF is not built"
command -v setfattr >/dev/null || skip "no setfattr (attr package)"

# manifest DIR [--no-atime-dirs]: what a conversion must keep, one line per
# fact, sorted: type, mode, owner, times, link count, size, symlink target,
# then content hashes, then xattrs.  All stats come before any read, so the
# reads cannot move the atimes recorded.  Directory atimes are those of the
# start of a conversion (it reads them), hence the option.
manifest() {
	local datime='%A@ '
	[ "${2:-}" = --no-atime-dirs ] && datime=
	(cd "$1" || exit 1
	 find . -type d -printf "%p d %m %U:%G %T@ $datime\n" \
		-o -type f -printf '%p f %m %U:%G %T@ %A@ %n %s\n' \
		-o -type l -printf '%p l %U:%G %T@ -> %l\n' \
		-o -printf '%p %y %m %U:%G %T@\n' | LC_ALL=C sort
	 find . -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum
	 find . -print0 | LC_ALL=C sort -z | xargs -0r getfattr -h -d -m - --absolute-names 2>/dev/null)
}

# check_flags DIR: every directory under DIR, DIR included, is casefolded.
check_flags() {
	local bad
	bad=$(find "$1" -type d -exec lsattr -d {} + | awk '$1 !~ /F/' | head -3)
	[ -z "$bad" ] || fail "not casefolded: $bad"
}

# check_lookups DIR: every entry is reachable by its upper-case spelling.
check_lookups() {
	(cd "$1" && find . -mindepth 1 ! -name '*[!\x01-\x7f]*') | while IFS= read -r p; do
		up=$(printf '%s' "$p" | tr a-z A-Z)
		[ "$(stat -c %i "$1/$p")" = "$(stat -c %i "$1/$up")" ] || { echo "$p"; break; }
	done | { read -r bad && fail "lookup of the upper-case spelling of $bad"; true; }
}

# inode_census DIR...: the backing inodes of all files and symlinks, one a
# line per name, sorted: a file seen zero or two times shows up here.
inode_census() {
	find "$@" \( -type f -o -type l \) ! -name '*.casefold-journal*' ! -name .casefoldfs \
		-printf '%i\n' 2>/dev/null | sort
}

# make_tree DIR [SMALL]: a tree with every kind of entry a conversion must
# keep: files of several owners and modes, hard links within and across
# directories, symlinks, a FIFO, xattrs on files and directories, a setgid
# directory, old times; no names that collide.
make_tree() {
	local d=$1 n=${2:-3}
	mkdir -p "$d/src/lib/deep" "$d/Docs" "$d/empty" "$d/shared"
	for i in $(seq "$n"); do
		echo "file $i" > "$d/src/File$i.c"
		echo "deep $i" > "$d/src/lib/deep/Data$i"
		echo "doc $i" > "$d/Docs/Page$i.txt"
	done
	echo readme > "$d/README"
	printf 'bin\0\1\2' > "$d/src/lib/blob.bin"
	ln "$d/README" "$d/Docs/readme-link"
	ln "$d/src/File1.c" "$d/src/lib/deep/again.c"
	ln -s ../README "$d/Docs/up"
	ln -s lib/deep/Data1 "$d/src/Shortcut"
	mkfifo "$d/src/pipe"
	setfattr -n user.color -v blue "$d/README"
	setfattr -n user.dir -v yes "$d/src/lib"
	chown 1000:1000 "$d/Docs/Page1.txt" "$d/Docs"
	chown -h 1001:1001 "$d/Docs/up"
	chmod 640 "$d/src/File1.c"
	chmod 2775 "$d/shared"
	chmod 700 "$d/src/lib/deep"
	find "$d" -depth -exec touch -h -m -d '2020-02-02 02:02:02.123456789' {} +
	find "$d" -depth ! -type l -exec touch -a -d '2021-03-03 03:03:03.5' {} +
}

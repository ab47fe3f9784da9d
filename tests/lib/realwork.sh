# The real-tree session (sourced, after fs.sh, by tests/fs/realtree.sh,
# tests/view/realtree.sh and tests/kernel/uring.sh): Debian's Python
# standard library (about 1,400 files, 54 MB, sizes of every kind) as a
# tar, and `work`, the steps people take on such a tree, each with a bound
# (fs.sh's bounded: one over it fails the test with the daemon's stacks,
# never hangs it).
command -v git >/dev/null || skip "no git"
SRC=$(ls -d /usr/lib/python3.[0-9]* 2>/dev/null | sort -V | tail -n 1)
[ -n "$SRC" ] && [ -f "$SRC/os.py" ] || skip "no Python standard library in /usr/lib (python3)"
chmod 755 "$T"
TAR=$T/tree.tar
tar -C "$(dirname "$SRC")" -cf "$TAR" "$(basename "$SRC")" || fail "tar of $SRC"
chmod 644 "$TAR"
NAME=$(basename "$SRC")
FILES=$(find "$SRC" -type f | wc -l)
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
AS=()

# other_spelling PATH: PATH with every letter's case swapped.
other_spelling() { tr 'a-zA-Z' 'A-Za-z' <<<"$1"; }

# work WHAT DIR BACKING: the session on DIR (through the mount), whose
# files are in BACKING (empty: not to compare), by "${AS[@]}".
work() {
	local what=$1 d=$2 back=$3 n start=$SECONDS
	bounded 300 "$what: tar x" "${AS[@]}" tar -C "$d" -xf "$TAR" || fail "$what: tar x"
	n=$(bounded 60 "$what: find" "${AS[@]}" find "$d/$NAME" -type f | wc -l)
	[ "$n" = "$FILES" ] || fail "$what: find -type f gave $n files, the tree has $FILES"
	n=$(bounded 120 "$what: grep -r" "${AS[@]}" grep -r -l -F 'import' "$d/$NAME" | wc -l)
	[ "$n" -gt 100 ] || fail "$what: grep -r found 'import' in only $n files"
	bounded 120 "$what: diff -r --no-dereference with the source" "${AS[@]}" diff -r --no-dereference "$SRC" "$d/$NAME" >&2 ||
		fail "$what: the tree read back differs from its source"
	[ -z "$back" ] || bounded 120 "$what: diff -r --no-dereference with the backing copy" \
		"${AS[@]}" diff -r --no-dereference "$back/$NAME" "$d/$NAME" >&2 ||
		fail "$what: the tree read back differs from the backing copy"
	bounded 120 "$what: every file by another spelling" "${AS[@]}" sh -c '
		cd "$1" && find . -type f | tr "a-zA-Z" "A-Za-z" | while IFS= read -r f; do
			cat "$f" >/dev/null || exit 1
		done' sh "$d/$NAME" || fail "$what: a file not found, or not read, by another spelling"
	bounded 300 "$what: git add and commit" "${AS[@]}" sh -c '
		cd "$1" && git init -q && git add -A && git commit -q -m tree' sh "$d/$NAME" ||
		fail "$what: git add/commit"
	n=$(bounded 60 "$what: git status" "${AS[@]}" git -C "$d/$NAME" status --porcelain | wc -l)
	[ "$n" = 0 ] || fail "$what: git status after the commit lists $n paths"
	bounded 120 "$what: rm -rf" "${AS[@]}" rm -rf "$d/$NAME" || fail "$what: rm -rf"
	[ ! -e "$d/$NAME" ] || fail "$what: rm -rf left $d/$NAME"
	[ -z "$back" ] || [ ! -e "$back/$NAME" ] || fail "$what: rm -rf left the backing copy"
	echo "$what: $FILES files untarred, found, grepped, compared, opened by another" \
		"spelling, committed and removed in $((SECONDS - start)) s"
}


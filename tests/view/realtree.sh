#!/usr/bin/env bash
# The real-tree session of tests/fs/realtree.sh (tests/lib/realwork.sh)
# through an overlay view, root's and an ordinary user's (uid 65534, working
# as itself): in a directory made through the view (the upper layer), and
# on the same tree in the lower layer, found, read back, compared with its
# source and removed (whiteouts above it; the lower layer unwritten).
CF_NEEDS_ROOT="mounts as root and as uid 65534"
CF_USERS_MOUNT=1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../lib/realwork.sh"

# round WHAT: a view of a lower layer holding the tree, with an upper.
round() {
	local what=$1 n
	L=$T/lower-$RANDOM U=$T/upper-$RANDOM W=$T/work-$RANDOM
	mkdir -p "$L" "$U" "$W"
	tar -C "$L" -xf "$TAR" || fail "tar x into the lower layer"
	[ -z "${CFS_AS:-}" ] || chown -R 65534:65534 "$L" "$U" "$W" "$M"
	ovl_mount "lowerdir=$L,upperdir=$U,workdir=$W"
	"${AS[@]}" mkdir "$M/new" || fail "$what: mkdir"
	work "$what, a new directory" "$M/new" "$U/new"
	n=$(bounded 60 "$what: find" "${AS[@]}" find "$M/$NAME" -type f | wc -l)
	[ "$n" = "$FILES" ] || fail "$what: find gave $n files of the lower layer's $FILES"
	bounded 120 "$what: diff -r of the lower layer" \
		"${AS[@]}" diff -r --no-dereference "$SRC" "$M/$NAME" >&2 ||
		fail "$what: the lower layer read through the view differs from its source"
	bounded 120 "$what: rm -rf of the lower layer's tree" "${AS[@]}" rm -rf "$M/$NAME" ||
		fail "$what: rm -rf"
	[ ! -e "$M/$NAME" ] || fail "$what: rm -rf left $NAME in the view"
	diff -r --no-dereference "$SRC" "$L/$NAME" >&2 || fail "$what: the lower layer was written"
	cfs_umount
}

round "root's view"
AS=(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp)
CFS_AS=65534 round "uid 65534's own view"
AS=()
echo "ok: $FILES files through root's and uid 65534's views: untarred into the upper, and the" \
	"lower layer's found, read back and removed"

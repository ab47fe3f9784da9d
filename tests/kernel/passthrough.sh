#!/usr/bin/env bash
# Passthrough (issue 30, Linux 6.9+): root's daemon hands open files to the
# kernel, which reads and writes the backing file itself.  Checked here:
# the stats xattr says passthrough is on and counts the backing files
# registered; data written and read through the mount is the backing
# file's, with a reader and a writer open at once and through mmap; a tree
# on overlayfs, whose files the kernel refuses (stacking depth), is served
# by the daemon instead, counted as refused; -o nopassthrough turns it off.
CF_NEEDS_ROOT="passthrough needs CAP_SYS_ADMIN"
. "$(dirname "$0")/../lib/fs.sh"

stats() { getfattr --only-values -n "${CFS_XATTRS}stats" "$M" 2>/dev/null; }
field() { stats | tr ' ' '\n' | awk -v k="$1" 'p { print; exit } $0 == k { p = 1 }'; }

cfs_mount
case $(field passthrough) in
on) ;;
off:kernel) cfs_umount; skip "the kernel offers no FUSE_PASSTHROUGH (Linux < 6.9)" ;;
*) fail "passthrough is $(field passthrough): $(stats)" ;;
esac
[ "$(field max_stack_depth)" = 1 ] || fail "max_stack_depth $(field max_stack_depth)"
stats | grep -q "init [a-z0-9_,]*passthrough" || fail "INIT's flags lack passthrough: $(stats)"

cd "$M" || fail "cd"
casefolded ci
cd / || fail "cd /"
head -c 3000000 /dev/urandom >"$T/data"
cp "$T/data" "$M/ci/Blob.bin" || fail "write through the mount"
cmp -s "$T/data" "$B/ci/Blob.bin" || fail "the backing file differs from what was written"
cmp -s "$T/data" "$M/ci/BLOB.BIN" || fail "a read through another spelling differs"
opened=$(field backing_opened)
[ "$opened" -ge 2 ] || fail "backing files registered: $opened, expected one per open file"

# A writer and a reader open at once share the node's backing file.
python3 - "$M/ci/blob.bin" "$M/ci/Blob.bin" <<'PY' || fail "reader beside a writer"
import mmap, os, sys
w = os.open(sys.argv[1], os.O_WRONLY)
r = os.open(sys.argv[2], os.O_RDONLY)
os.pwrite(w, b"PASSTHROUGH", 100)
assert os.pread(r, 11, 100) == b"PASSTHROUGH", "the reader does not see the write"
with open(sys.argv[2], "rb") as f, mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ) as m:
    assert m[100:111] == b"PASSTHROUGH", "mmap does not see the write"
os.close(w)
os.close(r)
PY
[ "$(dd if="$B/ci/Blob.bin" bs=1 skip=100 count=11 2>/dev/null)" = PASSTHROUGH ] ||
	fail "the backing file lacks the write"
cfs_umount

# -o nopassthrough: the daemon serves every read.
cfs_mount -o nopassthrough
[ "$(field passthrough)" = off:not-asked ] || fail "nopassthrough: $(stats)"
cmp -s "$B/ci/Blob.bin" "$M/ci/BLOB.BIN" || fail "nopassthrough: a read differs"
[ "$(field backing_opened)" = 0 ] || fail "nopassthrough registered backing files"
cfs_umount

# A backing tree on overlayfs: its files stack one deeper than the mount allows.
O=$T/ovl
mkdir -p "$O/lower" "$O/upper" "$O/work" "$O/merged"
mount -t overlay overlay -o "lowerdir=$O/lower,upperdir=$O/upper,workdir=$O/work" "$O/merged" ||
	skip "cannot mount overlayfs here"
at_exit umount "$O/merged"
mount --bind "$O/merged" "$B" || fail "bind mount"
at_exit umount "$B"
cfs_mount
printf 'on overlayfs\n' >"$M/file" || fail "write on the overlayfs tree"
[ "$(cat "$M/file")" = "on overlayfs" ] || fail "read on the overlayfs tree"
[ "$(field backing_opened)" = 0 ] || fail "a file on overlayfs was passed through: $(stats)"
[ "$(field backing_refused)" -ge 1 ] || fail "no refusal counted: $(stats)"
cfs_umount
echo "passthrough: $opened backing files; on overlayfs refused and served by the daemon"

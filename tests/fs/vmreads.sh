#!/usr/bin/env bash
# Reads of every size around the read path's boundaries (the sizes of
# readsizes.py) on Debian 12's own kernel (tests/vm/run-in-vm, Linux
# 6.1: no passthrough, so root's default mount answers every read itself),
# issue 39: there a 126,992-byte file written through the mount and read
# after dropping the caches never came back.  Files written through the
# mount and behind it, read after a remount and after dropping the caches:
# by 1 MiB reads while a writer holds the file open (the daemon then
# answers each read itself, FOPEN_DIRECT_IO), then whole through the cold
# page cache.  Then a real tree, part of Debian's Python library (its
# asyncio, email, unittest, xml... packages with their compiled files):
# untarred through the mount into a +F directory, found, grepped, every
# file read back by another spelling against its checksum, removed.  Every
# step runs under busybox timeout; the VM's own timeout is the last bound.
CF_NEEDS_ROOT="runs the kernel VM"
. "$(dirname "$0")/../lib/fs.sh"
runner=${CF_KERNEL_RUNNER:-$CF_ROOT/tests/vm/run-in-vm}
[ -x "$runner" ] || skip "no kernel runner at $runner"
command -v python3 >/dev/null || skip "no python3"
sizes=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import readsizes; print(" ".join(map(str, readsizes.sizes())))' \
	"$CF_ROOT/tests/lib") || fail "the sizes of readsizes.py"
# The tree, and its files' checksums under other spellings (case swapped).
PYLIB=$(ls -d /usr/lib/python3.[0-9]* 2>/dev/null | sort -V | tail -n 1)
[ -n "$PYLIB" ] && [ -d "$PYLIB/email" ] || skip "no Python standard library in /usr/lib (python3)"
PKGS="asyncio email json unittest xml http logging concurrent importlib"
# shellcheck disable=SC2086
tar -C "$PYLIB" -cf "$T/tree.tar" $PKGS || fail "tar of $PYLIB"
python3 - "$PYLIB" $PKGS >"$T/sums.other" <<'PY' || fail "checksums"
import hashlib, os, sys
top = sys.argv[1]
for pkg in sys.argv[2:]:
    for d, _, files in os.walk(os.path.join(top, pkg)):
        for f in files:
            path = os.path.join(d, f)
            if os.path.isfile(path) and not os.path.islink(path):
                rel = os.path.relpath(path, top)
                with open(path, "rb") as fh:
                    print("%s  %s" % (hashlib.md5(fh.read()).hexdigest(), ("tree/" + rel).swapcase()))
PY
host_files=("$CFS")
libgcc=$(cc -print-file-name=libgcc_s.so.1 2>/dev/null)
[ "${libgcc#/}" = "$libgcc" ] || host_files+=("$libgcc")

{
	echo "SIZES='$sizes'"
	cat <<'VM'
set -u
exec 2>&1
fail() { echo "FAIL: $*"; cat /tmp/daemon.log; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
CFS=/data/casefoldfs
for m in /lib/modules/extra/*.ko; do insmod "$m" 2>/dev/null; done
[ -c /dev/fuse ] || skip "the VM's kernel has no fuse"
B=/tmp/back M=/tmp/mnt
mkdir -p $B/behind $M /tmp/ref
head -c 2200000 /dev/urandom > /tmp/src
VM
	cat "$CF_ROOT/tests/fs/vmcfs.sh"
	cat <<'VM'
# same WHAT FILE REF: FILE's bytes are REF's.
same() { cmp -s "$2" "$3" || fail "$1: $(wc -c < "$2") bytes read, not those written"; }

t0=$(date +%s)
start_cfs
mkdir $M/ci && chattr +F $M/ci || fail "chattr +F"
for s in $SIZES; do
	head -c $s /tmp/src > /tmp/ref/$s
	cp /tmp/ref/$s $M/ci/f-$s || fail "writing $s bytes through the mount"
	cp /tmp/ref/$s $B/behind/f-$s
done
stop_cfs
start_cfs
n=0
for d in ci behind; do
	echo 3 > /proc/sys/vm/drop_caches
	for s in $SIZES; do
		f=$M/$d/f-$s
		# A writer open: each read goes to the daemon, as it is asked.
		exec 3>>$f
		timeout 20 dd if=$f of=/tmp/got bs=1048576 2>/dev/null || fail "$d/f-$s: no 1 MiB reads within 20 s"
		exec 3>&-
		same "$d/f-$s by 1 MiB reads" /tmp/got /tmp/ref/$s
		# Then through the page cache, cold (direct reads leave it empty).
		timeout 20 cat $f > /tmp/got || fail "$d/f-$s: no whole read within 20 s"
		same "$d/f-$s whole" /tmp/got /tmp/ref/$s
		n=$((n + 2))
	done
done
# The real tree: each step bounded, every file read by another spelling.
mkdir $M/ci/tree || fail "mkdir tree"
timeout 120 tar -C $M/ci/tree -xf /data/tree.tar || fail "tar x of the tree through the mount"
files=$(timeout 60 find $M/ci/tree -type f | wc -l)
[ "$files" = "$(wc -l < /data/sums.other)" ] || fail "find gave $files files, the tree has $(wc -l < /data/sums.other)"
[ "$(timeout 60 grep -r -l import $M/ci/tree | wc -l)" -gt 50 ] || fail "grep -r"
echo 3 > /proc/sys/vm/drop_caches
(cd $M/ci && timeout 120 md5sum -c -s /data/sums.other) || fail "a file read by another spelling differs"
timeout 60 rm -rf $M/ci/tree || fail "rm -rf"
[ ! -e $B/ci/tree ] || fail "rm -rf left the tree"
stop_cfs
echo "vmreads: $files files of a real tree untarred, found, grepped, read by other spellings, removed"
echo "vmreads: $n reads in $(( $(date +%s) - t0 )) s, of $(echo $SIZES | wc -w) sizes, written through and behind the mount, on $(uname -r)"
VM
} >"$T/vm.sh"

vm_run "the reads" "$CFS" "$T/tree.tar" "$T/sums.other"
echo "vmreads: $(sed -n 's/^run-in-vm: accelerator //p' "$T/runner.log") VM"

#!/usr/bin/env bash
# A real kernel NFS server exporting a casefoldfs mount, and the kernel's NFS
# client mounting it over loopback (issue 21, part 2).  In the test VM
# (tests/vm/run-in-vm: Debian's kernel has nfsd, the NFS client and fuse
# as modules; this host's kernel may have none, and its own NFS server is
# never touched): the daemon (this build, sanitizers included) on an ext4
# image, exported with fsid= and mounted with NFS 4.2 and NFS 3:
#   - lookups by other spellings in a +F directory, and a miss;
#   - create, a fold-equal create (EEXIST), rename, unlink through NFS, each
#     seen through the mount and in the backing tree; a name created
#     through the mount seen through NFS;
#   - the daemon restarted under the live NFS mount: the client's file
#     handles (open_by_handle_at on the NFS mount, as a client holding them
#     would use them) open the same files, a file removed meanwhile is
#     ESTALE even though a new file has its inode number, and paths work;
#   - every daemon exits cleanly (status 0: no sanitizer report).
# Exports, mounts and daemons live and die with the VM: a failure at any
# point leaves nothing on this host (at_exit removes the test's files).
# The protocol side alone (LOOKUP of "." and "..") is export.sh.
. "$(dirname "$0")/../lib/fs.sh"

runner=${CF_KERNEL_RUNNER:-$CF_ROOT/tests/vm/run-in-vm}
[ -x "$runner" ] || skip "no kernel runner at $runner"
PATH=$PATH:/usr/sbin:/sbin
# The daemon goes to /data (the VM's /tmp is a tmpfs of its own), and with
# it the libraries it loads, and libgcc_s, which glibc loads at run time
# for pthread_cancel (the daemon's exit) and ldd does not list.
host_files=("$CFS" /etc/netconfig /etc/services /etc/protocols)
libgcc=$(cc -print-file-name=libgcc_s.so.1 2>/dev/null)
[ "${libgcc#/}" = "$libgcc" ] || host_files+=("$libgcc")
missing=()
for t in exportfs rpc.nfsd rpc.mountd mount.nfs rpcbind; do
	if p=$(command -v "$t"); then host_files+=("$p"); else missing+=("$t"); fi
done
[ ${#missing[@]} -eq 0 ] ||
	skip "no NFS server tools (${missing[*]}) here to put in the VM (scripts/install-deps --tests installs nfs-kernel-server)"
cf_cc_only -std=c11 -D_GNU_SOURCE -static -O2 -o "$T/fhandle" "$CF_ROOT/tests/fs/fhandle.c" ||
	skip "cannot link a static handle helper"

# The VM's part, under dash.  FAIL and SKIP lines end it; the rest is the
# report.
{
	cat <<'VM'
set -u
exec 2>&1
fail() { echo "FAIL: $*"; cat /tmp/daemon.log; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
FH=/data/fhandle CFS=/data/casefoldfs
for m in /lib/modules/extra/*.ko; do insmod "$m" 2>/dev/null; done
grep -qw nfsd /proc/filesystems || skip "the VM's kernel has no nfsd (no module loaded)"
grep -qw nfs4 /proc/filesystems || skip "the VM's kernel has no NFS 4 client"
[ -c /dev/fuse ] || skip "the VM's kernel has no fuse"
ip link set lo up || fail "no loopback"

# The server: nfsd with short grace and lease times (the first OPEN waits
# out the grace period), no delegations (leases off) so that nothing of
# the client's keeps the FUSE mount busy across the restart.
mkdir -p /proc/fs/nfsd /var/lib/nfs/v4recovery /run/rpc_pipefs
mount -t nfsd nfsd /proc/fs/nfsd || fail "mount nfsd"
echo 10 > /proc/fs/nfsd/nfsv4gracetime
echo 10 > /proc/fs/nfsd/nfsv4leasetime
echo 0 > /proc/sys/fs/leases-enable
: > /var/lib/nfs/etab; : > /var/lib/nfs/rmtab; : > /etc/exports
ln -sf /proc/mounts /etc/mtab

truncate -s 64M /tmp/back.img
mke2fs -q -t ext4 /tmp/back.img || fail "mke2fs"
mkdir -p /tmp/e /tmp/cfs
mount -o loop /tmp/back.img /tmp/e || fail "mount the ext4 image"
B=/tmp/e/back M=/tmp/cfs
mkdir $B

VM
	cat "$CF_ROOT/tests/fs/vmcfs.sh"
	cat <<'VM'
export_cfs() {
	exportfs -o rw,sync,no_root_squash,no_subtree_check,fsid=1 127.0.0.1:$M ||
		fail "exportfs"
}

start_cfs -o allow_other
mkdir $M/ci && chattr +F $M/ci || fail "chattr +F"
echo hello > $M/ci/File.txt
mkdir $M/ci/SubDir
export_cfs
# rpcbind (NFS 3 and its MOUNT protocol) runs as _rpc.
echo '_rpc:x:102:65534::/run/rpcbind:/bin/false' >> /etc/passwd
mkdir -p /run/rpcbind && chown 102 /run/rpcbind
rpcbind || fail "rpcbind"
rpc.mountd || fail "rpc.mountd"
rpc.nfsd 4 || fail "rpc.nfsd"
N4=/tmp/n4 N3=/tmp/n3
mkdir $N4 $N3
mount.nfs 127.0.0.1:$M $N4 -o vers=4.2,actimeo=0 || fail "mount.nfs vers=4.2"
mount.nfs 127.0.0.1:$M $N3 -o vers=3,nolock,actimeo=0 || fail "mount.nfs vers=3"

# check WHAT GOT WANT
check() {
	[ "$2" = "$3" ] || fail "$1: '$2', expected '$3'"
	echo "  $1: $2"
}
# through N V: lookups and changes through the NFS mount N (version V),
# each seen through the casefoldfs mount and in the backing tree, and the
# other way; names carry V so that one client's caches do not answer for
# the other.
through() {
	N=$1 V=$2
	echo "NFS $V:"
	check "FILE.TXT" "$(cat $N/ci/FILE.TXT)" hello
	check "file.txt" "$(cat $N/ci/file.txt)" hello
	check "same inode" "$(stat -c %i $N/ci/fIlE.tXt)" "$(stat -c %i $M/ci/File.txt)"
	check "subdir/" "$(cd $N/ci/subdir && pwd)" "$N/ci/subdir"
	check "a miss" "$(cat $N/ci/nothere$V 2>/dev/null || echo ENOENT)" ENOENT
	echo nfs > $N/ci/FromNfs$V || fail "create through NFS $V"
	check "created, through the mount" "$(cat $M/ci/fromnfs$V)" nfs
	check "created, backing" "$(ls $B/ci | grep -i fromnfs$V)" FromNfs$V
	mkdir $N/ci/FROMNFS$V 2>/dev/null && fail "mkdir of a fold-equal name succeeded"
	(set -C; echo clobber > $N/ci/FROMNFS$V) 2>/dev/null &&
		fail "O_EXCL of a fold-equal name succeeded"
	check "fold-equal creations refused" "$(cat $M/ci/FromNfs$V)" nfs
	mv $N/ci/fromnfs$V $N/ci/Renamed$V || fail "rename through NFS $V"
	check "renamed, backing" "$(ls $B/ci | grep -i -e fromnfs$V -e renamed$V)" Renamed$V
	check "renamed, through the mount" "$(cat $M/ci/RENAMED$V)" nfs
	rm $N/ci/RENAMED$V || fail "unlink through NFS $V"
	check "unlinked, backing" "$(ls $B/ci | grep -ic renamed$V)" 0
	check "unlinked, through the mount" "$(cat $M/ci/Renamed$V 2>/dev/null || echo ENOENT)" ENOENT
	echo mount > $M/ci/FromMount$V
	check "created through the mount, NFS" "$(cat $N/ci/FROMMOUNT$V)" mount
	check "listed through NFS" "$(ls $N/ci | grep -i frommount$V)" FromMount$V
}
through $N4 4.2
through $N3 3

# The daemon restarted under the live NFS mounts.  The clients hold file
# handles (saved through the NFS mounts) of files they have read.
for i in 1 2 3 4 5; do echo "r$i" > $N4/ci/R$i; done
echo victim > $N4/ci/Victim
for f in R1 R2 R3 R4 R5 Victim SubDir; do
	for N in $N4 $N3; do
		[ -d $N/ci/$f ] || cat $N/ci/$f >/dev/null
		$FH save $N/ci/$f /tmp/h.${N#/tmp/}.$f || fail "name_to_handle_at on $N: $f"
	done
done
victim_ino=$(stat -c %i $B/ci/Victim)
exportfs -ua
stop_cfs
# While it is down: the victim goes, and a new file takes its inode number
# (ext4 gives the lowest free one: lower ones freed earlier go first).
rm $B/ci/Victim
n=0
until [ "$(stat -c %i $B/ci/Newcomer$n 2>/dev/null)" = "$victim_ino" ]; do
	n=$((n + 1))
	[ $n -le 20 ] || fail "no new file got the victim's inode number $victim_ino"
	echo newcomer > $B/ci/Newcomer$n
done
echo "Newcomer$n has the victim's inode number"
start_cfs -o allow_other
export_cfs
for N in $N4 $N3; do
	echo "after a restart of the daemon, through $N:"
	for f in R1 R2 R3 R4 R5; do
		check "handle of $f" "$($FH open $N /tmp/h.${N#/tmp/}.$f)" "file r${f#R}"
	done
	check "handle of the removed Victim" "$($FH open $N /tmp/h.${N#/tmp/}.Victim)" ESTALE
	check "handle of SubDir" "$($FH open $N /tmp/h.${N#/tmp/}.SubDir)" dir
	check "path r3" "$(cat $N/ci/r3)" r3
	check "path victim" "$(cat $N/ci/victim 2>/dev/null || echo gone)" gone
	check "path newcomer" "$(cat $N/ci/NEWCOMER$n)" newcomer
	echo after > $N/ci/After${N#/tmp/} || fail "create through $N after the restart"
	check "created after the restart, through the mount" "$(cat $M/ci/after${N#/tmp/})" after
done

umount $N4 && umount $N3 || fail "umount the NFS mounts"
exportfs -ua
rpc.nfsd 0
stop_cfs
echo "nfs: ok"
VM
} > "$T/vm.sh"

vm_run "the NFS run" "$T/fhandle" "$CFS"
accel=$(sed -n 's/^run-in-vm: accelerator //p' "$T/runner.log")
echo "nfs: a real NFS server and client (kernel VM: ${accel:-not reported})"

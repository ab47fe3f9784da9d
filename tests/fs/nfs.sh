#!/usr/bin/env bash
# A real kernel NFS server exporting a casefoldfs mount (issue 21, part 2a):
# export with fsid=, mount over loopback, lookups by other spellings,
# create/rename/unlink through NFS and through the mount, the daemon
# restarted under a live NFS mount (answers right or ESTALE).  It needs, in
# the test VM (tests/kernel/run-in-vm), a static casefoldfs, the fuse, nfsd
# and nfs modules and the NFS server tools; the VM's initramfs has none of
# them yet, so this test says what is missing and is skipped.  The protocol
# side (LOOKUP of "." and "..", ids after FORGET and restart) is export.sh.
. "$(dirname "$0")/lib.sh"

runner=${CF_KERNEL_RUNNER:-$CF_ROOT/tests/kernel/run-in-vm}
[ -x "$runner" ] || skip "no kernel runner at $runner"
missing=()
for t in exportfs rpc.nfsd rpc.mountd; do
	command -v "$t" >/dev/null || missing+=("$t")
done
[ ${#missing[@]} -eq 0 ] ||
	skip "no NFS server tools (${missing[*]}) here to put in the VM"
grep -q nfsd "$runner" ||
	skip "the VM's initramfs has no FUSE userspace, nfsd or NFS client modules (run-in-vm loads ext4 and loop only)"
fail "nfs.sh: the VM has the tools, but the test itself is not written yet"

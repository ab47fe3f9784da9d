# casefoldfs inside the kernel VM (tests/vm/run-in-vm), under dash:
# pasted into the VM's script by the suites that run the daemon there
# (nfs.sh, vmreads.sh), after their fail().  The daemon is $CFS, the
# backing tree $B, the mount point $M; its messages go to /tmp/daemon.log.
#
# start_cfs [OPTIONS...]: mounts, waits until the mount is there.
start_cfs() {
	"$CFS" -f "$@" $B $M 2>>/tmp/daemon.log &
	CFS_PID=$!
	i=0
	until grep -qs " $M fuse" /proc/mounts; do
		i=$((i + 1))
		[ $i -lt 200 ] && kill -0 $CFS_PID 2>/dev/null || fail "casefoldfs did not mount"
		sleep 0.05
	done
}
# stop_cfs: unmounts (retrying while the mount is busy: nfsd may hold it
# for a moment after exportfs -u, a closed file's release may still be on
# its way) and checks the daemon's exit status.
stop_cfs() {
	i=0
	until umount $M 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "cannot unmount the casefoldfs mount: $(umount $M 2>&1)"
		sleep 0.1
	done
	wait $CFS_PID || fail "casefoldfs exited with status $?"
}

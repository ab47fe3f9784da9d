"""The daemon under test, for the Python drivers (stress.py and the overlay
view's model and stress): started as tests/lib/fs.sh's cfs_start starts it —
in the foreground as our child, with few descriptors (CF_DAEMON_NOFILE,
default 256) and any extra options (CF_MOUNT_OPTS) — and waited for until
it has mounted, up to 20 s."""

import os
import resource
import signal
import subprocess
import time


def fuse_mounted(mnt):
    """A FUSE filesystem is mounted on mnt (tests/lib.sh's fuse_mounted)."""
    with open("/proc/mounts") as f:
        return any(line.split()[1] == mnt and line.split()[2].startswith("fuse")
                   for line in f)


class Daemon:
    def __init__(self, cfs, args, mnt, log):
        """args: what the daemon takes between its options and the mount
        point ([BACKING], or ["-o", OPTIONS, "overlay"] for a view)."""
        self.cfs, self.args, self.mnt, self.log = cfs, args, mnt, log
        self.proc = None

    def mounted(self):
        return fuse_mounted(self.mnt)

    def start(self):
        nofile = int(os.environ.get("CF_DAEMON_NOFILE") or 256)
        opts = os.environ.get("CF_MOUNT_OPTS", "").split()
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [self.cfs, "-f"] + opts + self.args + [self.mnt], stdout=log, stderr=log,
                preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile)))
        for _ in range(800):
            if self.mounted():
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.025)
        raise SystemExit("casefoldfs did not mount (see %s)" % self.log)

    def kill(self):
        if self.proc.poll() is not None:
            raise SystemExit("the daemon died by itself (status %s; see %s)" %
                             (self.proc.returncode, self.log))
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def drop(self):
        """After a kill, once no worker can walk into the bare mount point."""
        subprocess.run(["fusermount3", "-uz", self.mnt], check=True)

    def stop(self):
        subprocess.run(["fusermount3", "-u", self.mnt], check=True)
        if self.proc.wait() != 0:
            raise SystemExit("the daemon exited with status %d (see %s)" %
                             (self.proc.returncode, self.log))

/*
 * Mounting, through libfuse (fs/kernel/README.md): mount(2) for root,
 * fusermount3 and its _FUSE_COMMFD for everyone else, with libfuse's mount
 * options.  libfuse's session serves no request; its descriptor is handed
 * to fk.  The command line, daemonizing and the log are main's (main.c,
 * log.c).
 */
#ifndef FK_MOUNT_H
#define FK_MOUNT_H

struct fuse_args;
struct fuse_session;

/* Mounts at mountpoint with the options in args: the /dev/fuse descriptor, or -1. */
int fk_mount(struct fuse_session **lse, struct fuse_args *args, const char *mountpoint);
void fk_unmount(struct fuse_session *lse);

#endif /* FK_MOUNT_H */

/*
 * What must hold before casefoldfs mounts on a mount point, checked
 * before anything is done, each refusal one sentence naming the cause and
 * the fix: a /dev/fuse this process can open (fusermount3 opens it with
 * the user's rights too), and no FUSE filesystem mounted there already
 * (root would stack a second daemon on it; a user would get fusermount3's
 * bare "Permission denied").
 */
#ifndef CFS_MOUNTCHECK_H
#define CFS_MOUNTCHECK_H

/* 0, or -1 after saying on stderr why mountpoint cannot be mounted. */
int mountcheck(const char *mountpoint);

#endif /* CFS_MOUNTCHECK_H */

/*
 * Noticing changes made in the backing tree behind the daemon's back, so
 * that the kernel may keep what it caches until something changes
 * (fs/tree/DESIGN.md, "Kernel caches").  This layer opens the notification
 * source and registers what must be watched; notice.c, above the dentry
 * policy, reads the events and invalidates.
 */
#ifndef CFS_WATCH_H
#define CFS_WATCH_H

#include <stdbool.h>

#include "tree/cfs.h"

struct cfs_watcher;

int watch_open(struct cfs *fs, enum cfs_watch want, int rootfd, char *msg, size_t len);
void watch_close(struct cfs *fs);
bool watch_wanted(const struct cfs *fs, const struct cfs_inode *dir);
void watch_dir(struct cfs *fs, struct cfs_inode *dir, int fd);
void watch_found(struct cfs *fs, struct cfs_inode *dir, struct cfs_inode *in);
bool watch_covers(const struct cfs *fs, const struct cfs_inode *in);
int watch_fd(const struct cfs *fs);
int watch_mount_fd(const struct cfs *fs);
bool watch_dir_of(struct cfs *fs, int wd, dev_t *dev, ino_t *ino);
void watch_dir_gone(struct cfs *fs, int wd);
const char *watch_name(enum cfs_watch w);

#endif /* CFS_WATCH_H */

/*
 * What the kernel may cache of the daemon's answers, and when every dentry
 * of the mount must expire (dcache.c).  Callers hold the directory's lock.
 */
#ifndef CFS_DCACHE_H
#define CFS_DCACHE_H

#include "tree/cfs.h"

/* The bound on a watched file's change that no notice reports, seconds. */
#define DCACHE_FILE_TTL 10.0

double dcache_positive(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *given,
		       const char *stored);
double dcache_negative(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *given);
void dcache_created(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *name);
void dcache_removed(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *given,
		    const char *stored);
void dcache_rule_changed(struct cfs *fs);
double dcache_ttl(const struct cfs *fs, const struct cfs_inode *in);
double dcache_attr(const struct cfs *fs, struct cfs_inode *in, const struct stat *st);
bool dcache_told(const struct cfs *fs, struct cfs_inode *in, const struct stat *st);
void dcache_behind(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *name);
void dcache_rule_behind(struct cfs *fs, struct cfs_inode *dir);
bool dcache_expire_all(struct cfs *fs);

#endif /* CFS_DCACHE_H */

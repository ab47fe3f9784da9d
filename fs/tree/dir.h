/*
 * One directory: its lock, its casefold flag, and how a name given by the
 * kernel resolves to the name stored in the backing directory (dir.c).
 */
#ifndef CFS_DIR_H
#define CFS_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "tree/cfs.h"

int dir_lock(struct cfs *fs, struct cfs_inode *dir);
void dir_settle(struct cfs_inode *dir);
void dir_unlock(struct cfs *fs, struct cfs_inode *dir);
int dir_lock2(struct cfs *fs, struct cfs_inode *a, struct cfs_inode *b);
void dir_unlock2(struct cfs *fs, struct cfs_inode *a, struct cfs_inode *b);
int dir_store_flag(struct cfs_inode *dir, bool on);
int dir_check_flag(struct cfs *fs, struct cfs_inode *dir);
bool dir_default_acl(struct cfs_inode *dir);
enum cfs_rule dir_rule(const struct cfs *fs, const struct cfs_inode *dir);
bool dir_hides(const struct cfs *fs, const struct cfs_inode *dir, const char *name);
int dir_resolve(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *name, char *stored);
int dir_resolve_stat(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *name,
		     char *stored, struct stat *st);
int dir_index_stats(struct cfs *fs, struct cfs_inode *dir, char *buf, size_t len);
void dir_added(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *name);
void dir_removed(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *name);
void dir_touched(struct cfs_inode *dir);
int dir_set_times(struct cfs *fs, struct cfs_inode *dir, const struct timespec ts[2]);
int dir_is_empty(const struct cfs *fs, const struct cfs_inode *dir);
int dir_may_casefold(struct cfs *fs, struct cfs_inode *dir);

#endif /* CFS_DIR_H */

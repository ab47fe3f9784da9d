/*
 * Reaching a node's object (locator.c): pinning its descriptor, opening
 * it, holding a descriptor for an object about to lose its name.
 */
#ifndef CFS_LOCATOR_H
#define CFS_LOCATOR_H

#include "tree/node.h"

int locator_pin(struct cfs_nodes *nt, struct cfs_inode *in);
void locator_unpin(struct cfs_nodes *nt, struct cfs_inode *in, int fd);
int locator_open(struct cfs_nodes *nt, struct cfs_inode *in, int flags);
bool locator_stat_unpinned(struct cfs_nodes *nt, struct cfs_inode *in, struct stat *st, int *err);
int locator_hold(struct cfs_nodes *nt, struct cfs_inode *in);
bool locator_shed(struct cfs_nodes *nt, int err);
void locator_hold_name(struct cfs_nodes *nt, int dfd, const char *name);

#endif /* CFS_LOCATOR_H */

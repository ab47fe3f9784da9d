/*
 * The nodes by file handle (handles.c).  The table lock held, but for
 * handles_find.
 */
#ifndef CFS_HANDLES_H
#define CFS_HANDLES_H

#include "tree/node.h"

void handles_add(struct cfs_nodes *nt, struct cfs_inode *in);
void handles_remove(struct cfs_nodes *nt, struct cfs_inode *in);
void handles_destroy(struct cfs_nodes *nt);
struct cfs_inode *handles_find(struct cfs_nodes *nt, const struct file_handle *fh);

#endif /* CFS_HANDLES_H */

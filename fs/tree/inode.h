/*
 * The node table (inode.c): nodes found or made by lookup, their kernel
 * references, forgotten ones freed.  The types are in node.h; a node's
 * ids (ids.h) and the nodes by handle (handles.h) are the table's own
 * parts; reaching a node's object is locator.h.
 */
#ifndef CFS_INODE_H
#define CFS_INODE_H

#include "tree/handles.h"
#include "tree/ids.h"
#include "tree/node.h"

int inode_table_init(struct cfs_nodes *nt, int rootfd, bool handles, uint32_t fd_cache);
void inode_table_destroy(struct cfs_nodes *nt);
int inode_lookup_id(struct cfs_nodes *nt, fk_ino_t id, struct cfs_inode **out,
		    uint64_t *generation);
void inode_ref(struct cfs_nodes *nt, struct cfs_inode *in);
int inode_lookup_parent(struct cfs_nodes *nt, struct cfs_inode *dir, int dfd, struct stat *st,
			struct cfs_inode **out);
int inode_load_flag(struct cfs_dir *d, int fd, const struct stat *st);
void inode_stamp_flag(struct cfs_dir *d, const struct timespec *ctime);
int inode_lookup(struct cfs_nodes *nt, struct cfs_inode *dir, int dfd, const char *name,
		 struct stat *st, struct cfs_inode **out);
int inode_lookup_open(struct cfs_nodes *nt, struct cfs_inode *dir, const char *name, int fd,
		      const struct stat *st, struct cfs_inode **out);
int inode_lookup_fd(struct cfs_nodes *nt, struct cfs_inode *dir, const char *name, int fd,
		    struct stat *st, struct cfs_inode **out);
void inode_forget(struct cfs_nodes *nt, struct cfs_inode *in, uint64_t n);
void inode_forget_id(struct cfs_nodes *nt, fk_ino_t ino, uint64_t n);
struct cfs_inode *inode_find(struct cfs_nodes *nt, dev_t dev, ino_t ino);
size_t inode_ids(struct cfs_nodes *nt, fk_ino_t **ids);
void inode_put(struct cfs_nodes *nt, struct cfs_inode *in);
void inode_unhash(struct cfs_nodes *nt, struct cfs_inode *in);
void inode_rehandle(struct cfs_nodes *nt, struct cfs_inode *in, int fd);
bool inode_any_path_nodes(struct cfs_nodes *nt);
struct cfs_inode *inode_find_to_hold(struct cfs_nodes *nt, int dfd, const char *name);
void inode_moved(struct cfs_nodes *nt, const struct stat *st, struct cfs_inode *ndir,
		 const char *name);
bool inode_writer_open(struct cfs_nodes *nt, struct cfs_inode *in, bool writer);
void inode_writer_close(struct cfs_nodes *nt, struct cfs_inode *in);
bool inode_writing(struct cfs_nodes *nt, struct cfs_inode *in);
int inode_stats(struct cfs_nodes *nt, char *buf, size_t len);

#endif /* CFS_INODE_H */

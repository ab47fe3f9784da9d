/*
 * Node ids (ids.c): what the kernel calls a node by, and what an NFS file
 * handle carries.  ids_ref, ids_forget and the inode_* take the table lock;
 * the others need it held.
 */
#ifndef CFS_IDS_H
#define CFS_IDS_H

#include "tree/node.h"

int ids_init(struct cfs_nodes *nt);
void ids_destroy(struct cfs_nodes *nt);
void ids_assign(struct cfs_nodes *nt, struct cfs_inode *in);
void ids_drop(struct cfs_nodes *nt, struct cfs_inode *in);
void ids_free_aliases(struct cfs_inode *in);
bool ids_derived(fk_ino_t value);
void ids_handle(fk_ino_t value, union inode_handle *h);
ino_t ids_handle_ino(const union inode_handle *h);
struct cfs_inode *ids_ref(struct cfs_nodes *nt, fk_ino_t value, uint64_t *generation);
struct cfs_inode *ids_node(struct cfs_nodes *nt, fk_ino_t ino);
fk_ino_t ids_value(struct cfs_nodes *nt, struct cfs_inode *in);
void ids_entry(struct cfs_nodes *nt, struct cfs_inode *in, const char *spelling,
	       fk_ino_t *id, uint64_t *generation);
struct cfs_inode *ids_forget(struct cfs_nodes *nt, fk_ino_t ino, uint64_t n);

#endif /* CFS_IDS_H */

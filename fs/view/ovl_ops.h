/*
 * The requests an overlay view answers (fs/view/DESIGN.md):
 * ovl_ops.c fills the operation table (no INIT handler: the session's
 * defaults, fs/kernel/handshake.c); ovl_dir.c names
 * (lookup, listings, creation, removal, rename); file.c one object
 * (attributes, data, extended attributes).
 */
#ifndef CFS_VIEW_OPS_H
#define CFS_VIEW_OPS_H

#include "common/lowlevel.h"
#include "view/view.h"

const struct fk_ops *ovl_table(void);

/* The view, from a request. */
static inline struct view *view_of(fk_req_t req)
{
	return fk_req_userdata(req);
}

/* ovl_dir.c */
int ovl_entry(struct view *v, struct view_node *n, double entry_ttl, struct fk_entry_param *e);
double ovl_attr_ttl(const struct view *v, const struct stat *st);
void ovl_lookup(fk_req_t req, fk_ino_t parent, const char *name);
void ovl_forget(fk_req_t req, fk_ino_t ino, uint64_t nlookup);
void ovl_forget_multi(fk_req_t req, size_t count, struct fk_forget_data *list);
void ovl_opendir(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi);
void ovl_releasedir(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi);
void ovl_readdir(fk_req_t req, fk_ino_t ino, size_t size, off_t off,
		 struct fk_file_info *fi);
void ovl_readdirplus(fk_req_t req, fk_ino_t ino, size_t size, off_t off,
		     struct fk_file_info *fi);
void ovl_mknod(fk_req_t req, fk_ino_t parent, const char *name, mode_t mode, dev_t rdev);
void ovl_mkdir(fk_req_t req, fk_ino_t parent, const char *name, mode_t mode);
void ovl_symlink(fk_req_t req, const char *target, fk_ino_t parent, const char *name);
void ovl_create(fk_req_t req, fk_ino_t parent, const char *name, mode_t mode,
		struct fk_file_info *fi);
void ovl_link(fk_req_t req, fk_ino_t ino, fk_ino_t newparent, const char *newname);
void ovl_unlink(fk_req_t req, fk_ino_t parent, const char *name);
void ovl_rmdir(fk_req_t req, fk_ino_t parent, const char *name);
void ovl_rename(fk_req_t req, fk_ino_t parent, const char *name, fk_ino_t newparent,
		const char *newname, unsigned int flags);

/* file.c */
void ovl_getattr(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi);
void ovl_setattr(fk_req_t req, fk_ino_t ino, struct stat *attr, int valid,
		 struct fk_file_info *fi);
void ovl_readlink(fk_req_t req, fk_ino_t ino);
void ovl_open(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi);
void ovl_read(fk_req_t req, fk_ino_t ino, size_t size, off_t off,
	      struct fk_file_info *fi);
void ovl_write(fk_req_t req, fk_ino_t ino, const char *buf, size_t size, off_t off,
		struct fk_file_info *fi);
void ovl_release(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi);
void ovl_fsync(fk_req_t req, fk_ino_t ino, int datasync, struct fk_file_info *fi);
void ovl_statfs(fk_req_t req, fk_ino_t ino);
void ovl_getxattr(fk_req_t req, fk_ino_t ino, const char *name, size_t size);
void ovl_listxattr(fk_req_t req, fk_ino_t ino, size_t size);
void ovl_setxattr(fk_req_t req, fk_ino_t ino, const char *name, const char *value,
		  size_t size, int flags);
void ovl_removexattr(fk_req_t req, fk_ino_t ino, const char *name);

#endif /* CFS_VIEW_OPS_H */

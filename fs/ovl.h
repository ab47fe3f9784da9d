/*
 * The requests an overlay view answers (fs/README.md, "Overlay views"):
 * ovl_ops.c fills the operation table and answers INIT; ovl_dir.c names
 * (lookup, listings, creation, removal, rename); ovl_file.c one object
 * (attributes, data, extended attributes).
 */
#ifndef CFS_OVL_H
#define CFS_OVL_H

#include "lowlevel.h"
#include "view.h"

const struct fuse_lowlevel_ops *ovl_table(void);

/* The view, from a request. */
static inline struct view *view_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/* ovl_dir.c */
int ovl_entry(struct view *v, struct view_node *n, double entry_ttl, struct fuse_entry_param *e);
double ovl_attr_ttl(const struct view *v, const struct stat *st);
void ovl_lookup(fuse_req_t req, fuse_ino_t parent, const char *name);
void ovl_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup);
void ovl_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *list);
void ovl_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void ovl_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		 struct fuse_file_info *fi);
void ovl_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		     struct fuse_file_info *fi);
void ovl_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev);
void ovl_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode);
void ovl_symlink(fuse_req_t req, const char *target, fuse_ino_t parent, const char *name);
void ovl_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
		struct fuse_file_info *fi);
void ovl_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname);
void ovl_unlink(fuse_req_t req, fuse_ino_t parent, const char *name);
void ovl_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name);
void ovl_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
		const char *newname, unsigned int flags);

/* ovl_file.c */
void ovl_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void ovl_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int valid,
		 struct fuse_file_info *fi);
void ovl_readlink(fuse_req_t req, fuse_ino_t ino);
void ovl_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void ovl_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
	      struct fuse_file_info *fi);
void ovl_write_buf(fuse_req_t req, fuse_ino_t ino, struct fuse_bufvec *in_buf, off_t off,
		   struct fuse_file_info *fi);
void ovl_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void ovl_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi);
void ovl_statfs(fuse_req_t req, fuse_ino_t ino);
void ovl_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size);
void ovl_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size);
void ovl_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value,
		  size_t size, int flags);
void ovl_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name);

#endif /* CFS_OVL_H */

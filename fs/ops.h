/*
 * The requests casefoldfs answers, one prototype per libfuse low-level
 * operation; ops.c puts them in the operation table, the one place it is
 * filled.  Files: ops_dir.c (names), readdir.c (listings), ops_file.c (one
 * object), ioctl.c (inode flags), init.c (what kernel and daemon agree on).
 */
#ifndef CFS_OPS_H
#define CFS_OPS_H

#include "cfs.h"

const struct fuse_lowlevel_ops *ops_table(void);

/* init.c */
void op_init(void *userdata, struct fuse_conn_info *conn);

/* ops_dir.c */
void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name);
void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup);
void op_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *list);
void op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev);
void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode);
void op_symlink(fuse_req_t req, const char *target, fuse_ino_t parent, const char *name);
void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname);
void op_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
	       struct fuse_file_info *fi);
void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name);
void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name);
void op_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
	       const char *newname, unsigned int flags);

/* readdir.c */
void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		struct fuse_file_info *fi);
void op_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi);

/* ops_file.c */
void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int valid,
		struct fuse_file_info *fi);
void op_readlink(fuse_req_t req, fuse_ino_t ino);
void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi);
void op_write_buf(fuse_req_t req, fuse_ino_t ino, struct fuse_bufvec *in_buf, off_t off,
		  struct fuse_file_info *fi);
void op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi);
void op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t off, off_t len,
		  struct fuse_file_info *fi);
void op_statfs(fuse_req_t req, fuse_ino_t ino);
void op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value,
		 size_t size, int flags);
void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size);
void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size);
void op_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name);
/* For op_create: an open file's fi->fh and its end. */
bool file_noflush(const struct cfs *fs, int flags);
uint64_t file_created(struct cfs *fs, struct cfs_inode *in, int fd, int flags);
void file_closed(struct cfs *fs, struct cfs_inode *in, uint64_t fh);

/* ioctl.c */
void op_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd, void *arg,
	      struct fuse_file_info *fi, unsigned flags, const void *in_buf, size_t in_bufsz,
	      size_t out_bufsz);

#endif /* CFS_OPS_H */

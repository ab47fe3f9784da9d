/*
 * The requests casefoldfs answers, one prototype per libfuse low-level
 * operation; ops.c puts them in the operation table, the one place it is
 * filled.  Files: ops_dir.c (names), readdir.c (listings), ops_file.c (one
 * object), ioctl.c (inode flags), init.c (what kernel and daemon agree on).
 */
#ifndef CFS_OPS_H
#define CFS_OPS_H

#include "tree/cfs.h"

const struct fk_ops *ops_table(void);

/* init.c */
void op_init(void *userdata, struct fk_conn *conn);

/* ops_dir.c */
void op_lookup(fk_req_t req, fk_ino_t parent, const char *name);
void op_forget(fk_req_t req, fk_ino_t ino, uint64_t nlookup);
void op_forget_multi(fk_req_t req, size_t count, struct fk_forget_data *list);
void op_mknod(fk_req_t req, fk_ino_t parent, const char *name, mode_t mode, dev_t rdev);
void op_mkdir(fk_req_t req, fk_ino_t parent, const char *name, mode_t mode);
void op_symlink(fk_req_t req, const char *target, fk_ino_t parent, const char *name);
void op_link(fk_req_t req, fk_ino_t ino, fk_ino_t newparent, const char *newname);
void op_create(fk_req_t req, fk_ino_t parent, const char *name, mode_t mode,
	       struct fk_file_info *fi);
void op_unlink(fk_req_t req, fk_ino_t parent, const char *name);
void op_rmdir(fk_req_t req, fk_ino_t parent, const char *name);
void op_rename(fk_req_t req, fk_ino_t parent, const char *name, fk_ino_t newparent,
	       const char *newname, unsigned int flags);
/* For op_readdirplus: a listed name's entry, dir locked. */
int entry_listed(struct cfs *fs, struct cfs_inode *dir, const char *name,
		 struct fk_entry_param *e);

/* readdir.c */
void op_opendir(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi);
void op_readdir(fk_req_t req, fk_ino_t ino, size_t size, off_t off,
		struct fk_file_info *fi);
void op_readdirplus(fk_req_t req, fk_ino_t ino, size_t size, off_t off,
		    struct fk_file_info *fi);
void op_fsyncdir(fk_req_t req, fk_ino_t ino, int datasync, struct fk_file_info *fi);

/* ops_file.c */
void op_getattr(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi);
void op_setattr(fk_req_t req, fk_ino_t ino, struct stat *attr, int valid,
		struct fk_file_info *fi);
void op_readlink(fk_req_t req, fk_ino_t ino);
void op_open(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi);
void op_read(fk_req_t req, fk_ino_t ino, size_t size, off_t off, struct fk_file_info *fi);
void op_write(fk_req_t req, fk_ino_t ino, const char *buf, size_t size, off_t off,
		struct fk_file_info *fi);
void op_flush(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi);
void op_release(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi);
void op_fsync(fk_req_t req, fk_ino_t ino, int datasync, struct fk_file_info *fi);
void op_fallocate(fk_req_t req, fk_ino_t ino, int mode, off_t off, off_t len,
		  struct fk_file_info *fi);
void op_statfs(fk_req_t req, fk_ino_t ino);
void op_setxattr(fk_req_t req, fk_ino_t ino, const char *name, const char *value,
		 size_t size, int flags);
void op_getxattr(fk_req_t req, fk_ino_t ino, const char *name, size_t size);
void op_listxattr(fk_req_t req, fk_ino_t ino, size_t size);
void op_removexattr(fk_req_t req, fk_ino_t ino, const char *name);
/* For op_create: an open file's fi->fh and its end. */
bool file_noflush(const struct cfs *fs, int flags);
uint64_t file_created(struct cfs *fs, struct cfs_inode *in, int fd, int flags);
void file_closed(struct cfs *fs, struct cfs_inode *in, uint64_t fh);
int file_reply_open(fk_req_t req, struct fk_file_info *fi, int fd,
		    const struct fk_entry_param *entry);

/* ioctl.c */
void op_ioctl(fk_req_t req, fk_ino_t ino, unsigned int cmd, void *arg,
	      struct fk_file_info *fi, unsigned flags, const void *in_buf, size_t in_bufsz,
	      size_t out_bufsz);

#endif /* CFS_OPS_H */

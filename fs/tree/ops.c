/* The operation table: every request casefoldfs answers, in one place. */
#include "tree/ops.h"

static const struct fk_ops table = {
	.init = op_init,
	/* names (ops_dir.c) */
	.lookup = op_lookup,
	.forget = op_forget,
	.forget_multi = op_forget_multi,
	.mknod = op_mknod,
	.mkdir = op_mkdir,
	.symlink = op_symlink,
	.link = op_link,
	.create = op_create,
	.unlink = op_unlink,
	.rmdir = op_rmdir,
	.rename = op_rename,
	/* listings (readdir.c) */
	.opendir = op_opendir,
	.readdir = op_readdir,
	.readdirplus = op_readdirplus,
	.fsyncdir = op_fsyncdir,
	/* one object (ops_file.c) */
	.getattr = op_getattr,
	.setattr = op_setattr,
	.readlink = op_readlink,
	.open = op_open,
	.read = op_read,
	.write = op_write,
	.flush = op_flush,
	.release = op_release,
	.fsync = op_fsync,
	.fallocate = op_fallocate,
	.statfs = op_statfs,
	.setxattr = op_setxattr,
	.getxattr = op_getxattr,
	.listxattr = op_listxattr,
	.removexattr = op_removexattr,
	/* inode flags (ioctl.c) */
	.ioctl = op_ioctl,
};

const struct fk_ops *ops_table(void)
{
	return &table;
}

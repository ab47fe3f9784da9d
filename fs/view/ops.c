/* The operation table of an overlay view: the one place it is filled. */
#include "view/ops.h"

static const struct fk_ops table = {
	.lookup = ovl_lookup,
	.forget = ovl_forget,
	.forget_multi = ovl_forget_multi,
	.getattr = ovl_getattr,
	.setattr = ovl_setattr,
	.readlink = ovl_readlink,
	.mknod = ovl_mknod,
	.mkdir = ovl_mkdir,
	.unlink = ovl_unlink,
	.rmdir = ovl_rmdir,
	.symlink = ovl_symlink,
	.rename = ovl_rename,
	.link = ovl_link,
	.open = ovl_open,
	.read = ovl_read,
	.write = ovl_write,
	.release = ovl_release,
	.fsync = ovl_fsync,
	.opendir = ovl_opendir,
	.releasedir = ovl_releasedir,
	.readdir = ovl_readdir,
	.readdirplus = ovl_readdirplus,
	.statfs = ovl_statfs,
	.setxattr = ovl_setxattr,
	.getxattr = ovl_getxattr,
	.listxattr = ovl_listxattr,
	.removexattr = ovl_removexattr,
	.create = ovl_create,
};

const struct fk_ops *ovl_table(void)
{
	return &table;
}

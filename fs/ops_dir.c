/*
 * Namespace operations: every request that names an entry of a directory.
 * Each one holds the directory's lock from resolving the name to changing
 * the backing directory, so two fold-equal creations end with one entry.
 * What the kernel may cache of the answers is dcache.c's business.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "casefoldfs.h"

/*
 * Fills e for the stored name in dir, asked for as given, and takes one
 * lookup reference.
 */
static int make_entry(struct cfs *fs, struct cfs_inode *dir, const char *given,
		      const char *stored, struct fuse_entry_param *e)
{
	struct cfs_inode *in;
	int err;

	memset(e, 0, sizeof(*e));
	err = inode_lookup(fs, dir, dir->d->fd, stored, &e->attr, &in);
	if (err < 0)
		return err;
	e->ino = inode_id(fs, in);
	e->attr_timeout = fs->attr_timeout;
	e->entry_timeout = dcache_positive(fs, dir, given, stored);
	return 0;
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct cfs *fs = cfs_of(req);
	struct cfs_inode *dir = inode_get(fs, parent);
	char stored[CFS_NAME_MAX + 1];
	struct fuse_entry_param e;
	int err;

	err = dir_lock(fs, dir);
	if (err == 0) {
		err = dir_resolve(fs, dir, name, stored);
		if (err == 0)
			err = make_entry(fs, dir, name, stored, &e);
		if (err == -ENOENT) {
			/* A negative entry (node 0) the kernel may cache. */
			memset(&e, 0, sizeof(e));
			e.entry_timeout = dcache_negative(fs, dir, name);
			if (e.entry_timeout > 0)
				err = 0;
		}
		dir_unlock(fs, dir);
	}
	if (err < 0)
		fuse_reply_err(req, -err);
	else
		fuse_reply_entry(req, &e);
}

static void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	struct cfs *fs = cfs_of(req);

	inode_forget(fs, inode_get(fs, ino), nlookup);
	fuse_reply_none(req);
}

static void op_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *list)
{
	struct cfs *fs = cfs_of(req);

	for (size_t i = 0; i < count; i++)
		inode_forget(fs, inode_get(fs, list[i].ino), list[i].nlookup);
	fuse_reply_none(req);
}

/*
 * The check every creating operation makes first (dir lock held): 0 if name
 * may be created, -EEXIST with stored set if a matching entry exists.
 */
static int check_new_name(struct cfs *fs, struct cfs_inode *dir, const char *name,
			  char *stored)
{
	int err = dir_resolve(fs, dir, name, stored);

	if (err == 0)
		return -EEXIST;
	if (err != -ENOENT)
		return err;
	if (super_hidden(fs, dir, name))
		return -EPERM;
	return names_check_create(fs, dir_rule(fs, dir), name);
}

/*
 * The daemon creates as root: hand the new entry to the caller, except the
 * group in a set-gid directory, which the backing kernel already chose.
 */
static int give_to_caller(fuse_req_t req, struct cfs_inode *dir, const char *name)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	gid_t gid = ctx->gid;
	struct stat st;

	if (fstat(dir->d->fd, &st) < 0)
		return -errno;
	if (st.st_mode & S_ISGID)
		gid = (gid_t)-1;
	if (ctx->uid == geteuid() && (gid == (gid_t)-1 || gid == getegid()))
		return 0;
	if (fchownat(dir->d->fd, name, ctx->uid, gid, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	return 0;
}

/* New subdirectories of a +F directory are +F: set before anyone sees it. */
static int inherit_flag(struct cfs_inode *dir, const char *name)
{
	char path[32];
	int fd, err = 0;

	if (!dir->d->casefold)
		return 0;
	fd = openat(dir->d->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	fd_procpath(fd, path);
	if (setxattr(path, CFS_FLAG_XATTR, "1", 1, 0) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* What a creating operation makes: a node, a directory, a symlink, a link. */
struct newnode {
	mode_t mode;
	dev_t rdev;
	const char *target;          /* symlink */
	int link_fd;                 /* hard link: the pinned target, else -1 */
};

static int make_backing(struct cfs_inode *dir, const char *name, const struct newnode *n)
{
	int dfd = dir->d->fd, r;
	char path[32];

	if (n->link_fd >= 0) {
		r = linkat(n->link_fd, "", dfd, name, AT_EMPTY_PATH);
		if (r < 0 && errno == ENOENT) {
			/* Without CAP_DAC_READ_SEARCH: the magic link works too. */
			fd_procpath(n->link_fd, path);
			r = linkat(AT_FDCWD, path, dfd, name, AT_SYMLINK_FOLLOW);
		}
	} else if (n->target) {
		r = symlinkat(n->target, dfd, name);
	} else if (S_ISDIR(n->mode)) {
		r = mkdirat(dfd, name, n->mode & 07777);
	} else {
		r = mknodat(dfd, name, n->mode, n->rdev);
	}
	return r < 0 ? -errno : 0;
}

static void make_node(fuse_req_t req, fuse_ino_t parent, const char *name,
		      const struct newnode *n)
{
	struct cfs *fs = cfs_of(req);
	struct cfs_inode *dir = inode_get(fs, parent);
	char stored[CFS_NAME_MAX + 1];
	struct fuse_entry_param e;
	int err;

	err = dir_lock(fs, dir);
	if (err < 0)
		goto out;
	err = check_new_name(fs, dir, name, stored);
	if (err == 0)
		err = make_backing(dir, name, n);
	if (err == 0 && n->link_fd < 0) {
		err = give_to_caller(req, dir, name);
		if (err == 0 && S_ISDIR(n->mode))
			err = inherit_flag(dir, name);
		if (err < 0)
			unlinkat(dir->d->fd, name, S_ISDIR(n->mode) ? AT_REMOVEDIR : 0);
	}
	if (err == 0) {
		dir_added(fs, dir, name);
		dcache_created(fs, dir, name);
		err = make_entry(fs, dir, name, name, &e);
	}
	dir_unlock(fs, dir);
out:
	if (err < 0)
		fuse_reply_err(req, -err);
	else
		fuse_reply_entry(req, &e);
}

static void op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
		     dev_t rdev)
{
	struct newnode n = { .mode = mode, .rdev = rdev, .link_fd = -1 };

	make_node(req, parent, name, &n);
}

static void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	struct newnode n = { .mode = S_IFDIR | mode, .link_fd = -1 };

	make_node(req, parent, name, &n);
}

static void op_symlink(fuse_req_t req, const char *target, fuse_ino_t parent,
		       const char *name)
{
	struct newnode n = { .mode = S_IFLNK | 0777, .target = target, .link_fd = -1 };

	make_node(req, parent, name, &n);
}

static void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname)
{
	struct cfs *fs = cfs_of(req);
	struct cfs_inode *in = inode_get(fs, ino);
	struct newnode n = { .link_fd = inode_pin(fs, in) };

	if (n.link_fd < 0) {
		fuse_reply_err(req, -n.link_fd);
		return;
	}
	make_node(req, newparent, newname, &n);
	inode_unpin(fs, in, n.link_fd);
}

/*
 * O_CREAT reaches us only after a negative lookup, but a fold-equal name may
 * have appeared since: then, as on Linux, the existing entry is opened
 * (O_EXCL: EEXIST) and the caller's spelling is not stored.
 */
static void op_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
		      struct fuse_file_info *fi)
{
	struct cfs *fs = cfs_of(req);
	struct cfs_inode *dir = inode_get(fs, parent);
	char stored[CFS_NAME_MAX + 1];
	struct fuse_entry_param e;
	int err, fd = -1;

	err = dir_lock(fs, dir);
	if (err < 0)
		goto out;
	err = check_new_name(fs, dir, name, stored);
	if (err == -EEXIST && !(fi->flags & O_EXCL)) {
		fd = openat(dir->d->fd, stored, fi->flags | O_NOFOLLOW | O_CLOEXEC, mode);
		err = fd < 0 ? -errno : 0;
	} else if (err == 0) {
		strcpy(stored, name);
		fd = openat(dir->d->fd, name,
			    fi->flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		err = fd < 0 ? -errno : give_to_caller(req, dir, name);
		if (err == 0) {
			dir_added(fs, dir, name);
			dcache_created(fs, dir, name);
		} else if (fd >= 0) {
			unlinkat(dir->d->fd, name, 0);
		}
	}
	if (err == 0)
		err = make_entry(fs, dir, name, stored, &e);
	dir_unlock(fs, dir);
out:
	if (err < 0) {
		if (fd >= 0)
			close(fd);
		fuse_reply_err(req, -err);
		return;
	}
	fi->fh = (uint64_t)fd;
	if (fuse_reply_create(req, &e, fi) != 0)
		close(fd);
}

static void remove_entry(fuse_req_t req, fuse_ino_t parent, const char *name, int flags)
{
	struct cfs *fs = cfs_of(req);
	struct cfs_inode *dir = inode_get(fs, parent);
	char stored[CFS_NAME_MAX + 1];
	int err;

	err = dir_lock(fs, dir);
	if (err < 0)
		goto out;
	err = dir_resolve(fs, dir, name, stored);
	if (err == 0) {
		inode_hold_name(fs, dir->d->fd, stored);
		if (unlinkat(dir->d->fd, stored, flags) < 0)
			err = -errno;
	}
	if (err == 0) {
		dir_removed(fs, dir, stored);
		dcache_removed(fs, dir, name, stored);
	}
	dir_unlock(fs, dir);
out:
	fuse_reply_err(req, -err);
}

static void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	remove_entry(req, parent, name, 0);
}

static void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	remove_entry(req, parent, name, AT_REMOVEDIR);
}

static bool same_object(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/*
 * Rename as ext4 with casefold does it: the target name resolves like any
 * lookup, so renaming a onto B while b exists replaces b and keeps the
 * stored name b; a rename onto the same object (Foo -> FOO, or a hard link
 * of itself) succeeds and changes nothing.
 */
static int do_rename(struct cfs *fs, struct cfs_inode *dir, const char *name,
		     struct cfs_inode *ndir, const char *newname, unsigned int flags)
{
	char from[CFS_NAME_MAX + 1], to[CFS_NAME_MAX + 1];
	int dfd = dir->d->fd, ndfd = ndir->d->fd;
	struct stat sfrom, sto;
	bool replacing;
	int err;

	err = dir_resolve(fs, dir, name, from);
	if (err == 0)
		err = check_new_name(fs, ndir, newname, to);
	replacing = err == -EEXIST;
	if (err < 0 && !replacing)
		return err;
	if (fstatat(dfd, from, &sfrom, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (!replacing)
		strcpy(to, newname);
	else if (flags & RENAME_NOREPLACE)
		return -EEXIST;
	else if (fstatat(ndfd, to, &sto, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	else if (same_object(&sfrom, &sto))
		goto done;
	if (replacing && !(flags & RENAME_EXCHANGE))
		inode_hold_name(fs, ndfd, to);
	if (renameat2(dfd, from, ndfd, to, flags) < 0)
		return -errno;
	inode_moved(fs, &sfrom, ndir, to);
	if (flags & RENAME_EXCHANGE) {
		inode_moved(fs, &sto, dir, from);
	} else {
		dir_removed(fs, dir, from);
		if (!replacing)
			dir_added(fs, ndir, to);
	}
done:
	/* The kernel moves its dentry for name to newname, whatever we did. */
	dcache_removed(fs, dir, name, from);
	if (replacing)
		dcache_removed(fs, ndir, newname, to);
	else
		dcache_created(fs, ndir, to);
	dcache_positive(fs, ndir, newname, to);
	return 0;
}

static void op_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		      fuse_ino_t newparent, const char *newname, unsigned int flags)
{
	struct cfs *fs = cfs_of(req);
	struct cfs_inode *dir = inode_get(fs, parent), *ndir = inode_get(fs, newparent);
	int err;

	err = dir_lock2(fs, dir, ndir);
	if (err == 0) {
		err = do_rename(fs, dir, name, ndir, newname, flags);
		dir_unlock2(fs, dir, ndir);
	}
	fuse_reply_err(req, -err);
}

void ops_dir_fill(struct fuse_lowlevel_ops *ops)
{
	ops->lookup = op_lookup;
	ops->forget = op_forget;
	ops->forget_multi = op_forget_multi;
	ops->mknod = op_mknod;
	ops->mkdir = op_mkdir;
	ops->symlink = op_symlink;
	ops->link = op_link;
	ops->create = op_create;
	ops->unlink = op_unlink;
	ops->rmdir = op_rmdir;
	ops->rename = op_rename;
	readdir_fill(ops);
}

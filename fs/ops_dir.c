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
	e->entry_timeout = dcache_entry_timeout(fs, dir_rule(fs, dir), given, stored);
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

	/* An unprivileged daemon cannot: entries stay its user's, as on any
	 * filesystem a user mounts. */
	if (!cfs_of(req)->can_chown)
		return 0;
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
	int fd, err;

	if (!dir->d->casefold)
		return 0;
	fd = openat(dir->d->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = flagstore_set(fd, true);
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
		if (err == 0)
			dir_added(fs, dir, name);
		else if (fd >= 0)
			unlinkat(dir->d->fd, name, 0);
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
		dcache_spelling_used(fs, name, stored);
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
	dcache_spelling_used(fs, name, from);
	dcache_spelling_used(fs, newname, to);
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

/* An open directory: a stream over the backing directory. */
struct dirhandle {
	DIR *dp;
	off_t offset;          /* offset of entry, or of the next readdir() */
	struct dirent *entry;  /* read but not yet returned to the kernel */
};

static void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct cfs *fs = cfs_of(req);
	struct cfs_inode *in = inode_get(fs, ino);
	struct dirhandle *dh = calloc(1, sizeof(*dh));
	int fd, pfd, err;

	if (!dh) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	pfd = inode_pin(fs, in);
	if (pfd < 0) {
		free(dh);
		fuse_reply_err(req, -pfd);
		return;
	}
	fd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	err = errno;
	inode_unpin(fs, in, pfd);
	dh->dp = fd < 0 ? NULL : fdopendir(fd);
	if (!dh->dp) {
		err = fd < 0 ? err : errno;
		if (fd >= 0)
			close(fd);
		free(dh);
		fuse_reply_err(req, err);
		return;
	}
	fi->fh = (uint64_t)(uintptr_t)dh;
	if (fuse_reply_open(req, fi) != 0) {
		closedir(dh->dp);
		free(dh);
	}
}

static struct dirhandle *dirhandle_of(const struct fuse_file_info *fi)
{
	return (struct dirhandle *)(uintptr_t)fi->fh;
}

/* Entries come back as stored; the superblock files stay hidden. */
static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	struct cfs *fs = cfs_of(req);
	struct cfs_inode *dir = inode_get(fs, ino);
	struct dirhandle *dh = dirhandle_of(fi);
	char *buf = malloc(size), *p = buf;
	size_t left = size;
	int err = 0;

	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (off != dh->offset) {
		seekdir(dh->dp, off);
		dh->entry = NULL;
		dh->offset = off;
	}
	for (;;) {
		struct stat st = { 0 };
		size_t len;

		if (!dh->entry) {
			errno = 0;
			dh->entry = readdir(dh->dp);
			if (!dh->entry) {
				err = errno;
				break;
			}
		}
		if (!super_hidden(fs, dir, dh->entry->d_name)) {
			st.st_ino = dh->entry->d_ino;
			st.st_mode = (mode_t)dh->entry->d_type << 12;
			len = fuse_add_direntry(req, p, left, dh->entry->d_name, &st,
						dh->entry->d_off);
			if (len > left)
				break;
			p += len;
			left -= len;
		}
		dh->offset = dh->entry->d_off;
		dh->entry = NULL;
	}
	/* An error after some entries is reported by the next call. */
	if (err && p == buf)
		fuse_reply_err(req, err);
	else
		fuse_reply_buf(req, buf, (size_t)(p - buf));
	free(buf);
}

static void op_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct dirhandle *dh = dirhandle_of(fi);

	(void)ino;
	closedir(dh->dp);
	free(dh);
	fuse_reply_err(req, 0);
}

static void op_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync,
			struct fuse_file_info *fi)
{
	int fd = dirfd(dirhandle_of(fi)->dp);
	int r = datasync ? fdatasync(fd) : fsync(fd);

	(void)ino;
	fuse_reply_err(req, r < 0 ? errno : 0);
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
	ops->opendir = op_opendir;
	ops->readdir = op_readdir;
	ops->releasedir = op_releasedir;
	ops->fsyncdir = op_fsyncdir;
}

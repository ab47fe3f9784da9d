/*
 * An overlay view's objects: attributes, data and extended attributes.
 * Reading is done where the object lies; anything that writes to an object
 * of a lower layer copies it up first (upper.c), as overlayfs does.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "common/setid.h"
#include "common/util.h"
#include "common/xattrs.h"
#include "view/ovl_ops.h"

/* Copies n up (a directory: makes sure the upper layer has it). */
static int raise_up(struct view *v, struct view_node *n)
{
	if (!v->layers.upper)
		return -EROFS;
	return n->d ? upper_dir(v, n) : upper_copy(v, n);
}

static void reply_attr(fk_req_t req, struct view *v, struct view_node *n, int fd)
{
	struct stat st;
	int r = fd >= 0 ? (fstat(fd, &st) < 0 ? -errno : 0) : view_stat(v, n, &st);

	if (r < 0) {
		fk_reply_err(req, -r);
		return;
	}
	if (fd >= 0)
		view_adjust(v, n, &st);
	fk_reply_attr(req, &st, ovl_attr_ttl(v, &st));
}

void ovl_getattr(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi)
{
	struct view *v = view_of(req);

	/* An open file answers for itself: it may be gone from the view. */
	reply_attr(req, v, view_node(v, ino), fi && !view_node(v, ino)->d ? (int)fi->fh : -1);
}

static int set_times(int fd, const struct stat *attr, int valid)
{
	struct timespec ts[2] = { { .tv_nsec = UTIME_OMIT }, { .tv_nsec = UTIME_OMIT } };
	char proc[32];

	if (valid & FATTR_ATIME)
		ts[0] = attr->st_atim;
	if (valid & FATTR_ATIME_NOW)
		ts[0].tv_nsec = UTIME_NOW;
	if (valid & FATTR_MTIME)
		ts[1] = attr->st_mtim;
	if (valid & FATTR_MTIME_NOW)
		ts[1].tv_nsec = UTIME_NOW;
	fd_procpath(fd, proc);
	return utimensat(AT_FDCWD, proc, ts, 0) < 0 ? -errno : 0;
}

/* Applies a SETATTR to n's object, open as fd (O_PATH) or as the file fh. */
static int set_attrs(int fd, int fh, const struct stat *attr, int valid)
{
	uid_t uid = (valid & FATTR_UID) ? attr->st_uid : (uid_t)-1;
	gid_t gid = (valid & FATTR_GID) ? attr->st_gid : (gid_t)-1;
	char proc[32];
	int wfd;

	fd_procpath(fd, proc);
	if ((valid & FATTR_MODE) && chmod(proc, attr->st_mode & 07777) < 0)
		return -errno;
	if ((uid != (uid_t)-1 || gid != (gid_t)-1) &&
	    fchownat(fd, "", uid, gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (valid & FATTR_SIZE) {
		wfd = fh >= 0 ? fh : open(proc, O_WRONLY | O_CLOEXEC);
		if (wfd < 0 || ftruncate(wfd, attr->st_size) < 0) {
			int r = -errno;

			if (wfd >= 0 && wfd != fh)
				close(wfd);
			return r;
		}
		if (wfd != fh)
			close(wfd);
	}
	if (valid & (FATTR_ATIME | FATTR_MTIME | FATTR_ATIME_NOW |
		     FATTR_MTIME_NOW))
		return set_times(fd, attr, valid);
	return 0;
}

/*
 * Set-ID bits: the view takes the job from the kernel, as a tree does
 * (FUSE_HANDLE_KILLPRIV_V2; the kernel's own clearing misses ext4's group
 * rule, and an O_TRUNC open's altogether), with the rule of
 * common/setid.c.  Clears kill of the bits of the file st describes, on
 * which fd is: 0 or -errno.
 */
static int clear_setid(fk_req_t req, fk_ino_t ino, int fd, const struct stat *st, mode_t kill)
{
	struct view *v = view_of(req);

	if (!kill)
		return 0;
	return setid_set_mode(v->dentries.se, ino, fd, st->st_mode & 07777 & ~kill,
			      v->keeps_setid);
}

/* Before a write or O_TRUNC open by a caller without CAP_FSETID (kill_suidgid). */
static int kill_setid(fk_req_t req, fk_ino_t ino, int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!(st.st_mode & (S_ISUID | S_ISGID)))
		return 0;
	return clear_setid(req, ino, fd, &st, setid_at_write(req, &st));
}

/*
 * The set-ID bits a SETATTR of n's object, on which fd is, clears (*kill;
 * *st: the object before): 1 where it has set-ID bits, 0 where it has
 * none or the SETATTR clears none, or -errno.  The view counts no writers:
 * a file open at all may be written.
 */
static int setattr_setid(fk_req_t req, struct view_node *n, int fd, int valid, struct stat *st,
			 mode_t *kill)
{
	struct view *v = view_of(req);
	char proc[32];
	bool is_open;
	int r;

	*kill = 0;
	if (n->d || !setid_setattr_clears(valid))
		return 0;
	if (fstat(fd, st) < 0)
		return -errno;
	if (!S_ISREG(st->st_mode) || !(st->st_mode & (S_ISUID | S_ISGID)))
		return 0;
	pthread_mutex_lock(&v->node_lock);
	is_open = n->opens > 0;
	pthread_mutex_unlock(&v->node_lock);
	fd_procpath(fd, proc);
	r = setid_at_setattr(req, st, valid, proc, is_open, kill);
	return r < 0 ? r : 1;
}

void ovl_setattr(fk_req_t req, fk_ino_t ino, struct stat *attr, int valid,
		 struct fk_file_info *fi)
{
	struct view *v = view_of(req);
	struct view_node *n = view_node(v, ino);
	int fh = fi && !n->d ? (int)fi->fh : -1;
	int fd, r = raise_up(v, n), setid = 0;
	bool chowning = valid & (FATTR_UID | FATTR_GID);
	struct stat st;
	mode_t kill = 0;

	fd = r < 0 ? r : view_open(v, n, O_PATH | O_NOFOLLOW);
	if (fd < 0) {
		fk_reply_err(req, -fd);
		return;
	}
	/* Cleared before a truncation, after a chown (as in a tree). */
	r = setid = setattr_setid(req, n, fd, valid, &st, &kill);
	if (r > 0 && !chowning)
		r = clear_setid(req, ino, fd, &st, kill);
	if (r >= 0)
		r = set_attrs(fd, fh, attr, valid);
	if (r == 0 && setid > 0 && chowning)
		r = setid_settle(v->dentries.se, ino, fd, &st, kill, v->keeps_setid);
	if (r < 0)
		fk_reply_err(req, -r);
	else
		reply_attr(req, v, n, fd);
	close(fd);
}

void ovl_readlink(fk_req_t req, fk_ino_t ino)
{
	struct view *v = view_of(req);
	char buf[PATH_MAX];
	int fd = view_open(v, view_node(v, ino), O_PATH | O_NOFOLLOW);
	ssize_t n = fd < 0 ? fd : readlinkat(fd, "", buf, sizeof(buf) - 1);

	if (n < 0 && fd >= 0)
		n = -errno;
	if (fd >= 0)
		close(fd);
	if (n < 0) {
		fk_reply_err(req, (int)-n);
		return;
	}
	buf[n] = '\0';
	fk_reply_readlink(req, buf);
}

/*
 * An open for writing copies the file up first.  Nothing but the view
 * changes the layers, so the kernel keeps the file's pages across opens —
 * but for a file with several links, whose other names are other nodes.
 * A file opened for reading on a lower layer is entered on its node, so
 * that a copy-up moves it to the copy (view_readers_move).
 */
void ovl_open(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi)
{
	struct view *v = view_of(req);
	struct view_node *n = view_node(v, ino);
	bool writes = (fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC);
	struct stat st;
	unsigned layer;
	int fd, r = writes ? raise_up(v, n) : 0;

	for (fd = r; r == 0;) {
		pthread_mutex_lock(&v->node_lock);
		layer = n->layer;
		pthread_mutex_unlock(&v->node_lock);
		fd = view_open(v, n, (fi->flags & ~(O_CREAT | O_EXCL | O_NOCTTY)) | O_NOFOLLOW);
		if (fd < 0 || (r = view_reader_add(v, n, layer, fd)) == 0)
			break;
		close(fd);
		fd = r;
		if (r == -EAGAIN)  /* copied up meanwhile: open the copy */
			r = 0;
	}
	if (fd < 0) {
		fk_reply_err(req, -fd);
		return;
	}
	if (writes && fi->kill_suidgid && (fi->flags & O_TRUNC) && (r = kill_setid(req, ino, fd)) < 0) {
		view_reader_drop(v, n, fd);
		close(fd);
		fk_reply_err(req, -r);
		return;
	}
	fi->fh = (uint64_t)fd;
	fi->keep_cache = fstat(fd, &st) == 0 && st.st_nlink <= 1;
	view_opened(v, n, 1);
	if (fk_reply_open(req, fi) != 0) {
		view_opened(v, n, -1);
		view_reader_drop(v, n, fd);
		close(fd);
	}
}

void ovl_read(fk_req_t req, fk_ino_t ino, size_t size, off_t off,
	      struct fk_file_info *fi)
{
	(void)ino;
	fk_reply_fd(req, (int)fi->fh, off, size);
}

void ovl_write(fk_req_t req, fk_ino_t ino, const char *buf, size_t size, off_t off,
	       struct fk_file_info *fi)
{
	int err = fi->kill_suidgid ? kill_setid(req, ino, (int)fi->fh) : 0;

	if (err < 0)
		fk_reply_err(req, -err);
	else
		fk_reply_pwrite(req, (int)fi->fh, buf, size, off);
}

void ovl_release(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi)
{
	struct view *v = view_of(req);

	view_opened(v, view_node(v, ino), -1);
	view_reader_drop(v, view_node(v, ino), (int)fi->fh);
	close((int)fi->fh);
	fk_reply_err(req, 0);
}

void ovl_fsync(fk_req_t req, fk_ino_t ino, int datasync, struct fk_file_info *fi)
{
	int fd = (int)fi->fh;

	(void)ino;
	fk_reply_err(req, (datasync ? fdatasync(fd) : fsync(fd)) < 0 ? errno : 0);
}

/* The view's space is the upper layer's, or the top layer's. */
void ovl_statfs(fk_req_t req, fk_ino_t ino)
{
	struct view *v = view_of(req);
	struct statvfs sv;

	(void)ino;
	if (fstatvfs(v->layers.l[0].fd, &sv) < 0)
		fk_reply_err(req, errno);
	else
		fk_reply_statfs(req, &sv);
}

/*
 * Extended attributes go through /proc/self/fd/N of an O_PATH descriptor,
 * which reaches the object itself; a symbolic link's own attributes cannot
 * be reached that way, so a link shows none.
 */
static int xattr_fd(struct view *v, struct view_node *n, char proc[static 32])
{
	int fd = view_open(v, n, O_PATH | O_NOFOLLOW);
	struct stat st;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || S_ISLNK(st.st_mode)) {
		close(fd);
		return -ENODATA;
	}
	fd_procpath(fd, proc);
	return fd;
}

void ovl_getxattr(fk_req_t req, fk_ino_t ino, const char *name, size_t size)
{
	struct view *v = view_of(req);
	char proc[32], *buf = NULL;
	int fd = marker_is_ours(name) ? -ENODATA : xattr_fd(v, view_node(v, ino), proc);
	ssize_t n = fd;

	if (fd >= 0) {
		buf = size ? malloc(size) : NULL;
		if (size && !buf)
			n = -ENOMEM;
		else if ((n = getxattr(proc, name, buf, size)) < 0)
			n = -errno;
		close(fd);
	}
	xattrs_reply(req, size, buf, n);
	free(buf);
}

void ovl_listxattr(fk_req_t req, fk_ino_t ino, size_t size)
{
	struct view *v = view_of(req);
	char proc[32], *list = NULL;
	int fd = xattr_fd(v, view_node(v, ino), proc);
	ssize_t n = fd == -ENODATA ? 0 : fd;

	if (fd >= 0) {
		n = xattrs_list(req, proc, marker_is_ours, &list);
		close(fd);
	}
	xattrs_reply(req, size, list, n);
	free(list);
}

/* Changing an attribute copies the object up first. */
static int change_xattr(struct view *v, struct view_node *n, const char *name,
			const char *value, size_t size, int flags, bool remove)
{
	char proc[32];
	int fd, r;

	if (marker_is_ours(name))
		return -EPERM;
	if ((r = raise_up(v, n)) < 0 || (fd = r = xattr_fd(v, n, proc)) < 0)
		return r == -ENODATA ? -EPERM : r;
	r = remove ? removexattr(proc, name) : setxattr(proc, name, value, size, flags);
	r = r < 0 ? -errno : 0;
	close(fd);
	return r;
}

void ovl_setxattr(fk_req_t req, fk_ino_t ino, const char *name, const char *value,
		  size_t size, int flags)
{
	struct view *v = view_of(req);

	fk_reply_err(req, -change_xattr(v, view_node(v, ino), name, value, size, flags, false));
}

void ovl_removexattr(fk_req_t req, fk_ino_t ino, const char *name)
{
	struct view *v = view_of(req);

	fk_reply_err(req, -change_xattr(v, view_node(v, ino), name, NULL, 0, 0, true));
}

/*
 * Directory listings without per-open state.
 *
 * Wine probes a directory's casefold flag on every miss with open, ioctl
 * and close: three requests, two of them OPENDIR and RELEASEDIR, when the
 * daemon keeps a stream per open directory.  With FUSE_NO_OPENDIR_
 * SUPPORT the kernel sends neither, so each READDIR stands alone: it opens
 * the backing directory, seeks to the offset the kernel asks for (an
 * offset a previous READDIR returned, as getdents64 gave it), reads what
 * fits, and closes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tree/dir.h"
#include "tree/ops.h"
#include "tree/watch.h"

/* A fresh descriptor for reading dir's entries, or -errno. */
static int open_listing(struct cfs *fs, struct cfs_inode *dir)
{
	return locator_open(&fs->nodes, dir, O_RDONLY | O_DIRECTORY);
}

/* "." and "..": the kernel makes no dentry of either, nor takes a node. */
static bool dots(const char *name)
{
	return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

/*
 * One entry into out (room bytes), as READDIR gives it or, with plus, as
 * READDIRPLUS does (dir locked): with the node and attributes of a LOOKUP
 * of the name, taken only once the entry is sure to fit.  Returns the
 * bytes the entry takes; more than room: nothing was written.
 */
static size_t add_entry(fk_req_t req, struct cfs *fs, struct cfs_inode *dir, bool plus,
			char *out, size_t room, const struct dirent64 *d)
{
	struct fk_entry_param e = { .attr = { .st_ino = d->d_ino,
					      .st_mode = (mode_t)d->d_type << 12 } };
	size_t len;

	if (!plus)
		return fk_add_direntry(req, out, room, d->d_name, &e.attr, d->d_off);
	len = fk_add_direntry_plus(req, NULL, 0, d->d_name, &e, d->d_off);
	if (len > room)
		return len;
	if (!dots(d->d_name) && entry_listed(fs, dir, d->d_name, &e) < 0) {
		memset(&e, 0, sizeof(e));
		e.attr.st_ino = d->d_ino;
		e.attr.st_mode = (mode_t)d->d_type << 12;
	}
	return fk_add_direntry_plus(req, out, room, d->d_name, &e, d->d_off);
}

/*
 * Fills out (size bytes) with dir's entries from offset off, as stored,
 * the superblock files hidden.  Returns the bytes filled or -errno; an
 * error after some entries is left for the next call to report.
 */
static ssize_t fill(fk_req_t req, struct cfs *fs, struct cfs_inode *dir, bool plus, int fd,
		    char *out, size_t size, off_t off)
{
	/* About what one 4 KiB READDIR reply holds: little read in vain. */
	char raw[4096] __attribute__((aligned(8)));
	size_t used = 0;

	if (off != 0 && lseek(fd, off, SEEK_SET) < 0)
		return -errno;
	for (;;) {
		ssize_t n = getdents64(fd, raw, sizeof(raw));

		if (n <= 0)
			return n < 0 && used == 0 ? -errno : (ssize_t)used;
		for (ssize_t at = 0; at < n;) {
			struct dirent64 *d = (struct dirent64 *)(raw + at);
			size_t len;

			at += d->d_reclen;
			if (dir_hides(fs, dir, d->d_name))
				continue;
			len = add_entry(req, fs, dir, plus, out + used, size - used, d);
			if (len > size - used)
				return (ssize_t)used;  /* the next call starts here */
			used += len;
		}
	}
}

/*
 * READDIR, and READDIRPLUS (plus) under the directory's lock, which
 * entry_listed's answers need as a LOOKUP's do.  The kernel asks for plus
 * at the start of a listing and after a LOOKUP in the directory
 * (READDIRPLUS_AUTO): a walk that stats or opens what it lists (find,
 * ls -l, rm -rf, a Windows program's FindNextFile) then finds each dentry
 * made, while a bare listing pays for one reply of nodes at most.
 */
static void list(fk_req_t req, fk_ino_t ino, size_t size, off_t off, bool plus)
{
	struct cfs *fs = cfs_of(req);
	struct cfs_inode *dir = ids_node(&fs->nodes, ino);
	char *buf = malloc(size);
	int fd = buf ? open_listing(fs, dir) : -ENOMEM;
	ssize_t n = fd;

	if (fd >= 0) {
		/* The kernel caches listings: changes to them must be noticed. */
		watch_dir(fs, dir, fd);
		n = plus ? dir_lock(fs, dir) : 0;
		if (n == 0) {
			n = fill(req, fs, dir, plus, fd, buf, size, off);
			if (plus)
				dir_unlock(fs, dir);
		}
		close(fd);
	}
	if (n < 0)
		fk_reply_err(req, (int)-n);
	else
		fk_reply_buf(req, buf, (size_t)n);
	free(buf);
}

void op_readdir(fk_req_t req, fk_ino_t ino, size_t size, off_t off,
		       struct fk_file_info *fi)
{
	(void)fi;
	list(req, ino, size, off, false);
}

void op_readdirplus(fk_req_t req, fk_ino_t ino, size_t size, off_t off,
		    struct fk_file_info *fi)
{
	(void)fi;
	list(req, ino, size, off, true);
}

/*
 * ENOSYS tells a kernel with FUSE_NO_OPENDIR_SUPPORT never to send
 * OPENDIR or RELEASEDIR again (and to cache listings, checked against the
 * directory's mtime); older kernels get a handle holding nothing.
 */
void op_opendir(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi)
{
	(void)ino;
	if (cfs_of(req)->no_opendir) {
		fk_reply_err(req, ENOSYS);
		return;
	}
	fi->fh = 0;
	fk_reply_open(req, fi);
}

void op_fsyncdir(fk_req_t req, fk_ino_t ino, int datasync,
			struct fk_file_info *fi)
{
	struct cfs *fs = cfs_of(req);
	int fd = open_listing(fs, ids_node(&fs->nodes, ino)), err = 0;

	(void)fi;
	if (fd < 0) {
		fk_reply_err(req, -fd);
		return;
	}
	if ((datasync ? fdatasync(fd) : fsync(fd)) < 0)
		err = errno;
	close(fd);
	fk_reply_err(req, err);
}

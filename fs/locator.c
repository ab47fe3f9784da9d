/*
 * Reaching a node's object: reopening it from its locator, pinning its
 * descriptor in the descriptor cache for the length of an operation,
 * opening it for I/O, and holding a descriptor for an object about to lose
 * the name that reaches it.  Everything here takes the table lock only
 * between system calls.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "inode.h"
#include "util.h"

/*
 * For a caller whose open failed with err: when the daemon is out of
 * descriptors, the cache gives one back and the caller retries.  True if
 * it should (fdcache_shed).
 */
bool inode_shed(struct cfs_nodes *nt, int err)
{
	return fdcache_shed(&nt->fdc, err);
}

/*
 * Opens the object of a node with a file handle (handle_len > 0), with
 * flags: the descriptor or -errno, -ESTALE when the object is gone.
 */
static int open_handle(struct cfs_nodes *nt, struct cfs_inode *in, int flags)
{
	union inode_handle h;
	int fd;

	h.fh.handle_bytes = in->handle_len;
	h.fh.handle_type = in->handle_type;
	memcpy(h.fh.f_handle, in->handle, in->handle_len);
	do
		fd = open_by_handle_at(nt->mount_fd, &h.fh, flags | O_CLOEXEC);
	while (fd < 0 && inode_shed(nt, errno));
	if (fd >= 0)
		return fd;
	if (errno != ENOENT && errno != ESTALE)
		return -errno;
	/* Gone: the kernel's retry looks the name up again, and must not
	 * find this node for an object that reused the inode number. */
	inode_unhash(nt, in);
	return -ESTALE;
}

/*
 * Reopens a node's object from its locator (the caller pins in): an O_PATH
 * descriptor, or -ESTALE when the object is gone or the locator now leads
 * to another one.
 */
static int reopen(struct cfs_nodes *nt, struct cfs_inode *in)
{
	char name[CFS_NAME_MAX + 1];
	struct cfs_inode *parent;
	struct stat st;
	int fd, pfd;

	if (in->handle_len)
		return open_handle(nt, in, O_PATH);
	pthread_mutex_lock(&nt->lock);
	parent = in->parent;
	if (parent) {
		parent->fde.pins++;  /* alive until we are done, whatever renames do */
		snprintf(name, sizeof(name), "%s", in->name);
	}
	pthread_mutex_unlock(&nt->lock);
	if (!parent)
		return -ESTALE;
	pfd = inode_pin(nt, parent);
	inode_put(nt, parent);
	if (pfd < 0)
		return pfd;
	fd = openat(pfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	inode_unpin(nt, parent, pfd);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? -ESTALE : -errno;
	if (fstat(fd, &st) < 0 || st.st_dev != in->dev || st.st_ino != in->ino ||
	    (st.st_mode & S_IFMT) != in->type) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/*
 * Makes sure a node pinned by the caller has a descriptor, reopening it
 * from its locator; returns the descriptor or -errno (-ESTALE: the object
 * is gone or the locator leads elsewhere).
 */
static int fd_of_pinned(struct cfs_nodes *nt, struct cfs_inode *in)
{
	int fd, evicted = -1;

	pthread_mutex_lock(&nt->lock);
	fd = in->fde.fd;
	in->fde.used = true;
	pthread_mutex_unlock(&nt->lock);
	if (fd >= 0)
		return fd;

	fd = reopen(nt, in);
	if (fd < 0)
		return fd;
	pthread_mutex_lock(&nt->lock);
	if (in->fde.fd >= 0) {
		/* A racing pin reopened it first: use that one. */
		evicted = fd;
		fd = in->fde.fd;
	} else {
		evicted = fdcache_install(&nt->fdc, &in->fde, fd);
	}
	pthread_mutex_unlock(&nt->lock);
	if (evicted >= 0)
		close(evicted);
	return fd;
}

/*
 * The node's backing descriptor, valid until inode_unpin; the node cannot
 * be freed meanwhile.  Returns the descriptor or -errno.
 */
int inode_pin(struct cfs_nodes *nt, struct cfs_inode *in)
{
	int fd;

	pthread_mutex_lock(&nt->lock);
	in->fde.pins++;
	pthread_mutex_unlock(&nt->lock);
	fd = fd_of_pinned(nt, in);
	if (fd < 0)
		inode_put(nt, in);
	return fd;
}

/*
 * A new descriptor, opened with flags (never O_PATH), on in's object: by
 * its file handle when no descriptor of it is cached (one call and one
 * descriptor, where a reopen into the cache would cost two of each), else
 * through /proc/self/fd/N, which names exactly the object the pinned
 * descriptor holds, never a path that could have been swapped.
 * Returns it or -errno.
 */
int inode_open(struct cfs_nodes *nt, struct cfs_inode *in, int flags)
{
	int pfd, fd, err;
	char path[32];
	bool cached;

	pthread_mutex_lock(&nt->lock);
	cached = in->fde.fd >= 0;
	pthread_mutex_unlock(&nt->lock);
	if (in->handle_len && !cached)
		return open_handle(nt, in, flags);
	pfd = inode_pin(nt, in);
	if (pfd < 0)
		return pfd;
	fd_procpath(pfd, path);
	do
		fd = open(path, flags | O_CLOEXEC);
	while (fd < 0 && inode_shed(nt, errno));
	err = errno;
	inode_unpin(nt, in, pfd);
	return fd < 0 ? -err : fd;
}

/* Ends a pin; fd is what inode_pin returned. */
void inode_unpin(struct cfs_nodes *nt, struct cfs_inode *in, int fd)
{
	bool mine;

	pthread_mutex_lock(&nt->lock);
	mine = fd != in->fde.fd;
	pthread_mutex_unlock(&nt->lock);
	/* A descriptor the cache had no room for was the caller's alone. */
	if (mine)
		close(fd);
	inode_put(nt, in);
}

/*
 * Keeps the node's descriptor outside the cache until the node is freed:
 * for an object about to lose the name (and maybe the handle) that
 * reaches it while the kernel still uses it.
 */
int inode_hold(struct cfs_nodes *nt, struct cfs_inode *in)
{
	int fd = inode_pin(nt, in);

	if (fd < 0)
		return fd;
	pthread_mutex_lock(&nt->lock);
	if (in->fde.fd < 0) {
		in->fde.fd = fd;        /* the pin's own descriptor becomes the node's */
		nt->held++;
	} else if (in->fde.slot >= 0) {
		fdcache_remove(&nt->fdc, &in->fde);
		nt->held++;
	}
	in->fde.slot = FDC_HELD;
	pthread_mutex_unlock(&nt->lock);
	inode_unpin(nt, in, fd);
	return 0;
}

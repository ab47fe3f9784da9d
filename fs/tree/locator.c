/*
 * Reaching a node's object: reopening it from its locator, pinning its
 * descriptor in the descriptor cache for the length of an operation,
 * opening it for I/O, and holding a descriptor for an object about to lose
 * the name that reaches it.  Everything here takes the table lock only
 * between system calls.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/leases.h"
#include "common/util.h"
#include "tree/inode.h"
#include "tree/locator.h"

/*
 * For a caller whose open failed with err: when the daemon is out of
 * descriptors, the cache gives one back and the caller retries.  True if
 * it should (fdcache_shed).
 */
bool locator_shed(struct cfs_nodes *nt, int err)
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
	pthread_mutex_lock(&nt->lock);  /* inode_rehandle may change it */
	memcpy(h.fh.f_handle, in->handle, in->handle_len);
	pthread_mutex_unlock(&nt->lock);
	do
		fd = open_by_handle_at(nt->mount_fd, &h.fh, flags | O_CLOEXEC);
	while (fd < 0 && locator_shed(nt, errno));
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
 * Whether fd, just opened by in's path locator, is on in's object.
 * Identity only, which no cache gets wrong: nothing is asked of a
 * filesystem mounted on the name since (it might never answer).
 */
static bool same_object(int fd, const struct cfs_inode *in)
{
	struct statx x;

	return statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_TYPE | STATX_INO, &x) == 0 &&
	       makedev(x.stx_dev_major, x.stx_dev_minor) == in->dev && x.stx_ino == in->ino &&
	       (x.stx_mode & S_IFMT) == in->type;
}

/*
 * Opens the entry name of the directory pfd and checks that it is still
 * in's object: an O_PATH descriptor, or -ESTALE when the object is gone or
 * the name now leads to another one.
 */
static int reopen_at(int pfd, const char *name, const struct cfs_inode *in)
{
	int fd = openat(pfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? -ESTALE : -errno;
	if (!same_object(fd, in)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/*
 * Caches fd as the descriptor of the pinned node in, which had none when
 * the caller looked: returns the descriptor to use (a racing pin's, if it
 * won) — cached, or the caller's own when every slot is pinned.
 */
static int install(struct cfs_nodes *nt, struct cfs_inode *in, int fd)
{
	int evicted;

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

/* One step down a path locator chain: a node and its name in its parent. */
struct step {
	struct cfs_inode *in;
	char *name;
};

/*
 * Makes sure a node pinned by the caller has a descriptor, reopening it
 * from its locator; returns the descriptor or -errno (-ESTALE: the object
 * is gone or the locator leads elsewhere).
 *
 * A path locator needs its parent's descriptor, which may need its own
 * parent's, and so on up a chain as deep as a user cares to make it (one
 * mkdir per level).  So no recursion: first up, pinning each parent and
 * noting each name, to the nearest ancestor that has a descriptor (or a
 * file handle, or nothing: ESTALE), then down, opening each level from the
 * one above and caching it.  The memory is one step per level without a
 * descriptor, on the heap.
 */
static int fd_of_pinned(struct cfs_nodes *nt, struct cfs_inode *in)
{
	struct step *steps = NULL, *grown;
	size_t n = 0, cap = 0;
	struct cfs_inode *cur = in, *parent;
	int fd, err = 0;

	for (;;) {
		pthread_mutex_lock(&nt->lock);
		fd = cur->fde.fd;
		cur->fde.used = true;
		if (fd >= 0 || cur->handle_len) {
			pthread_mutex_unlock(&nt->lock);
			if (fd < 0 && (fd = open_handle(nt, cur, O_PATH)) >= 0)
				fd = install(nt, cur, fd);
			break;
		}
		parent = cur->parent;
		if (!parent) {
			pthread_mutex_unlock(&nt->lock);
			fd = -ESTALE;
			break;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			grown = realloc(steps, cap * sizeof(*steps));
			if (!grown) {
				pthread_mutex_unlock(&nt->lock);
				fd = -ENOMEM;
				break;
			}
			steps = grown;
		}
		steps[n].in = cur;
		steps[n].name = strdup(cur->name);
		if (!steps[n].name) {
			pthread_mutex_unlock(&nt->lock);
			fd = -ENOMEM;
			break;
		}
		n++;
		/* Alive until we are done, whatever renames do. */
		parent->fde.pins++;
		pthread_mutex_unlock(&nt->lock);
		cur = parent;
	}
	/*
	 * cur is pinned (by the caller, or as a parent of the last step) and
	 * fd is its descriptor or -errno; so is every step's node.
	 */
	while (n > 0) {
		struct step *s = &steps[--n];

		if (fd >= 0) {
			err = reopen_at(fd, s->name, s->in);
			locator_unpin(nt, cur, fd);
			fd = err >= 0 ? install(nt, s->in, err) : err;
		} else {
			inode_put(nt, cur);
		}
		free(s->name);
		cur = s->in;
	}
	free(steps);
	return fd;
}

/*
 * The node's backing descriptor, valid until locator_unpin; the node cannot
 * be freed meanwhile.  Returns the descriptor or -errno.
 */
int locator_pin(struct cfs_nodes *nt, struct cfs_inode *in)
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
 * For a node with a path locator and no cached descriptor: its parent,
 * pinned, its descriptor in *pfd and the node's name there in name; NULL
 * when in has no such locator, has a descriptor now, or its parent cannot
 * be reached.  locator_unpin(nt, parent, *pfd) ends the pin.
 */
static struct cfs_inode *locator_parent(struct cfs_nodes *nt, struct cfs_inode *in,
					char name[static NAME_MAX + 1], int *pfd)
{
	struct cfs_inode *parent = NULL;

	pthread_mutex_lock(&nt->lock);
	if (in->fde.fd < 0 && in->parent && strlen(in->name) <= NAME_MAX) {
		parent = in->parent;
		strcpy(name, in->name);
		parent->fde.pins++;  /* alive until we are done, whatever renames do */
	}
	pthread_mutex_unlock(&nt->lock);
	if (!parent)
		return NULL;
	*pfd = fd_of_pinned(nt, parent);
	if (*pfd < 0) {
		inode_put(nt, parent);
		return NULL;
	}
	return parent;
}

/*
 * Whether open_by_name may try the open with flags: a daemon that may open
 * no more than its user could (nt->open_by_name), the lease rule's
 * non-blocking first try (leases.h), no truncation, and an object that
 * the kernel opens through us (a regular file or a directory).
 */
static bool by_name(const struct cfs_nodes *nt, const struct cfs_inode *in, int flags)
{
	return nt->open_by_name && (flags & O_NONBLOCK) && !(flags & O_TRUNC) &&
	       (S_ISREG(in->type) || S_ISDIR(in->type));
}

/*
 * open_once for a node with a path locator and no cached descriptor: the
 * entry is opened under its parent directly, with flags, and kept only if
 * it is in's object.  One open and one statx, where a reopen into the
 * descriptor cache costs an O_PATH open, a statx, the open through /proc
 * and the close of the descriptor it evicts — and the open that follows
 * its lookup is the only use most nodes get.  True with *fd set (the
 * descriptor, or -ESTALE: the name leads to another object now); false if
 * the caller is to go the O_PATH way, which answers every failure here
 * exactly as it did before (a name gone: ESTALE; the object's own EACCES;
 * a lease conflict).
 *
 * Why opening by name before the identity is known keeps the threat
 * model (fs/THREAT-MODEL.md): what the kernel resolves is one component beneath
 * the parent (RESOLVE_BENEATH), never a symbolic link (O_NOFOLLOW,
 * RESOLVE_NO_SYMLINKS) and never a mount point (RESOLVE_NO_XDEV: EXDEV,
 * and the O_PATH way, whose open asks the mounted filesystem nothing) —
 * so no FUSE filesystem another user mounted on the name is entered; the
 * open cannot wait (O_NONBLOCK: a FIFO or a lease conflict fails or
 * succeeds at once; only the lease rule's blocking retry waits, and that
 * goes the O_PATH way); it changes nothing of what it opens (O_TRUNC goes
 * the O_PATH way; OPEN never carries O_CREAT); and it cannot take a
 * controlling terminal (O_NOCTTY).  What an object swapped under the name
 * between the kernel's lookup and this open can still see is one open
 * and close (a lease on it starts to break; a watcher sees the open) by
 * a daemon holding no privilege beyond its user's: root's daemon, which
 * could open any device, keeps the O_PATH way.  A device node reaches a
 * backing directory only by mknod (CAP_MKNOD) or by a link or rename of
 * one on the same filesystem, which its owner (fs.protected_hardlinks) or
 * a writer of its directory, who can already replace it, may make.
 */
static bool open_by_name(struct cfs_nodes *nt, struct cfs_inode *in, int flags, int *fd)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV,
	};
	struct cfs_inode *parent;
	char name[NAME_MAX + 1];
	int pfd;
	long r;

	parent = locator_parent(nt, in, name, &pfd);
	if (!parent)
		return false;
	do
		r = syscall(SYS_openat2, pfd, name, &how, sizeof(how));
	while (r < 0 && locator_shed(nt, errno));
	locator_unpin(nt, parent, pfd);
	if (r < 0)
		return false;
	*fd = (int)r;
	if (!same_object(*fd, in)) {
		close(*fd);
		*fd = -ESTALE;
	}
	return true;
}

/*
 * in's attributes without a descriptor, where it has none cached and a
 * path locator: one statx of the name, which carries the identity (dev,
 * ino, type) in the same answer, so no swap between two calls can give
 * another object's attributes — where pinning would reopen an O_PATH
 * descriptor, check it, cache it (closing the one it evicts) and fstat
 * it.  AT_STATX_DONT_SYNC asks nothing of a filesystem mounted on the
 * name, whose root goes the pinning way, and gives current attributes on
 * a local backing filesystem only (nt->local; entry_stat in dir.c).  True
 * with *err 0 and st filled, or -ESTALE (the name leads to another
 * object); false: the caller pins the node instead.
 */
bool locator_stat_unpinned(struct cfs_nodes *nt, struct cfs_inode *in, struct stat *st, int *err)
{
	struct cfs_inode *parent;
	char name[NAME_MAX + 1];
	struct statx x;
	int pfd, r;

	if (!nt->local || in->dev != nt->root->dev)
		return false;
	parent = locator_parent(nt, in, name, &pfd);
	if (!parent)
		return false;
	r = statx(pfd, name, AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC, STATX_BASIC_STATS, &x);
	locator_unpin(nt, parent, pfd);
	if (r < 0 || (x.stx_attributes_mask & x.stx_attributes & STATX_ATTR_MOUNT_ROOT))
		return false;
	stat_from_statx(&x, st);
	*err = st->st_dev == in->dev && st->st_ino == in->ino &&
	       (st->st_mode & S_IFMT) == in->type ? 0 : -ESTALE;
	return true;
}

/* locator_open, once, with flags as given. */
static int open_once(struct cfs_nodes *nt, struct cfs_inode *in, int flags)
{
	int pfd, fd, err;
	char path[32];
	bool cached;

	pthread_mutex_lock(&nt->lock);
	cached = in->fde.fd >= 0;
	pthread_mutex_unlock(&nt->lock);
	if (in->handle_len && !cached)
		return open_handle(nt, in, flags);
	if (!cached && by_name(nt, in, flags) && open_by_name(nt, in, flags, &fd))
		return fd;
	pfd = locator_pin(nt, in);
	if (pfd < 0)
		return pfd;
	fd_procpath(pfd, path);
	do
		fd = open(path, flags | O_CLOEXEC);
	while (fd < 0 && locator_shed(nt, errno));
	err = errno;
	locator_unpin(nt, in, pfd);
	return fd < 0 ? -err : fd;
}

/*
 * Does O_NONBLOCK, left set after the first try, change nothing the daemon
 * does with the descriptor?  Opening is the only thing it changes for a
 * regular file or a directory of ext4, xfs, btrfs, tmpfs or f2fs: reads
 * and writes wait or not by their own flags (RWF_NOWAIT), never the
 * file's, and locks by the command (F_SETLKW, LOCK_NB).  Elsewhere (a
 * network or FUSE filesystem is told the open flags with every read, a
 * device or FIFO honours them) the flag is cleared again, one fcntl more.
 */
static bool nonblock_inert(const struct cfs_nodes *nt, const struct cfs_inode *in)
{
	return nt->local && in->dev == nt->root->dev &&
	       (S_ISREG(in->type) || S_ISDIR(in->type));
}

/*
 * A new descriptor, opened with flags (never O_PATH), on in's object: by
 * its file handle when no descriptor of it is cached (one call and one
 * descriptor, where a reopen into the cache would cost two of each), or
 * for an ordinary user's daemon by its path locator's name, checked
 * (open_by_name, the same saving); else through /proc/self/fd/N, which
 * names exactly the object the pinned descriptor holds, never a path that
 * could have been swapped.  A lease conflict waits only within the bound
 * of leases.h.  Returns it or -errno.
 */
int locator_open(struct cfs_nodes *nt, struct cfs_inode *in, int flags)
{
	int fd = open_once(nt, in, flags | O_NONBLOCK);

	if (flags & O_NONBLOCK)
		return fd;
	if (fd == -EWOULDBLOCK) {
		if (lease_wait_begin()) {
			fd = open_once(nt, in, flags);
			lease_wait_end();
		}
	} else if (fd >= 0 && !nonblock_inert(nt, in) &&
		   fcntl(fd, F_SETFL, flags) < 0) {  /* the status flags asked for */
		close(fd);
		fd = -EIO;
	}
	return fd;
}

/* Ends a pin; fd is what locator_pin returned. */
void locator_unpin(struct cfs_nodes *nt, struct cfs_inode *in, int fd)
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
 * Keeps the node's descriptor in the held pool, where it stays until the
 * node is freed unless the pool needs room for a newer one: for an object
 * about to lose the name (and maybe the handle) that reaches it while the
 * kernel still uses it.  A node whose descriptor gives way reaches its
 * object only by handle, or not at all (ESTALE), as if it had none.
 */
int locator_hold(struct cfs_nodes *nt, struct cfs_inode *in)
{
	int fd = locator_pin(nt, in), evicted;
	bool held;

	if (fd < 0)
		return fd;
	pthread_mutex_lock(&nt->lock);
	if (in->fde.fd < 0)
		in->fde.fd = fd;        /* the pin's own descriptor becomes the node's */
	evicted = fdcache_hold(&nt->fdc, &in->fde, &held);
	if (!held && in->fde.slot < 0)
		in->fde.fd = -1;        /* every held slot pinned: stays the pin's */
	pthread_mutex_unlock(&nt->lock);
	if (evicted >= 0)
		close(evicted);
	locator_unpin(nt, in, fd);
	return 0;
}
/*
 * Before the daemon removes the entry name of the directory dfd: if the
 * kernel still remembers its object under a path locator, the node keeps
 * a descriptor to it, since the name will not reach it afterwards.  A file
 * handle still opens an object that is unlinked but in use.
 */
void locator_hold_name(struct cfs_nodes *nt, int dfd, const char *name)
{
	struct cfs_inode *in = inode_find_to_hold(nt, dfd, name);

	if (!in)
		return;
	locator_hold(nt, in);
	inode_put(nt, in);
}

/*
 * The descriptor cache: a fixed number of backing descriptors shared by
 * all nodes, so that the daemon's descriptors do not grow with the number
 * of inodes the kernel remembers.
 *
 * An operation pins the node's descriptor for as long as it uses it; only
 * unpinned descriptors are evicted.  Eviction is CLOCK: the hand sweeps
 * the slots, a node pinned since the hand last passed loses its mark and
 * stays, the first unmarked and unpinned one is evicted.  When every slot
 * is pinned (more operations in flight than slots), the new descriptor is
 * the caller's alone and closed at unpin: the bound holds either way.
 *
 * Everything here is under fs->table_lock, released around every open and
 * close.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "casefoldfs.h"

int fdcache_init(struct cfs_fdcache *c, uint32_t cap)
{
	c->slot = calloc(cap, sizeof(*c->slot));
	if (!c->slot)
		return -ENOMEM;
	c->cap = cap;
	c->used = 0;
	c->hand = 0;
	return 0;
}

void fdcache_destroy(struct cfs_fdcache *c)
{
	free(c->slot);
	c->slot = NULL;
}

/* Takes in's descriptor out of the cache; the caller closes or keeps it. */
void fdcache_remove(struct cfs *fs, struct cfs_inode *in)
{
	struct cfs_fdcache *c = &fs->fdc;
	uint32_t i = (uint32_t)in->slot;

	c->slot[i] = c->slot[--c->used];
	c->slot[i]->slot = (int32_t)i;
	if (c->hand >= c->used)
		c->hand = 0;
	in->slot = CFS_SLOT_NONE;
}

/* The slot the hand gives up, or -1 when every slot is pinned. */
static int64_t sweep(struct cfs_fdcache *c)
{
	for (uint64_t n = 0; n < 2 * (uint64_t)c->cap; n++) {
		struct cfs_inode *v = c->slot[c->hand];
		uint32_t at = c->hand;

		c->hand = (c->hand + 1) % c->used;
		if (v->pins == 0 && !v->used)
			return at;
		v->used = false;
	}
	return -1;
}

/*
 * Caches fd as in's descriptor (table lock held, in has none).  Returns the
 * descriptor evicted for it, for the caller to close after unlocking, or -1.
 * If every slot is pinned, in keeps no descriptor and fd stays the caller's.
 */
int fdcache_install(struct cfs *fs, struct cfs_inode *in, int fd)
{
	struct cfs_fdcache *c = &fs->fdc;
	struct cfs_inode *victim;
	int64_t at;
	int evicted;

	if (c->used < c->cap) {
		at = c->used++;
		evicted = -1;
	} else {
		at = sweep(c);
		if (at < 0)
			return -1;
		victim = c->slot[at];
		evicted = victim->fd;
		victim->fd = -1;
		victim->slot = CFS_SLOT_NONE;
	}
	c->slot[at] = in;
	in->slot = (int32_t)at;
	in->fd = fd;
	in->used = true;
	return evicted;
}

/*
 * For a caller whose open failed with err: when the daemon is out of
 * descriptors (EMFILE), the cache gives one back — what callers hold open
 * comes first — and the caller retries.  True if it should.
 */
bool fdcache_shed(struct cfs *fs, int err)
{
	struct cfs_fdcache *c = &fs->fdc;
	struct cfs_inode *victim;
	int64_t at;
	int fd = -1;

	if (err != EMFILE)
		return false;
	pthread_mutex_lock(&fs->table_lock);
	if (c->used > 0 && (at = sweep(c)) >= 0) {
		victim = c->slot[at];
		fd = victim->fd;
		victim->fd = -1;
		fdcache_remove(fs, victim);
	}
	pthread_mutex_unlock(&fs->table_lock);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/*
 * Makes sure a node pinned by the caller has a descriptor, reopening it
 * from its locator; returns the descriptor or -errno (-ESTALE: the object
 * is gone or the locator leads elsewhere).
 */
static int fd_of_pinned(struct cfs *fs, struct cfs_inode *in)
{
	int fd, evicted = -1;

	pthread_mutex_lock(&fs->table_lock);
	fd = in->fd;
	in->used = true;
	pthread_mutex_unlock(&fs->table_lock);
	if (fd >= 0)
		return fd;

	fd = inode_reopen(fs, in);
	if (fd < 0)
		return fd;
	pthread_mutex_lock(&fs->table_lock);
	if (in->fd >= 0) {
		/* A racing pin reopened it first: use that one. */
		evicted = fd;
		fd = in->fd;
	} else {
		evicted = fdcache_install(fs, in, fd);
	}
	pthread_mutex_unlock(&fs->table_lock);
	if (evicted >= 0)
		close(evicted);
	return fd;
}

/*
 * The node's backing descriptor, valid until inode_unpin; the node cannot
 * be freed meanwhile.  Returns the descriptor or -errno.
 */
int inode_pin(struct cfs *fs, struct cfs_inode *in)
{
	int fd;

	pthread_mutex_lock(&fs->table_lock);
	in->pins++;
	pthread_mutex_unlock(&fs->table_lock);
	fd = fd_of_pinned(fs, in);
	if (fd < 0)
		inode_put(fs, in);
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
int inode_open(struct cfs *fs, struct cfs_inode *in, int flags)
{
	int pfd, fd, err;
	char path[32];
	bool cached;

	pthread_mutex_lock(&fs->table_lock);
	cached = in->fd >= 0;
	pthread_mutex_unlock(&fs->table_lock);
	if (in->handle_len && !cached)
		return inode_open_handle(fs, in, flags);
	pfd = inode_pin(fs, in);
	if (pfd < 0)
		return pfd;
	fd_procpath(pfd, path);
	do
		fd = open(path, flags | O_CLOEXEC);
	while (fd < 0 && fdcache_shed(fs, errno));
	err = errno;
	inode_unpin(fs, in, pfd);
	return fd < 0 ? -err : fd;
}

/* Ends a pin; fd is what inode_pin returned. */
void inode_unpin(struct cfs *fs, struct cfs_inode *in, int fd)
{
	bool mine;

	pthread_mutex_lock(&fs->table_lock);
	mine = fd != in->fd;
	pthread_mutex_unlock(&fs->table_lock);
	/* A descriptor the cache had no room for was the caller's alone. */
	if (mine)
		close(fd);
	inode_put(fs, in);
}

/*
 * Keeps the node's descriptor outside the cache until the node is freed:
 * for an object about to lose the name (and maybe the handle) that
 * reaches it while the kernel still uses it.
 */
int inode_hold(struct cfs *fs, struct cfs_inode *in)
{
	int fd = inode_pin(fs, in);

	if (fd < 0)
		return fd;
	pthread_mutex_lock(&fs->table_lock);
	if (in->fd < 0) {
		in->fd = fd;        /* the pin's own descriptor becomes the node's */
		fs->held_count++;
	} else if (in->slot >= 0) {
		fdcache_remove(fs, in);
		fs->held_count++;
	}
	in->slot = CFS_SLOT_HELD;
	pthread_mutex_unlock(&fs->table_lock);
	inode_unpin(fs, in, fd);
	return 0;
}

/*
 * The descriptor cache (fdcache.h).  Owners pin an entry's descriptor for
 * as long as they use it; only unpinned descriptors are evicted.  Eviction
 * is CLOCK: the hand sweeps the slots, an entry pinned since the hand last
 * passed loses its mark and stays, the first unmarked and unpinned one is
 * evicted.  When every slot is pinned (more operations in flight than
 * slots), install refuses and the descriptor stays its caller's alone: the
 * bound holds either way.  Descriptors are closed by the callers, after
 * they release the lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "fdcache.h"

int fdcache_init(struct fdcache *c, uint32_t cap, pthread_mutex_t *lock)
{
	c->slot = calloc(cap, sizeof(*c->slot));
	if (!c->slot)
		return -ENOMEM;
	c->lock = lock;
	c->cap = cap;
	c->used = 0;
	c->hand = 0;
	return 0;
}

void fdcache_destroy(struct fdcache *c)
{
	free(c->slot);
	c->slot = NULL;
}

/* Takes e's descriptor out of the cache; the caller closes or keeps it. */
void fdcache_remove(struct fdcache *c, struct fdc_entry *e)
{
	uint32_t i = (uint32_t)e->slot;

	c->slot[i] = c->slot[--c->used];
	c->slot[i]->slot = (int32_t)i;
	if (c->hand >= c->used)
		c->hand = 0;
	e->slot = FDC_NONE;
}

/* The slot the hand gives up, or -1 when every slot is pinned. */
static int64_t sweep(struct fdcache *c)
{
	for (uint64_t n = 0; n < 2 * (uint64_t)c->cap; n++) {
		struct fdc_entry *v = c->slot[c->hand];
		uint32_t at = c->hand;

		c->hand = (c->hand + 1) % c->used;
		if (v->pins == 0 && !v->used)
			return at;
		v->used = false;
	}
	return -1;
}

/*
 * Caches fd as e's descriptor (e has none).  Returns the descriptor evicted
 * for it, for the caller to close after unlocking, or -1.  If every slot
 * is pinned, e keeps no descriptor and fd stays the caller's.
 */
int fdcache_install(struct fdcache *c, struct fdc_entry *e, int fd)
{
	struct fdc_entry *victim;
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
		victim->slot = FDC_NONE;
	}
	c->slot[at] = e;
	e->slot = (int32_t)at;
	e->fd = fd;
	e->used = true;
	return evicted;
}

/*
 * For a caller whose open failed with err: when the daemon is out of
 * descriptors (EMFILE), the cache gives one back — what callers hold open
 * comes first — and the caller retries.  True if it should.
 */
bool fdcache_shed(struct fdcache *c, int err)
{
	struct fdc_entry *victim;
	int64_t at;
	int fd = -1;

	if (err != EMFILE)
		return false;
	pthread_mutex_lock(c->lock);
	if (c->used > 0 && (at = sweep(c)) >= 0) {
		victim = c->slot[at];
		fd = victim->fd;
		victim->fd = -1;
		fdcache_remove(c, victim);
	}
	pthread_mutex_unlock(c->lock);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

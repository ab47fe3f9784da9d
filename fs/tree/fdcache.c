/*
 * The descriptor cache (fdcache.h).  Owners pin an entry's descriptor for
 * as long as they use it; only unpinned descriptors are evicted.  Eviction
 * is CLOCK, in each pool: the hand sweeps the slots, an entry pinned since
 * the hand last passed loses its mark and stays, the first unmarked and
 * unpinned one is evicted.  When every slot of a pool is pinned (more
 * operations in flight than slots), it refuses and the descriptor stays
 * its caller's alone: the bound holds either way.  Descriptors are closed
 * by the callers, after they release the lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "tree/fdcache.h"

int fdcache_init(struct fdcache *c, uint32_t cap, uint32_t held, pthread_mutex_t *lock)
{
	c->cache = (struct fdc_pool){ .slot = calloc(cap, sizeof(*c->cache.slot)), .cap = cap };
	c->held = (struct fdc_pool){ .slot = calloc(held, sizeof(*c->held.slot)), .cap = held };
	c->lock = lock;
	if (c->cache.slot && c->held.slot)
		return 0;
	fdcache_destroy(c);
	return -ENOMEM;
}

void fdcache_destroy(struct fdcache *c)
{
	free(c->cache.slot);
	free(c->held.slot);
	c->cache.slot = c->held.slot = NULL;
}

static struct fdc_pool *pool_of(struct fdcache *c, const struct fdc_entry *e)
{
	return e->held ? &c->held : &c->cache;
}

/* Takes e's descriptor out of its pool; the caller closes or keeps it. */
void fdcache_remove(struct fdcache *c, struct fdc_entry *e)
{
	struct fdc_pool *p = pool_of(c, e);
	uint32_t i = (uint32_t)e->slot;

	p->slot[i] = p->slot[--p->used];
	p->slot[i]->slot = (int32_t)i;
	if (p->hand >= p->used)
		p->hand = 0;
	e->slot = FDC_NONE;
	e->held = false;
}

/* The slot the hand gives up, or -1 when every slot is pinned. */
static int64_t sweep(struct fdc_pool *p)
{
	for (uint64_t n = 0; n < 2 * (uint64_t)p->cap && p->used; n++) {
		struct fdc_entry *v = p->slot[p->hand];
		uint32_t at = p->hand;

		p->hand = (p->hand + 1) % p->used;
		if (v->pins == 0 && !v->used)
			return at;
		v->used = false;
	}
	return -1;
}

/*
 * Puts e (with descriptor fd, in no pool) into p.  Returns the descriptor
 * evicted for it, for the caller to close after unlocking, or -1; false in
 * *placed if every slot is pinned (e then stays in no pool).
 */
static int place(struct fdc_pool *p, struct fdc_entry *e, int fd, bool *placed)
{
	struct fdc_entry *victim;
	int64_t at;
	int evicted = -1;

	*placed = false;
	if (p->used < p->cap) {
		at = p->used++;
	} else {
		at = sweep(p);
		if (at < 0)
			return -1;
		victim = p->slot[at];
		evicted = victim->fd;
		victim->fd = -1;
		victim->slot = FDC_NONE;
		victim->held = false;
	}
	p->slot[at] = e;
	e->slot = (int32_t)at;
	e->fd = fd;
	e->used = true;
	*placed = true;
	return evicted;
}

/*
 * Caches fd as e's descriptor (e has none).  Returns the descriptor evicted
 * for it, for the caller to close after unlocking, or -1.  If every slot
 * is pinned, e keeps no descriptor and fd stays the caller's.
 */
int fdcache_install(struct fdcache *c, struct fdc_entry *e, int fd)
{
	bool placed;
	int evicted = place(&c->cache, e, fd, &placed);

	if (!placed)
		e->fd = -1;
	return evicted;
}

/*
 * Moves e's descriptor (cached, or with e->fd set by the caller in no
 * pool) into the held pool, where the oldest unpinned entry gives way when
 * it is full.  Returns the descriptor evicted, for the caller to close
 * after unlocking, or -1.  *held says whether e is held now; if not (every
 * held slot pinned), e's descriptor is where it was.
 */
int fdcache_hold(struct fdcache *c, struct fdc_entry *e, bool *held)
{
	bool cached = e->slot >= 0, back;
	int fd = e->fd, evicted;

	*held = e->held;
	if (e->held)
		return -1;
	if (cached)
		fdcache_remove(c, e);
	evicted = place(&c->held, e, fd, held);
	if (*held)
		e->held = true;
	else if (cached)
		place(&c->cache, e, fd, &back);  /* its own slot, just freed */
	return evicted;
}

/*
 * For a caller whose open failed with err: when the daemon is out of
 * descriptors (EMFILE), the cache gives one back — what callers hold open
 * comes first, then what the cache keeps, then the held pool — and the
 * caller retries.  True if it should.
 */
bool fdcache_shed(struct fdcache *c, int err)
{
	struct fdc_pool *p;
	struct fdc_entry *victim;
	int64_t at = -1;
	int fd = -1;

	if (err != EMFILE)
		return false;
	pthread_mutex_lock(c->lock);
	if ((at = sweep(p = &c->cache)) < 0)
		at = sweep(p = &c->held);
	if (at >= 0) {
		victim = p->slot[at];
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

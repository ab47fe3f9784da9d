/*
 * The descriptor cache: a fixed number of backing descriptors shared by
 * every user of the cache, so that the daemon's descriptors do not grow
 * with the number of inodes the kernel remembers.  Two pools of slots,
 * each a pure CLOCK cache: the cache proper, for descriptors that can be
 * reopened at will, and the held pool, for descriptors their owners would
 * rather keep (an object about to lose the name that reaches it) — bounded
 * too, so that no user can make the daemon hold descriptors without end.
 * It knows descriptors and entries, nothing of what they belong to.
 * Callers hold the cache's lock (given at init) around every call but
 * fdcache_shed, which takes it itself.
 */
#ifndef CFS_FDCACHE_H
#define CFS_FDCACHE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* What an owner of descriptors embeds: one per descriptor it may cache. */
struct fdc_entry {
	int fd;          /* cached or held descriptor, or -1 */
	int32_t slot;    /* place in its pool, or FDC_NONE / FDC_HELD */
	uint32_t pins;   /* users of fd: never evicted while pinned */
	bool used;       /* CLOCK: pinned since the hand last passed */
	bool held;       /* slot is in the held pool */
};

#define FDC_NONE (-1)  /* no descriptor */
#define FDC_HELD (-2)  /* a descriptor kept outside both pools by its owner */

struct fdc_pool {
	struct fdc_entry **slot;
	uint32_t cap, used, hand;
};

struct fdcache {
	pthread_mutex_t *lock;      /* the owner's lock, which guards all of this */
	struct fdc_pool cache, held;
};

int fdcache_init(struct fdcache *c, uint32_t cap, uint32_t held, pthread_mutex_t *lock);
void fdcache_destroy(struct fdcache *c);
int fdcache_install(struct fdcache *c, struct fdc_entry *e, int fd);
int fdcache_hold(struct fdcache *c, struct fdc_entry *e, bool *held);
void fdcache_remove(struct fdcache *c, struct fdc_entry *e);
bool fdcache_shed(struct fdcache *c, int err);

#endif /* CFS_FDCACHE_H */

/*
 * The indexes of directories the kernel has forgotten, kept for when it
 * looks them up again.  The kernel forgets a directory whenever its last
 * dentry goes — memory pressure, or any dentry epoch bump, which any user
 * can cause with a rename through another spelling — and rebuilding a
 * large directory's index costs a readdir of all of it.  A parked index is
 * taken back only by an owner of the same (st_dev, st_ino), file handle and
 * flag — a directory that reused the inode number has another handle (its
 * generation), though maybe the same coarse mtime — and is then revalidated
 * by mtime like any other.  A few slots, oldest out first: the memory is
 * what those directories' nodes held while they lived, and under the same
 * bound (dirindex.c), which may empty a parked index under the lot's lock.
 * One lot per process, as the daemon serves one mount.
 */
#include <pthread.h>
#include <string.h>

#include "tree/dirindex.h"

#define PARK_SLOTS 8
#define PARK_HANDLE_MAX 64

static struct {
	pthread_mutex_t lock;
	struct parked {
		dev_t dev;
		ino_t ino;
		bool casefold;
		unsigned handle_len;
		unsigned char handle[PARK_HANDLE_MAX];
		struct cfs_dirindex *index;
	} slot[PARK_SLOTS];
	unsigned next;
} park = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Parks idx (may be NULL), which o's node no longer needs. */
void dirpark_put(const struct dirpark_owner *o, struct cfs_dirindex *idx)
{
	struct parked *p, old;

	if (!idx || o->handle_len > PARK_HANDLE_MAX) {
		dirindex_free(idx);
		return;
	}
	pthread_mutex_lock(&park.lock);
	p = &park.slot[park.next++ % PARK_SLOTS];
	old = *p;
	dirindex_set_owner(old.index, NULL);
	*p = (struct parked){ .dev = o->dev, .ino = o->ino, .casefold = o->casefold,
			      .handle_len = o->handle_len, .index = idx };
	memcpy(p->handle, o->handle, o->handle_len);
	dirindex_set_owner(idx, &park.lock);
	pthread_mutex_unlock(&park.lock);
	dirindex_free(old.index);
}

/* The index parked for o, or NULL; an index of another owner of the same
 * inode number is dropped. */
struct cfs_dirindex *dirpark_take(const struct dirpark_owner *o)
{
	struct cfs_dirindex *idx = NULL;

	pthread_mutex_lock(&park.lock);
	for (unsigned i = 0; i < PARK_SLOTS && !idx; i++) {
		struct parked *p = &park.slot[i];

		if (p->index && p->dev == o->dev && p->ino == o->ino) {
			if (p->casefold == o->casefold && p->handle_len == o->handle_len &&
			    memcmp(p->handle, o->handle, o->handle_len) == 0) {
				idx = p->index;
				dirindex_set_owner(idx, NULL);
			} else
				dirindex_free(p->index);
			p->index = NULL;
		}
	}
	pthread_mutex_unlock(&park.lock);
	return idx;
}

/* At unmount: nothing will look anything up again. */
void dirpark_clear(void)
{
	for (unsigned i = 0; i < PARK_SLOTS; i++) {
		dirindex_free(park.slot[i].index);
		park.slot[i].index = NULL;
	}
}

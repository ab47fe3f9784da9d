/*
 * The spellings a directory of the view handed out to the kernel other
 * than the ones it shows: positive entries for a name looked up by another
 * spelling (a game asking for textures/FOO.DDS where Textures/foo.dds is
 * shown), and misses.  The kernel keeps one dentry per spelling, and only
 * the daemon knows which of them belong to a group whose winner a restack
 * changes: with their spellings recorded, each is told to forget its very
 * dentry (restack.c), where the kernel's epoch would expire every dentry
 * of the mount, the whole game's.  A record holds at most HANDED_MAX
 * spellings per directory, each kept once; beyond that it is incomplete,
 * and a change falls back to the epoch (dentries.c, dent_behind).  Any
 * bump of the epoch empties it: the kernel keeps nothing from before.
 */
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "view/view.h"

/* 4,096 spellings, about 40 bytes each with the spelling. */
#define HANDED_MAX 4096

struct handed {
	uint64_t spelling;   /* the keyed hash of its bytes: each kept once */
	uint32_t key;        /* its group's (listing_key) */
	uint32_t name;       /* in names */
};

struct view_handed {
	uint64_t epoch;      /* the mount's epoch it was recorded in */
	struct handed *e;
	uint32_t n, cap;
	uint32_t *slot;      /* by spelling: entry + 1, 0 empty */
	uint32_t nslots;     /* a power of two, at least twice n */
	char *names;
	uint32_t nlen, ncap;
	bool full;           /* a spelling could not be recorded */
};

void handed_free(struct view_handed *h)
{
	if (!h)
		return;
	free(h->e);
	free(h->slot);
	free(h->names);
	free(h);
}

/* dir's record for the current epoch, emptied if the epoch moved; NULL if
 * none could be made (node lock). */
static struct view_handed *current(struct view *v, struct view_node *dir)
{
	struct view_handed *h = dir->d->handed;
	uint64_t now = atomic_load(&v->dentries.now);

	if (h && h->epoch != now) {
		handed_free(h);
		h = dir->d->handed = NULL;
	}
	if (!h && (h = dir->d->handed = calloc(1, sizeof(*h))))
		h->epoch = now;
	return h;
}

static bool rehash(struct view_handed *h, uint32_t nslots)
{
	uint32_t *s = calloc(nslots, sizeof(*s));

	if (!s)
		return false;
	for (uint32_t i = 0; i < h->n; i++) {
		uint32_t k = (uint32_t)h->e[i].spelling & (nslots - 1);

		while (s[k])
			k = (k + 1) & (nslots - 1);
		s[k] = i + 1;
	}
	free(h->slot);
	h->slot = s;
	h->nslots = nslots;
	return true;
}

/*
 * The kernel may now keep a dentry of dir under the spelling given (a
 * positive of another spelling than the one shown, or a miss): recorded
 * (node lock).
 */
void handed_add(struct view *v, struct view_node *dir, struct cfs_name *given)
{
	struct view_handed *h = current(v, dir);
	uint64_t sp;
	uint32_t k;

	if (!h || h->full)
		return;
	sp = names_spelling(&v->names, given);
	if (h->nslots) {
		for (k = (uint32_t)sp & (h->nslots - 1); h->slot[k]; k = (k + 1) & (h->nslots - 1)) {
			const struct handed *x = &h->e[h->slot[k] - 1];

			if (x->spelling == sp && strcmp(h->names + x->name, given->s) == 0)
				return;
		}
	}
	if (h->n == HANDED_MAX || grow_array((void **)&h->e, &h->cap, sizeof(*h->e), h->n + 1) < 0 ||
	    grow_array((void **)&h->names, &h->ncap, 1, h->nlen + (uint32_t)given->len + 1) < 0 ||
	    (2 * (h->n + 1) > h->nslots && !rehash(h, h->nslots ? 2 * h->nslots : 32))) {
		h->full = true;
		return;
	}
	memcpy(h->names + h->nlen, given->s, given->len);
	h->names[h->nlen + given->len] = '\0';
	h->e[h->n] = (struct handed){ .spelling = sp, .key = listing_key(&v->names, given),
				      .name = h->nlen };
	h->nlen += (uint32_t)given->len + 1;
	for (k = (uint32_t)sp & (h->nslots - 1); h->slot[k]; k = (k + 1) & (h->nslots - 1))
		;
	h->slot[k] = ++h->n;
}

/* Whether dir's record holds every spelling it handed out (node lock). */
bool handed_complete(struct view *v, struct view_node *dir)
{
	struct view_handed *h = current(v, dir);

	return h && !h->full;
}

static int key_order(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/*
 * Calls fn with each spelling of dir's record whose group's key is one of
 * keys (n of them, sorted here): the dentries of the groups whose winner
 * changed.  Node lock.
 */
void handed_each(struct view *v, struct view_node *dir, uint32_t *keys, size_t n,
		      void (*fn)(void *arg, const char *spelling), void *arg)
{
	struct view_handed *h = current(v, dir);

	if (!h || !n)
		return;
	qsort(keys, n, sizeof(*keys), key_order);
	for (uint32_t i = 0; i < h->n; i++)
		if (bsearch(&h->e[i].key, keys, n, sizeof(*keys), key_order))
			fn(arg, h->names + h->e[i].name);
}

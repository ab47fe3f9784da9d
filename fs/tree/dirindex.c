/*
 * The per-directory index: every stored name of one backing directory,
 * chained in buckets by the directory rule's name hash, so that an inexact
 * lookup costs one hash and a few comparisons whatever the directory's size.
 * Names equal under the rule (possible only when made behind the daemon's
 * back) form one group, chained once in its bucket: a lookup compares the
 * name with each group, not each variant, so 32,768 stored spellings of one
 * name cost it one comparison, and the group keeps its smallest member at
 * hand for the answer.
 *
 * The index is built lazily from a readdir of the backing directory, kept
 * current by the operations that change the directory through the mount
 * (dirindex_add/remove, then dirindex_stamp), and rebuilt whenever the
 * backing directory's mtime differs from the stamp recorded when the index
 * was last known to be complete — that is how changes made directly in the
 * backing tree are noticed at the next lookup.  Only the mtime: every change
 * to a directory's entries sets it, while its ctime also moves for a chmod,
 * a chown or an xattr, which leave the entries as they were and must not
 * cost a rebuild.  (Someone who changes the entries in the backing tree and
 * then sets the mtime back hides the change until the next one.)
 *
 * Callers hold the directory's lock.
 *
 * The memory of all indexes, parked ones included, is bounded
 * (-o index_mem, fs/tree/DESIGN.md "Lookups"): indexes are a cache.  Every index
 * is on one ring, and when building or growing one takes the total over the
 * bound, a CLOCK hand goes round the ring emptying indexes not used since
 * it last passed — each under its owner's lock (the directory's, or the
 * parking lot's), taken with trylock so that the hand never waits for a
 * directory (nor deadlocks with one: the caller holds its own).  An emptied
 * index is incomplete, so its directory's next inexact lookup rebuilds it.
 * The index in use is never emptied under its user, so a directory whose
 * index alone exceeds the bound still works, at the bound plus its size.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/lowlevel.h"
#include "common/util.h"
#include "tree/dirindex.h"
#include "tree/super.h"

struct entry {
	struct entry *next;     /* the next group in the bucket (group heads) */
	struct entry *sib;      /* the next member of this entry's group */
	struct entry *least;    /* group heads: the smallest member in byte order */
	uint64_t hash;
	uint32_t len;           /* at most NAME_MAX */
	bool heap;              /* malloc'd by dirindex_add, not in the arena */
	bool unreachable;       /* the rule cannot hash it (rebuild only) */
	char name[];
};

/*
 * A rebuild takes its entries from an arena, not one malloc per name: a
 * million-entry directory would otherwise spend much of its build in the
 * allocator.  Chunks double from ARENA_FIRST up to ARENA_MAX, so a small
 * directory's index stays small.  Entries added later through the mount
 * are malloc'd one by one so that removing them gives the memory back;
 * arena entries are freed with the whole arena at the next rebuild.
 */
#define ARENA_FIRST 4096
#define ARENA_MAX (1024 * 1024)

struct chunk {
	struct chunk *next;
	size_t used, cap;
	max_align_t data[];
};

struct cfs_dirindex {
	struct chunk *arena;    /* the last rebuild's entries */
	struct entry **buckets;
	size_t size;            /* buckets, a power of two (0: not built) */
	size_t count;
	bool complete;          /* false after an allocation failure */
	size_t collisions;      /* fold-equal names met since the last rebuild */
	size_t unreachable;     /* names the rule refuses (strict), likewise */
	size_t rebuilds;        /* readdirs of the whole directory, for tests */
	bool quiet;             /* findings are not logged; the first is kept: */
	char *first;            /* what it found first, or NULL */
	struct timespec mtime;  /* backing directory when last complete */
	bool mtime_read;        /* read with the entries, not stamped after our change */
	size_t bytes;           /* what it holds, allocated */
	atomic_bool used;       /* CLOCK: used since the hand last passed */
	pthread_mutex_t *owner; /* the lock it is used under, or NULL: ring */
	struct cfs_dirindex *rnext, *rprev; /* the ring: ring lock */
};

/* Every index, for the bound on their memory. */
static struct {
	pthread_mutex_t lock;
	struct cfs_dirindex *hand;  /* the next index to look at; NULL: none */
	atomic_size_t bytes;        /* all indexes' */
	size_t limit;
	atomic_size_t evictions;
} ring = { .lock = PTHREAD_MUTEX_INITIALIZER, .limit = CFS_INDEX_MEM_DEFAULT };

static void account(struct cfs_dirindex *idx, size_t add, size_t sub)
{
	idx->bytes += add;
	idx->bytes -= sub;
	atomic_fetch_add(&ring.bytes, add);
	atomic_fetch_sub(&ring.bytes, sub);
}

/* The bound on all indexes' memory (-o index_mem); set before mounting. */
void dirindex_set_limit(size_t bytes)
{
	ring.limit = bytes;
}

/* For the stats xattr: memory in use, the bound, indexes emptied for it. */
void dirindex_memory(size_t *bytes, size_t *limit, size_t *evictions)
{
	*bytes = atomic_load(&ring.bytes);
	*limit = ring.limit;
	*evictions = atomic_load(&ring.evictions);
}

/* A new, empty index, used under the lock owner (see dirindex_set_owner). */
struct cfs_dirindex *dirindex_new(pthread_mutex_t *owner)
{
	struct cfs_dirindex *idx = calloc(1, sizeof(struct cfs_dirindex));

	if (!idx)
		return NULL;
	idx->owner = owner;
	account(idx, sizeof(*idx), 0);
	pthread_mutex_lock(&ring.lock);
	if (ring.hand) {
		idx->rnext = ring.hand;
		idx->rprev = ring.hand->rprev;
		idx->rprev->rnext = idx;
		ring.hand->rprev = idx;
	} else {
		ring.hand = idx->rnext = idx->rprev = idx;
	}
	pthread_mutex_unlock(&ring.lock);
	return idx;
}

/*
 * Hands idx to another lock (a directory's, the parking lot's), or to none
 * (NULL: the hand leaves it alone).  The caller holds the old owner, or
 * there was none.
 */
void dirindex_set_owner(struct cfs_dirindex *idx, pthread_mutex_t *owner)
{
	if (!idx)
		return;
	pthread_mutex_lock(&ring.lock);
	idx->owner = owner;
	pthread_mutex_unlock(&ring.lock);
}

static void clear(struct cfs_dirindex *idx)
{
	for (size_t i = 0; i < idx->size; i++) {
		struct entry *g = idx->buckets[i], *gnext, *e, *next;

		for (; g; g = gnext) {
			gnext = g->next;
			for (e = g; e; e = next) {
				next = e->sib;
				if (e->heap) {
					account(idx, 0, sizeof(*e) + e->len + 1);
					free(e);
				}
			}
		}
	}
	for (struct chunk *c = idx->arena, *next; c; c = next) {
		next = c->next;
		account(idx, 0, sizeof(*c) + c->cap);
		free(c);
	}
	idx->arena = NULL;
	account(idx, 0, idx->size * sizeof(*idx->buckets));
	free(idx->buckets);
	idx->buckets = NULL;
	idx->size = idx->count = 0;
	idx->complete = false;
}

/* Frees idx, whose owner the caller holds (or it has none). */
void dirindex_free(struct cfs_dirindex *idx)
{
	if (!idx)
		return;
	pthread_mutex_lock(&ring.lock);
	if (idx->rnext == idx) {
		ring.hand = NULL;
	} else {
		idx->rprev->rnext = idx->rnext;
		idx->rnext->rprev = idx->rprev;
		if (ring.hand == idx)
			ring.hand = idx->rnext;
	}
	pthread_mutex_unlock(&ring.lock);
	clear(idx);
	account(idx, 0, sizeof(*idx));
	free(idx->first);
	free(idx);
}

/*
 * Brings all indexes' memory back under the bound if it went over, by
 * emptying indexes other than self (whose owner the caller holds) that
 * were not used since the hand last passed and whose owner is free.  Two
 * turns of the ring at most: one to take the second chances.
 */
static void trim(struct cfs_dirindex *self)
{
	size_t n = 0;

	if (atomic_load(&ring.bytes) <= ring.limit)
		return;
	pthread_mutex_lock(&ring.lock);
	for (struct cfs_dirindex *i = ring.hand; i; i = i->rnext) {
		n++;
		if (i->rnext == ring.hand)
			break;
	}
	for (size_t k = 0; k < 2 * n && atomic_load(&ring.bytes) > ring.limit; k++) {
		struct cfs_dirindex *idx = ring.hand;

		ring.hand = idx->rnext;
		if (idx == self || !idx->owner || idx->bytes <= sizeof(*idx))
			continue;
		if (atomic_exchange(&idx->used, false))
			continue;
		if (pthread_mutex_trylock(idx->owner) != 0)
			continue;
		clear(idx);
		atomic_fetch_add(&ring.evictions, 1);
		pthread_mutex_unlock(idx->owner);
	}
	pthread_mutex_unlock(&ring.lock);
}

static bool grow(struct cfs_dirindex *idx)
{
	size_t size = idx->size ? idx->size * 2 : 64;
	struct entry **b = calloc(size, sizeof(*b));

	if (!b)
		return false;
	account(idx, size * sizeof(*b), idx->size * sizeof(*b));
	for (size_t i = 0; i < idx->size; i++) {
		struct entry *e = idx->buckets[i], *next;

		for (; e; e = next) {
			next = e->next;  /* groups move whole: members hang from heads */
			e->next = b[e->hash & (size - 1)];
			b[e->hash & (size - 1)] = e;
		}
	}
	free(idx->buckets);
	idx->buckets = b;
	idx->size = size;
	return true;
}

static struct entry *arena_entry(struct cfs_dirindex *idx, size_t len)
{
	size_t n = (sizeof(struct entry) + len + 1 + _Alignof(struct entry) - 1) &
		   ~(_Alignof(struct entry) - 1);
	struct chunk *c = idx->arena;
	struct entry *e;

	if (!c || c->cap - c->used < n) {
		size_t cap = c ? c->cap * 2 : ARENA_FIRST;

		if (cap > ARENA_MAX)
			cap = ARENA_MAX;
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		account(idx, sizeof(*c) + cap, 0);
		c->next = idx->arena;
		c->used = 0;
		c->cap = cap;
		idx->arena = c;
	}
	e = (struct entry *)((char *)c->data + c->used);
	c->used += n;
	e->heap = false;
	return e;
}

/* Findings logged one by one per rebuild; the rest are only counted. */
#define FINDINGS_LOGGED 8

static bool log_finding(const struct cfs_dirindex *idx)
{
	return !idx->quiet && idx->collisions + idx->unreachable <= FINDINGS_LOGGED;
}

/* A quiet index keeps only its first finding, for its user to report. */
static void keep_first(struct cfs_dirindex *idx, const char *a, const char *b)
{
	if (!idx->quiet || idx->first)
		return;
	if (b ? asprintf(&idx->first, "\"%s\" and \"%s\" are equal under folding", a, b) < 0
	      : asprintf(&idx->first, "\"%s\" cannot be folded", a) < 0)
		idx->first = NULL;
}

/*
 * Fold-equal stored names can only come from outside: say so on insert,
 * once per new name, and not thousands of times for a hostile directory.
 */
static void report_collision(struct cfs_dirindex *idx, const struct entry *g,
			     const struct entry *e)
{
	idx->collisions++;
	keep_first(idx, g->name, e->name);
	if (log_finding(idx))
		fuse_log(FUSE_LOG_WARNING,
			 "casefoldfs: stored names \"%s\" and \"%s\" are equal under "
			 "folding; inexact lookups use the smaller\n", g->name, e->name);
}

/* The group in bucket b whose names match name under the rule, or NULL. */
static struct entry **find_group(const struct cfs_dirindex *idx, const struct cfs_names *nm,
				 enum cfs_rule rule, uint64_t hash, const char *name, size_t len)
{
	struct entry **p = &idx->buckets[hash & (idx->size - 1)];

	for (; *p; p = &(*p)->next)
		if ((*p)->hash == hash && names_match(nm, rule, name, len, (*p)->name, (*p)->len))
			return p;
	return NULL;
}

/* The order of the documented choice: memcmp, shorter first on a common prefix. */
static bool smaller(const struct entry *a, const struct entry *b)
{
	return strcmp(a->name, b->name) < 0;
}

static struct entry *least_of(struct entry *g)
{
	struct entry *least = g;

	for (struct entry *e = g->sib; e; e = e->sib)
		if (smaller(e, least))
			least = e;
	return least;
}

/* Names this rule cannot hash (strict, invalid UTF-8) are unreachable. */
static void report_unreachable(struct cfs_dirindex *idx, const char *name)
{
	idx->unreachable++;
	keep_first(idx, name, NULL);
	if (log_finding(idx))
		fuse_log(FUSE_LOG_WARNING, "casefoldfs: stored name \"%s\" is not valid "
			 "UTF-8 and cannot be reached (strict_encoding)\n", name);
}

/* Chains e, whose bucket array has room for it: into its group if any. */
static void link_entry(struct cfs_dirindex *idx, const struct cfs_names *nm,
		       enum cfs_rule rule, struct entry *e)
{
	struct entry **p = find_group(idx, nm, rule, e->hash, e->name, e->len), *g;

	idx->count++;
	if (p) {
		g = *p;
		report_collision(idx, g, e);
		e->sib = g->sib;
		g->sib = e;
		if (smaller(e, g->least))
			g->least = e;
		return;
	}
	e->sib = NULL;
	e->least = e;
	e->next = idx->buckets[e->hash & (idx->size - 1)];
	idx->buckets[e->hash & (idx->size - 1)] = e;
}

static void insert(struct cfs_dirindex *idx, const struct cfs_names *nm, enum cfs_rule rule,
		   struct cfs_name *name)
{
	size_t len = name->len;
	struct entry *e;

	if (names_hash(nm, rule, name) < 0) {
		report_unreachable(idx, name->s);
		return;
	}
	if (idx->count >= idx->size && !grow(idx))
		goto nomem;
	e = malloc(sizeof(*e) + len + 1);
	if (!e)
		goto nomem;
	account(idx, sizeof(*e) + len + 1, 0);
	e->heap = true;
	e->hash = name->hash;
	e->len = (uint32_t)len;
	memcpy(e->name, name->s, len);
	e->name[len] = '\0';
	link_entry(idx, nm, rule, e);
	trim(idx);
	return;
nomem:
	/* An incomplete index could hide a name: force a rebuild next time. */
	idx->complete = false;
}

static bool stamps_equal(const struct cfs_dirindex *idx, const struct stat *st)
{
	return idx->mtime.tv_sec == st->st_mtim.tv_sec &&
	       idx->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

static void set_stamps(struct cfs_dirindex *idx, const struct stat *st, bool read)
{
	idx->mtime = st->st_mtim;
	idx->mtime_read = read;
}

/*
 * Reads the whole backing directory into a fresh index: first every name
 * and its hash into the arena, in readdir order, then, with the bucket
 * array sized once for them (as many buckets as names, a power of two, at
 * least 64: what growing would reach), chains them in that same order, so
 * that chains and findings are those of inserting one name at a time.
 */
static int rebuild(struct cfs_dirindex *idx, const struct cfs_names *nm, enum cfs_rule rule,
		   int dfd, bool root, const struct stat *st)
{
	struct entry *first = NULL, **tail = &first, *e, *next;
	size_t reachable = 0, size = 64;
	struct dirent *d;
	DIR *dp;

	clear(idx);
	idx->collisions = idx->unreachable = 0;
	idx->rebuilds++;
	dp = fd_opendir(dfd);
	if (!dp)
		return -errno;
	idx->complete = true;
	while ((d = readdir(dp)) != NULL) {
		size_t len;

		struct cfs_name n;

		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0 ||
		    (root && super_reserved(nm, rule, d->d_name)))
			continue;
		len = strlen(d->d_name);
		e = arena_entry(idx, len);
		if (!e) {
			idx->complete = false;
			break;
		}
		e->len = (uint32_t)len;
		memcpy(e->name, d->d_name, len + 1);
		n = names_name(e->name);
		e->unreachable = names_hash(nm, rule, &n) < 0;
		e->hash = n.hash;
		if (!e->unreachable)
			reachable++;
		e->next = NULL;
		*tail = e;
		tail = &e->next;
	}
	closedir(dp);
	while (size < reachable)
		size *= 2;
	if (idx->complete && !(idx->buckets = calloc(size, sizeof(*idx->buckets))))
		idx->complete = false;
	if (!idx->complete)
		return -ENOMEM;
	idx->size = size;
	account(idx, size * sizeof(*idx->buckets), 0);
	for (e = first; e; e = next) {
		next = e->next;
		if (e->unreachable)
			report_unreachable(idx, e->name);
		else
			link_entry(idx, nm, rule, e);
	}
	if (!idx->quiet && !log_finding(idx))
		fuse_log(FUSE_LOG_WARNING, "casefoldfs: in all, %zu stored names equal under "
			 "folding to another and %zu unreachable in one directory\n",
			 idx->collisions, idx->unreachable);
	set_stamps(idx, st, true);
	trim(idx);
	return 0;
}

/*
 * Makes the index match the backing directory, whose current attributes
 * are st, rebuilding it if stale.
 */
int dirindex_refresh(struct cfs_dirindex *idx, const struct cfs_names *nm, enum cfs_rule rule,
		     int dfd, bool root, const struct stat *st)
{
	atomic_store_explicit(&idx->used, true, memory_order_relaxed);
	if (dirindex_current(idx, st))
		return 0;
	return rebuild(idx, nm, rule, dfd, root, st);
}

/*
 * Finds the stored name matching name under the rule.  Several stored names
 * can match only when they were created behind the daemon's back; the
 * documented choice is then the exact bytes if stored (dir_resolve tries
 * them: the index says *several), else the smallest in byte order (memcmp,
 * shorter first on a common prefix), which does not depend on readdir order.
 */
int dirindex_find(const struct cfs_dirindex *idx, const struct cfs_names *nm,
		  enum cfs_rule rule, struct cfs_name *name, char *stored, bool *several)
{
	struct entry **p, *best;
	int err;

	*several = false;
	err = names_hash(nm, rule, name);
	if (err < 0)
		return err;
	if (idx->size == 0 ||
	    !(p = find_group(idx, nm, rule, name->hash, name->s, name->len)))
		return -ENOENT;
	best = (*p)->least;
	*several = (*p)->sib != NULL;
	memcpy(stored, best->name, best->len + 1);
	return 0;
}

void dirindex_add(struct cfs_dirindex *idx, const struct cfs_names *nm, enum cfs_rule rule,
		  struct cfs_name *name)
{
	if (idx->complete)
		insert(idx, nm, rule, name);
}

void dirindex_remove(struct cfs_dirindex *idx, const struct cfs_names *nm, enum cfs_rule rule,
		     struct cfs_name *name)
{
	size_t len = name->len;
	struct entry **p, **q, *g, *e;

	if (idx->size == 0 || names_hash(nm, rule, name) < 0 ||
	    !(p = find_group(idx, nm, rule, name->hash, name->s, len)))
		return;
	g = *p;
	for (q = p; *q; q = &(*q)->sib)
		if ((*q)->len == len && memcmp((*q)->name, name->s, len) == 0)
			break;
	e = *q;
	if (!e)
		return;
	if (e == g) {
		/* The head goes: the next member, if any, heads the group. */
		*p = g->sib;
		if (g->sib) {
			g->sib->next = g->next;
			g->sib->least = least_of(g->sib);
		} else {
			*p = g->next;
		}
	} else {
		*q = e->sib;
		if (g->least == e)
			g->least = least_of(g);
	}
	if (e->heap) {
		account(idx, 0, sizeof(*e) + e->len + 1);
		free(e);
	}
	idx->count--;
}

/* Whether the index still describes the directory whose attributes are st. */
bool dirindex_current(const struct cfs_dirindex *idx, const struct stat *st)
{
	return idx->complete && stamps_equal(idx, st);
}

/*
 * Called after the daemon changed the directory and updated the index: the
 * new timestamps st are ours, not a sign of an outside change.
 */
void dirindex_stamp(struct cfs_dirindex *idx, const struct stat *st)
{
	if (idx->complete)
		set_stamps(idx, st, false);
}

/*
 * Whether the stamp was read before the entries were, by the rebuild, and
 * not taken after a change of ours: then, where a ctime once read is never
 * given to the next change (fine_ctime), every change made since shows as
 * another mtime, and word of one from the notice reader adds nothing.
 */
bool dirindex_stamp_read(const struct cfs_dirindex *idx)
{
	return idx->complete && idx->mtime_read;
}

/*
 * What a lookup can cost: the longest bucket chain (of groups) bounds the
 * comparisons of one inexact lookup.  Read through the index xattr (ops_file.c), so tests
 * can check that chosen names do not pile up in one bucket.
 */
int dirindex_stats(const struct cfs_dirindex *idx, char *buf, size_t len)
{
	size_t longest = 0;

	for (size_t i = 0; i < idx->size; i++) {
		size_t n = 0;

		for (const struct entry *e = idx->buckets[i]; e; e = e->next)
			n++;
		if (n > longest)
			longest = n;
	}
	return snprintf(buf, len, "names %zu buckets %zu longest %zu collisions %zu unreachable %zu "
			"rebuilds %zu", idx->count, idx->size, longest, idx->collisions,
			idx->unreachable, idx->rebuilds);
}

/* Stored names equal under the rule to another, plus those it cannot hash. */
size_t dirindex_findings(const struct cfs_dirindex *idx)
{
	return idx->collisions + idx->unreachable;
}

/*
 * Logs nothing of what it finds, keeping the first finding for the caller
 * to report (dirindex_first): for a check a user can repeat at will.
 */
void dirindex_quiet(struct cfs_dirindex *idx)
{
	idx->quiet = true;
}

/* A quiet index's first finding, described, or NULL. */
const char *dirindex_first(const struct cfs_dirindex *idx)
{
	return idx->first;
}

void dirindex_stale(struct cfs_dirindex *idx)
{
	idx->complete = false;
}

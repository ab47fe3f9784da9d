/*
 * A directory's merged index.  Entries live in one array (an entry's index
 * is its readdir offset, so offsets stay valid as entries come and go),
 * chained by bucket of the fold rule's hash; spellings live in one arena.
 * Names equal under the fold rule form a group, and a group is one entry,
 * as in a +F directory of ext4 (fs/view/DESIGN.md, "One name per group").  The
 * directory is read part by part, top layer first: a layer may hold the
 * directory more than once (twins: Textures/ and textures/), and then
 * holds it as one, its parts read in order of their spelling.  How a group
 * is merged, as overlayfs merges a name but by group:
 *  - the first layer holding a name of the group gives the entry: a
 *    directory if that layer holds one, else the file of the smallest
 *    spelling (bytewise; between equal spellings, the one in the part read
 *    first), else the group's whiteout;
 *  - below a directory, every directory of the group merges into it, each
 *    layer's twins included, until a layer holds a non-directory or a
 *    whiteout of the group, which closes it for the layers below that
 *    one (an upper directory that is opaque merges nothing: merge_seal);
 *  - whatever else of the group a layer holds is hidden.
 * The spelling shown is the top layer's smallest, of the kind shown; a
 * directory's inode number is that of its bottom layer's smallest
 * spelling, which copying it up leaves unchanged.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "view/merge.h"

struct merge_part {
	uint32_t name;    /* the directory's spelling in its layer */
	uint32_t next;    /* the next part (ino_first says which is first) */
	uint16_t layer;
	uint16_t from;    /* the part of the directory read that holds it */
};

struct merge {
	struct merge_entry *e;
	uint32_t n, cap;           /* entries used (holes included), allocated */
	uint32_t live;             /* entries shown */
	uint32_t *bucket;          /* heads of the hash chains */
	uint32_t nbuckets;         /* a power of two */
	struct merge_part *p;
	uint32_t np, pcap;
	char *arena;
	size_t alen, acap;
	unsigned layer;            /* the layer being fed (merge_feed) */
	uint32_t *closing;         /* entries MERGE_CLOSING in that layer */
	uint32_t nclosing, ccap;
	struct listing **kept;  /* by part: the lower parts' listings */
	uint32_t nkept;
	size_t kept_bytes;
	atomic_size_t *total;      /* every index's memory (merge_new) */
	size_t counted;            /* this one's share of it */
};

/* A new index, whose memory is counted in *total as it grows. */
struct merge *merge_new(atomic_size_t *total)
{
	struct merge *m = calloc(1, sizeof(struct merge));

	if (m)
		m->total = total;
	return m;
}

/* Brings m's share of the total up to date, after it grew. */
static void settle(struct merge *m)
{
	size_t now = merge_memory(m);

	if (now >= m->counted)
		atomic_fetch_add(m->total, now - m->counted);
	else
		atomic_fetch_sub(m->total, m->counted - now);
	m->counted = now;
}

void merge_free(struct merge *m)
{
	if (!m)
		return;
	atomic_fetch_sub(m->total, m->counted);
	free(m->e);
	free(m->bucket);
	free(m->p);
	free(m->arena);
	free(m->closing);
	for (uint32_t i = 0; i < m->nkept; i++)
		listing_free(m->kept[i]);
	free(m->kept);
	free(m);
}

static int rehash(struct merge *m, uint32_t nbuckets)
{
	uint32_t *b = malloc((size_t)nbuckets * sizeof(*b));

	if (!b)
		return -ENOMEM;
	memset(b, 0xff, (size_t)nbuckets * sizeof(*b));
	for (uint32_t i = 0; i < m->n; i++) {
		if (m->e[i].flags & MERGE_FREE)
			continue;
		uint32_t h = m->e[i].hash & (nbuckets - 1);

		m->e[i].next = b[h];
		b[h] = i;
	}
	free(m->bucket);
	m->bucket = b;
	m->nbuckets = nbuckets;
	return 0;
}

static int64_t store(struct merge *m, const char *s, size_t len)
{
	size_t off = m->alen;

	if (m->alen + len + 1 > m->acap) {
		size_t ncap = m->acap ? m->acap * 2 : 1024;
		char *na;

		while (ncap < m->alen + len + 1)
			ncap *= 2;
		if (ncap > UINT32_MAX || !(na = realloc(m->arena, ncap)))
			return -ENOMEM;
		m->arena = na;
		m->acap = ncap;
	}
	memcpy(m->arena + off, s, len);
	m->arena[off + len] = '\0';
	m->alen += len + 1;
	return (int64_t)off;
}

/* One object of a group, as read from a part or made by the view. */
struct member {
	struct cfs_name *name;
	unsigned layer, from;
	unsigned char type;
	uint64_t ino;
	bool whiteout, dotwh;
};

static uint32_t add_keyed(struct merge *m, const struct member *o, uint32_t key, unsigned flags)
{
	struct merge_entry *e;
	int64_t off = 0;
	uint32_t h;
	bool fail = grow_array((void **)&m->e, &m->cap, sizeof(*m->e), m->n + 1) < 0 ||
		    (m->n >= m->nbuckets && rehash(m, m->nbuckets ? m->nbuckets * 2 : 16) < 0) ||
		    (off = store(m, o->name->s, o->name->len)) < 0;

	settle(m);
	if (fail)
		return MERGE_NONE;
	e = &m->e[m->n];
	*e = (struct merge_entry){ .hash = key, .ino = o->ino, .name = (uint32_t)off,
				   .lower = MERGE_NONE, .layer = (uint16_t)o->layer,
				   .from = (uint16_t)o->from, .type = o->type,
				   .flags = (uint8_t)flags };
	h = key & (m->nbuckets - 1);
	e->next = m->bucket[h];
	m->bucket[h] = m->n;
	if (!(flags & MERGE_WHITEOUT))
		m->live++;
	return m->n++;
}

/* Adds name's group, shown from part `from` of layer; MERGE_NONE when
 * memory runs out.  The group has no entry (merge_find). */
uint32_t merge_add(struct merge *m, const struct cfs_names *nm, struct cfs_name *name,
		   unsigned layer, unsigned from, unsigned char type, uint64_t ino,
		   unsigned flags)
{
	struct member o = { .name = name, .layer = layer, .from = from, .type = type, .ino = ino };

	return add_keyed(m, &o, listing_key(nm, name), flags);
}

/* The first entry of key's bucket; MERGE_NONE where there is none. */
static uint32_t chain(const struct merge *m, uint32_t key)
{
	return m->nbuckets ? m->bucket[key & (m->nbuckets - 1)] : MERGE_NONE;
}

/* The entry of name's group (key: its hash), shown or a whiteout. */
static uint32_t group(const struct merge *m, const struct cfs_names *nm,
		      const struct cfs_name *name, uint32_t key)
{
	for (uint32_t i = chain(m, key); i != MERGE_NONE; i = m->e[i].next) {
		const char *s = m->arena + m->e[i].name;

		if (m->e[i].hash == key && names_match(nm, CFS_FOLD, s, strlen(s), name->s, name->len))
			return i;
	}
	return MERGE_NONE;
}

/* The shown entry of name's group, or MERGE_NONE (*whiteout: the group's
 * entry when it is a whiteout, else MERGE_NONE). */
uint32_t merge_find(const struct merge *m, const struct cfs_names *nm, struct cfs_name *name,
		    uint32_t *whiteout)
{
	uint32_t i = group(m, nm, name, listing_key(nm, name));
	bool wh = i != MERGE_NONE && (m->e[i].flags & MERGE_WHITEOUT);

	if (whiteout)
		*whiteout = wh ? i : MERGE_NONE;
	return wh ? MERGE_NONE : i;
}

/* merge_find for the spelling s, whose key is known (an entry's of
 * another index of the directory: a restack compares the two). */
uint32_t merge_find_key(const struct merge *m, const struct cfs_names *nm, const char *s,
			uint32_t key)
{
	struct cfs_name name = names_name(s);
	uint32_t i = group(m, nm, &name, key);

	return i != MERGE_NONE && (m->e[i].flags & MERGE_WHITEOUT) ? MERGE_NONE : i;
}

/*
 * Whether directory a (layer, spelling) gives the merged directory's inode
 * number before directory b: the bottom layer's, and in it the smallest
 * spelling (the part read first between equal ones: b, read before).
 */
static bool ino_before(unsigned alayer, const char *a, unsigned blayer, const char *b)
{
	return alayer != blayer ? alayer > blayer : strcmp(a, b) < 0;
}

/*
 * Merges the directory (layer, from, spelling at off, number ino) into
 * entry idx.  The entry's first part is kept the one whose number the
 * directory shows (ino_before), so each new part is compared with the
 * entry and that one only: a layer holding thousands of twins costs as
 * many steps, not their square.
 */
static int add_part(struct merge *m, uint32_t idx, unsigned layer, unsigned from, uint32_t off,
		    uint64_t ino)
{
	struct merge_entry *e = &m->e[idx];
	struct merge_part *head;
	const char *s = m->arena + off;
	bool first;

	if (grow_array((void **)&m->p, &m->pcap, sizeof(*m->p), m->np + 1) < 0)
		return -ENOMEM;
	settle(m);
	e = &m->e[idx];
	head = e->lower == MERGE_NONE ? NULL : &m->p[e->lower];
	first = !head || ino_before(layer, s, head->layer, m->arena + head->name);
	m->p[m->np] = (struct merge_part){ .name = off, .layer = (uint16_t)layer,
					   .from = (uint16_t)from,
					   .next = first ? e->lower : head->next };
	if (first) {
		if (ino_before(layer, s, e->layer, m->arena + e->name))
			e->ino = ino;
		e->lower = m->np;
	} else {
		head->next = m->np;
	}
	m->np++;
	return 0;
}

/* Entry idx closes once the layer being read is read (a file or whiteout
 * of its group there, beside directories that still merge). */
static int close_later(struct merge *m, uint32_t idx)
{
	if (m->e[idx].flags & (MERGE_CLOSING | MERGE_CLOSED))
		return 0;
	if (grow_array((void **)&m->closing, &m->ccap, sizeof(uint32_t), m->nclosing + 1) < 0)
		return -ENOMEM;
	m->e[idx].flags |= MERGE_CLOSING;
	m->closing[m->nclosing++] = idx;
	return 0;
}

/* The layer read is read: what was to close, closes. */
void merge_finish(struct merge *m)
{
	for (uint32_t i = 0; i < m->nclosing; i++) {
		struct merge_entry *e = &m->e[m->closing[i]];

		e->flags = (uint8_t)((e->flags & ~MERGE_CLOSING) | MERGE_CLOSED);
	}
	m->nclosing = 0;
}

/* Entry idx shows member o now, of its own layer (a directory over a file
 * or a whiteout, a smaller spelling of its kind). */
static int take(struct merge *m, uint32_t idx, const struct member *o)
{
	int64_t off = store(m, o->name->s, o->name->len);
	struct merge_entry *e = &m->e[idx];

	settle(m);
	if (off < 0)
		return -ENOMEM;
	if (e->flags & MERGE_WHITEOUT)
		m->live++;
	e->flags &= (uint8_t)~(MERGE_WHITEOUT | MERGE_DOTWH);
	e->name = (uint32_t)off;
	e->from = (uint16_t)o->from;
	e->type = o->type;
	e->ino = o->ino;
	return 0;
}

/* A twin directory of the entry's own layer with a smaller spelling: it is
 * shown, and the one shown so far merges into it. */
static int take_dir(struct merge *m, uint32_t idx, const struct member *o)
{
	struct merge_entry *e = &m->e[idx];
	uint32_t was = e->name;
	unsigned from = e->from;
	uint64_t ino = e->ino;
	int r;

	if ((r = take(m, idx, o)) < 0)
		return r;
	e = &m->e[idx];
	/* The new one gives the number unless a part below does. */
	if (e->lower != MERGE_NONE &&
	    !ino_before(o->layer, o->name->s, m->p[e->lower].layer,
			m->arena + m->p[e->lower].name))
		e->ino = ino;
	return add_part(m, idx, e->layer, from, was, ino);
}

/* Member o of the layer that gives entry idx (a twin in that layer). */
static int same_layer(struct merge *m, uint32_t idx, const struct member *o)
{
	struct merge_entry *e = &m->e[idx];
	bool object = !(e->flags & MERGE_WHITEOUT);
	int64_t off;

	if (o->layer == 0 && object && !o->whiteout)
		e->flags |= MERGE_UPTWINS;
	if (o->whiteout)
		return object ? close_later(m, idx) : 0;
	if (!object) {
		int r = take(m, idx, o);

		return r < 0 ? r : close_later(m, idx);
	}
	if (e->type != DT_DIR && o->type == DT_DIR) {
		int r = take(m, idx, o);

		return r < 0 ? r : close_later(m, idx);
	}
	if (o->type != DT_DIR)
		return e->type == DT_DIR ? close_later(m, idx)
		       : strcmp(o->name->s, m->arena + e->name) < 0 ? take(m, idx, o) : 0;
	if (strcmp(o->name->s, m->arena + e->name) < 0)
		return take_dir(m, idx, o);
	off = store(m, o->name->s, o->name->len);
	settle(m);
	return off < 0 ? -ENOMEM : add_part(m, idx, o->layer, o->from, (uint32_t)off, o->ino);
}

/* Member o of a layer below the one that gives entry idx. */
static int below(struct merge *m, uint32_t idx, const struct member *o)
{
	struct merge_entry *e = &m->e[idx];
	int64_t off;

	e->flags |= MERGE_COVERS;
	if (e->flags & MERGE_CLOSED)
		return 0;
	if ((e->flags & (MERGE_WHITEOUT | MERGE_OPAQUE)) || e->type != DT_DIR) {
		e->flags |= MERGE_CLOSED;
		return 0;
	}
	if (o->whiteout || o->type != DT_DIR)
		return close_later(m, idx);
	off = store(m, o->name->s, o->name->len);
	settle(m);
	return off < 0 ? -ENOMEM : add_part(m, idx, o->layer, o->from, (uint32_t)off, o->ino);
}

/*
 * Adds part `from` of the directory, of layer, as listing l gives it, below
 * every layer fed before and beside the parts of its own layer fed before
 * (twins, fed in order of spelling).  Returns 1 if it is opaque (no layer
 * further down merges into it), 0, or -errno.
 */
int merge_feed(struct merge *m, const struct cfs_names *nm, const struct layers *ls,
	       unsigned layer, unsigned from, const struct listing *l)
{
	if (layer != m->layer)
		merge_finish(m);
	m->layer = layer;
	for (uint32_t i = 0; i < l->n; i++) {
		const struct listed *x = &l->e[i];
		struct cfs_name name = names_name(listing_name(l, i));
		struct member o = { .name = &name, .layer = layer, .from = from,
				    .ino = layer_ino(ls, layer, x->ino) };
		uint32_t idx = group(m, nm, &name, x->key);
		unsigned flags;
		int r;

		o.type = (unsigned char)listing_kind(l, i, &o.whiteout, &o.dotwh);
		flags = (o.whiteout ? MERGE_WHITEOUT : 0) | (o.dotwh ? MERGE_DOTWH : 0);
		if (idx == MERGE_NONE)
			r = add_keyed(m, &o, x->key, flags) == MERGE_NONE ? -ENOMEM : 0;
		else
			r = m->e[idx].layer == layer ? same_layer(m, idx, &o) : below(m, idx, &o);
		if (r < 0)
			return r;
	}
	return l->opaque;
}

/* The index keeps l, part `from`'s listing (listing.c); -ENOMEM if
 * it cannot (the caller still owns l). */
int merge_keep(struct merge *m, unsigned from, struct listing *l)
{
	struct listing **more;

	if (from >= m->nkept) {
		if (!(more = realloc(m->kept, (from + 1) * sizeof(*more))))
			return -ENOMEM;
		memset(more + m->nkept, 0, (from + 1 - m->nkept) * sizeof(*more));
		m->kept = more;
		m->nkept = from + 1;
	}
	listing_free(m->kept[from]);
	m->kept[from] = l;
	m->kept_bytes += listing_memory(l);
	settle(m);
	return 0;
}

/* Takes part `from`'s kept listing from the index (NULL: none). */
struct listing *merge_take(struct merge *m, unsigned from)
{
	struct listing *l = from < m->nkept ? m->kept[from] : NULL;

	if (l) {
		m->kept[from] = NULL;
		m->kept_bytes -= listing_memory(l);
		settle(m);
	}
	return l;
}

/*
 * The next entry after `after` (MERGE_NONE: the first) that the upper
 * layer (layer 0) shows as a directory with parts below it: those the
 * build asks whether the upper layer holds them opaque (merge_seal).  A
 * lower layer's opaque directory hides what is below it in its own build,
 * but its number is taken as if it merged (the bottom part's), so that
 * it stays the same when it is copied up, and the copy is not opaque.
 */
uint32_t merge_merged(const struct merge *m, uint32_t after)
{
	for (uint32_t i = after == MERGE_NONE ? 0 : after + 1; i < m->n; i++) {
		const struct merge_entry *e = &m->e[i];

		if (!(e->flags & (MERGE_FREE | MERGE_WHITEOUT)) && e->layer == 0 &&
		    e->lower != MERGE_NONE && m->p[e->lower].layer != 0)
			return i;
	}
	return MERGE_NONE;
}

/*
 * The upper layer holds entry idx opaque: the parts below it go, and it
 * shows ino, its own directory's number (of its smallest spelling), live
 * as after a remount, where a directory made where a lower one was
 * removed, or moved over one, keeps the number it was made with.
 */
void merge_seal(struct merge *m, uint32_t idx, uint64_t ino)
{
	struct merge_entry *e = &m->e[idx];
	uint32_t *link = &e->lower;

	while (*link != MERGE_NONE) {
		if (m->p[*link].layer != e->layer)
			*link = m->p[*link].next;
		else
			link = &m->p[*link].next;
	}
	e->ino = ino;
	e->flags |= MERGE_CLOSED;
}

/* Removes entry idx (a hole stays). */
void merge_remove(struct merge *m, uint32_t idx)
{
	struct merge_entry *e = &m->e[idx];
	uint32_t *link = &m->bucket[e->hash & (m->nbuckets - 1)];

	while (*link != idx)
		link = &m->e[*link].next;
	*link = e->next;
	if (!(e->flags & MERGE_WHITEOUT))
		m->live--;
	e->flags = MERGE_FREE;
	e->node = NULL;
}

/*
 * Entry idx was copied up into the directory's upper part `from`: the
 * upper layer shows it now, over what it showed before (a directory's old
 * top merges into it, and its number stays).
 */
void merge_raise(struct merge *m, uint32_t idx, unsigned from)
{
	struct merge_entry *e = &m->e[idx];

	if (e->layer == 0)
		return;
	if (e->type == DT_DIR)
		add_part(m, idx, e->layer, e->from, e->name, e->ino);  /* ENOMEM: not merged */
	e = &m->e[idx];
	e->layer = 0;
	e->from = (uint16_t)from;
	e->flags |= MERGE_COVERS;
}

/* Shown entry idx was removed, and a whiteout in the directory's upper
 * part `from` hides what it covered. */
void merge_hide(struct merge *m, uint32_t idx, unsigned from)
{
	struct merge_entry *e = &m->e[idx];

	if (!(e->flags & MERGE_WHITEOUT))
		m->live--;
	e->layer = 0;
	e->from = (uint16_t)from;
	e->type = DT_CHR;
	e->flags = MERGE_WHITEOUT | MERGE_COVERS | MERGE_CLOSED;
	e->lower = MERGE_NONE;
	e->node = NULL;
}

struct merge_entry *merge_entry(const struct merge *m, uint32_t idx)
{
	return &m->e[idx];
}

const char *merge_name(const struct merge *m, uint32_t idx)
{
	return m->arena + m->e[idx].name;
}

/* The name entry idx has in its layer (a ".wh." whiteout's file name). */
void merge_stored(const struct merge *m, uint32_t idx, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", (m->e[idx].flags & MERGE_DOTWH) ? ".wh." : "",
		 merge_name(m, idx));
}

/* The first entry shown at or after idx, or MERGE_NONE. */
uint32_t merge_next(const struct merge *m, uint32_t idx)
{
	for (; idx < m->n; idx++)
		if (!(m->e[idx].flags & (MERGE_FREE | MERGE_WHITEOUT)))
			return idx;
	return MERGE_NONE;
}

/* Part's layer, the directory's part holding it and its spelling; returns
 * the next part, or MERGE_NONE. */
uint32_t merge_part(const struct merge *m, uint32_t part, unsigned *layer, unsigned *from,
		    const char **name)
{
	*layer = m->p[part].layer;
	*from = m->p[part].from;
	*name = m->arena + m->p[part].name;
	return m->p[part].next;
}
/*
 * The view's layers were renumbered (a restack; map: old number -> new)
 * while the directory's parts stayed the same objects in the same order:
 * the index reads as one built again would, but for the numbers.
 */
void merge_renumber(struct merge *m, const unsigned *map)
{
	for (uint32_t i = 0; i < m->n; i++)
		if (!(m->e[i].flags & MERGE_FREE))
			m->e[i].layer = (uint16_t)map[m->e[i].layer];
	for (uint32_t i = 0; i < m->np; i++)
		m->p[i].layer = (uint16_t)map[m->p[i].layer];
}

bool merge_empty(const struct merge *m)
{
	return m->live == 0;
}

size_t merge_memory(const struct merge *m)
{
	return sizeof(*m) + (size_t)m->cap * sizeof(*m->e) + (size_t)m->nbuckets * 4 +
	       (size_t)m->pcap * sizeof(*m->p) + m->acap + (size_t)m->nkept * sizeof(*m->kept) +
	       m->kept_bytes;
}

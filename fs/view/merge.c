/*
 * A directory's merged index.  Entries live in one array (an entry's index
 * is its readdir offset, so offsets stay valid as entries come and go),
 * chained by bucket of the fold rule's hash; spellings live in one arena.
 * Names equal under the fold rule form a group.  How layers merge, as
 * overlayfs merges them but by group rather than by exact name:
 *  - the first layer (top first) holding a name of a group gives the entry
 *    the view shows; a whiteout there hides the group below;
 *  - a name below is hidden (or merged) by the entry above of its very
 *    spelling, else by the top layer's smallest spelling (cover());
 *  - a directory below a directory that is not opaque is merged into it,
 *    until a layer holds a non-directory or whiteout of the group (or an
 *    opaque directory, which its own build sees): the entry is closed;
 *  - names of one group inside one layer's directory stay separate entries,
 *    each reachable by its exact spelling (as in a tree's +F directory).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "view/merge.h"

struct merge_part {
	uint32_t name;    /* the directory's spelling in its layer */
	uint32_t next;    /* the next layer down, or MERGE_NONE */
	uint16_t layer;
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
	unsigned top_layer;        /* the first layer read */
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
	free(m);
}

/* The key a name is chained by: the fold hash, or for a name strict
 * folding refuses, the hash of its bytes (it matches only itself). */
static uint64_t key_of(const struct cfs_names *nm, struct cfs_name *name)
{
	if (names_hash(nm, CFS_FOLD, name) == 0)
		return name->hash;
	return names_spelling(nm, name);
}

static int grow(void **buf, uint32_t *cap, size_t size)
{
	uint32_t ncap = *cap ? *cap * 2 : 16;
	void *nb = realloc(*buf, (size_t)ncap * size);

	if (!nb)
		return -ENOMEM;
	*buf = nb;
	*cap = ncap;
	return 0;
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
		uint32_t h = (uint32_t)m->e[i].hash & (nbuckets - 1);

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

static uint32_t add_keyed(struct merge *m, struct cfs_name *name, uint64_t key, unsigned layer,
			  unsigned char type, uint64_t ino, unsigned flags)
{
	struct merge_entry *e;
	int64_t off = 0;
	uint32_t h;
	bool fail = (m->n == m->cap && grow((void **)&m->e, &m->cap, sizeof(*m->e)) < 0) ||
		    (m->n >= m->nbuckets && rehash(m, m->nbuckets ? m->nbuckets * 2 : 16) < 0) ||
		    (off = store(m, name->s, name->len)) < 0;

	settle(m);
	if (fail)
		return MERGE_NONE;
	e = &m->e[m->n];
	*e = (struct merge_entry){ .hash = key, .ino = ino, .name = (uint32_t)off,
				   .lower = MERGE_NONE, .layer = (uint16_t)layer, .type = type,
				   .flags = (uint8_t)flags };
	h = (uint32_t)key & (m->nbuckets - 1);
	e->next = m->bucket[h];
	m->bucket[h] = m->n;
	if (!(flags & MERGE_WHITEOUT))
		m->live++;
	return m->n++;
}

/* Adds name, shown from layer; MERGE_NONE when memory runs out. */
uint32_t merge_add(struct merge *m, const struct cfs_names *nm, struct cfs_name *name,
		   unsigned layer, unsigned char type, uint64_t ino, unsigned flags)
{
	return add_keyed(m, name, key_of(nm, name), layer, type, ino, flags);
}

/* The first entry of key's bucket; MERGE_NONE where there is none. */
static uint32_t chain(const struct merge *m, uint64_t key)
{
	return m->nbuckets ? m->bucket[(uint32_t)key & (m->nbuckets - 1)] : MERGE_NONE;
}

/* Whether entry i is of name's group (key: name's hash). */
static bool of_group(const struct merge *m, const struct cfs_names *nm, uint32_t i,
		     const struct cfs_name *name, uint64_t key)
{
	const char *s = m->arena + m->e[i].name;

	return m->e[i].hash == key && names_match(nm, CFS_FOLD, s, strlen(s), name->s, name->len);
}

/* Whether entry a goes before b as the one another spelling finds. */
static bool before(const struct merge *m, uint32_t a, uint32_t b)
{
	const struct merge_entry *ea = &m->e[a], *eb = &m->e[b];

	if ((ea->flags ^ eb->flags) & MERGE_WHITEOUT)
		return !(ea->flags & MERGE_WHITEOUT);
	if (ea->layer != eb->layer)
		return ea->layer < eb->layer;
	return strcmp(m->arena + ea->name, m->arena + eb->name) < 0;
}

/*
 * The group of name: the entry its exact spelling names if shown, else the
 * one another spelling finds — the top layer's, and within one layer's
 * directory the bytewise smallest spelling; whiteouts only when the group
 * has nothing else (*whiteout: the group's whiteout in the top layer, of
 * name's very spelling if it has several there — a kill can leave more
 * than one, upper.c — so that what is placed at name replaces that one).
 */
static uint32_t group(const struct merge *m, const struct cfs_names *nm, struct cfs_name *name,
		      uint64_t key, uint32_t *whiteout)
{
	uint32_t best = MERGE_NONE;

	if (whiteout)
		*whiteout = MERGE_NONE;
	for (uint32_t i = chain(m, key); i != MERGE_NONE; i = m->e[i].next) {
		const struct merge_entry *e = &m->e[i];
		const char *s = m->arena + e->name;

		if (!of_group(m, nm, i, name, key))
			continue;
		if (e->flags & MERGE_WHITEOUT) {
			if (whiteout && (*whiteout == MERGE_NONE || e->layer < m->e[*whiteout].layer ||
					 (e->layer == m->e[*whiteout].layer && strcmp(s, name->s) == 0)))
				*whiteout = i;
		} else if (strcmp(s, name->s) == 0) {
			return i;
		}
		if (best == MERGE_NONE || before(m, i, best))
			best = i;
	}
	return best;
}

/*
 * The entry of the layers above layer that hides (or merges) name, a name of
 * layer's directory: the one of its very spelling, shown or a whiteout,
 * else the top layer's bytewise smallest of the group, whiteouts included;
 * MERGE_NONE if no layer above holds the group.  Exact spellings first is
 * what keeps fold-equal twins of one lower directory apart once the view
 * has copied them up or whited one out (fs/README.md, "the rule for
 * twins"); the smallest spelling is the one that hid the group when the
 * top layer's names were all lower ones.  Every entry of the group above
 * is marked as covering: removing any of them needs a whiteout, as the
 * live index says of every name made or copied where the group had one.
 */
static uint32_t cover(struct merge *m, const struct cfs_names *nm, struct cfs_name *name,
		      uint64_t key, unsigned layer)
{
	uint32_t best = MERGE_NONE, exact = MERGE_NONE;

	for (uint32_t i = chain(m, key); i != MERGE_NONE; i = m->e[i].next) {
		const struct merge_entry *e = &m->e[i];
		const char *s = m->arena + e->name;

		if (e->layer >= layer || !of_group(m, nm, i, name, key))
			continue;
		m->e[i].flags |= MERGE_COVERS;
		if (strcmp(s, name->s) == 0)
			exact = i;
		if (best == MERGE_NONE || e->layer < m->e[best].layer ||
		    (e->layer == m->e[best].layer && strcmp(s, m->arena + m->e[best].name) < 0))
			best = i;
	}
	return exact != MERGE_NONE ? exact : best;
}

/*
 * The next shown entry after `after` (MERGE_NONE: the first) of entry
 * idx's group, idx excluded: its fold-equal twins.
 */
uint32_t merge_twin(const struct merge *m, const struct cfs_names *nm, uint32_t idx,
		    uint32_t after)
{
	const struct merge_entry *g = &m->e[idx];
	const char *gs = m->arena + g->name;
	size_t glen = strlen(gs);
	uint32_t i = after == MERGE_NONE ? m->bucket[(uint32_t)g->hash & (m->nbuckets - 1)]
					 : m->e[after].next;

	for (; i != MERGE_NONE; i = m->e[i].next) {
		const char *s = m->arena + m->e[i].name;

		if (i != idx && m->e[i].hash == g->hash &&
		    !(m->e[i].flags & (MERGE_WHITEOUT | MERGE_FREE)) &&
		    names_match(nm, CFS_FOLD, s, strlen(s), gs, glen))
			return i;
	}
	return MERGE_NONE;
}

/* The shown entry name finds, or MERGE_NONE; *whiteout as for group(). */
uint32_t merge_find(const struct merge *m, const struct cfs_names *nm, struct cfs_name *name,
		    uint32_t *whiteout)
{
	uint32_t i = group(m, nm, name, key_of(nm, name), whiteout);

	return i != MERGE_NONE && (m->e[i].flags & MERGE_WHITEOUT) ? MERGE_NONE : i;
}

static int add_part(struct merge *m, uint32_t idx, unsigned layer, const char *s, size_t len)
{
	uint32_t *link = &m->e[idx].lower;
	int64_t off = 0;
	bool fail = (m->np == m->pcap && grow((void **)&m->p, &m->pcap, sizeof(*m->p)) < 0) ||
		    (off = store(m, s, len)) < 0;

	settle(m);
	if (fail)
		return -ENOMEM;
	while (*link != MERGE_NONE)
		link = &m->p[*link].next;
	m->p[m->np] = (struct merge_part){ .name = (uint32_t)off, .next = MERGE_NONE,
					   .layer = (uint16_t)layer };
	*link = m->np++;
	return 0;
}

/*
 * One name of layer's directory, below what the layers above gave; 1 if it
 * is the opaque marker file, else 0 or -errno.
 */
/*
 * Whether the top layer's directory name (in topfd) is opaque: then it
 * hides, not merges, the directories below, and keeps its own inode
 * number — an upper directory made where a lower one was removed, or moved
 * over one, live and after a remount alike.
 */
static bool top_opaque(int topfd, const char *name)
{
	int fd = openat(topfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	bool opaque;

	if (fd < 0)
		return false;
	opaque = marker_opaque(fd);
	close(fd);
	return opaque;
}

static int read_one(struct merge *m, const struct cfs_names *nm, const struct layers *ls,
		    unsigned layer, int dirfd, int topfd, const struct dirent64 *de,
		    enum marker_dir md)
{
	const char *dotwh = marker_dotwh(de->d_name);
	struct cfs_name name = names_name(dotwh ? dotwh : de->d_name);
	uint64_t key;
	bool wh = dotwh || marker_is_whiteout(dirfd, de->d_name, de->d_type, md);
	unsigned char type = de->d_type;
	uint32_t top;
	struct merge_entry *e;
	struct stat st;

	if (dotwh && !*dotwh)
		return 1;
	key = key_of(nm, &name);
	top = cover(m, nm, &name, key, layer);
	if (type == DT_UNKNOWN && fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		type = IFTODT(st.st_mode);
	if (top == MERGE_NONE)
		return add_keyed(m, &name, key, layer, type, layer_ino(ls, layer, de->d_ino),
				 (wh ? MERGE_WHITEOUT : 0) | (dotwh ? MERGE_DOTWH : 0)) ==
		       MERGE_NONE ? -ENOMEM : 0;
	e = &m->e[top];
	if (e->flags & MERGE_CLOSED)
		return 0;
	if ((e->flags & (MERGE_WHITEOUT | MERGE_OPAQUE)) || e->type != DT_DIR || wh ||
	    type != DT_DIR) {
		e->flags |= MERGE_CLOSED;
		return 0;
	}
	if (e->lower == MERGE_NONE && e->layer == m->top_layer && topfd >= 0 &&
	    top_opaque(topfd, m->arena + e->name)) {
		e->flags |= MERGE_CLOSED | MERGE_OPAQUE;
		return 0;
	}
	/* The bottom directory's number: what copying up leaves unchanged. */
	e->ino = layer_ino(ls, layer, de->d_ino);
	return add_part(m, top, layer, name.s, name.len) < 0 ? -ENOMEM : 0;
}

/*
 * Adds the directory dirfd (open for reading, at its start) of layer,
 * below every layer read before; topfd is the first one read (-1 while
 * that one is read).  Returns 1 if it is opaque (no layer
 * further down merges into it), 0, or -errno.  The listing is read with
 * getdents64 straight into one buffer: a merge reads one directory per
 * layer, so each system call saved is saved hundreds of times.
 */
int merge_read(struct merge *m, const struct cfs_names *nm, const struct layers *ls,
	       unsigned layer, int dirfd, int topfd)
{
	enum marker_dir md = marker_dir(dirfd);
	_Alignas(struct dirent64) char buf[32768];
	bool opaque = md == MARKER_OPAQUE;
	ssize_t n;
	int r;

	if (topfd < 0)
		m->top_layer = layer;
	while ((n = getdents64(dirfd, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < n;) {
			const struct dirent64 *de = (const struct dirent64 *)(buf + off);

			off += de->d_reclen;
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			if ((r = read_one(m, nm, ls, layer, dirfd, topfd, de, md)) < 0)
				return r;
			opaque |= r == 1;
		}
	}
	return n < 0 ? -errno : opaque;
}

/* Removes entry idx (a hole stays). */
void merge_remove(struct merge *m, uint32_t idx)
{
	struct merge_entry *e = &m->e[idx];
	uint32_t *link = &m->bucket[(uint32_t)e->hash & (m->nbuckets - 1)];

	while (*link != idx)
		link = &m->e[*link].next;
	*link = e->next;
	if (!(e->flags & MERGE_WHITEOUT))
		m->live--;
	e->flags = MERGE_FREE;
	e->node = NULL;
}

/*
 * Entry idx was copied up: the upper layer shows it now, over what it
 * showed before (a directory's old top becomes its first merged part).
 */
void merge_raise(struct merge *m, uint32_t idx)
{
	struct merge_entry *e = &m->e[idx];
	uint32_t old;

	if (e->layer == 0)
		return;
	if (e->type == DT_DIR &&
	    (m->np < m->pcap || grow((void **)&m->p, &m->pcap, sizeof(*m->p)) == 0)) {
		old = e->lower;
		m->p[m->np] = (struct merge_part){ .name = e->name, .next = old,
						   .layer = e->layer };
		e->lower = m->np++;
		settle(m);
	}
	e->layer = 0;
	e->flags |= MERGE_COVERS;
}

/* Shown entry idx was removed, and a whiteout in the upper layer hides
 * what it covered. */
void merge_hide(struct merge *m, uint32_t idx)
{
	struct merge_entry *e = &m->e[idx];

	if (!(e->flags & MERGE_WHITEOUT))
		m->live--;
	e->layer = 0;
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

/* Part's layer and spelling; returns the next part down, or MERGE_NONE. */
uint32_t merge_part(const struct merge *m, uint32_t part, unsigned *layer, const char **name)
{
	*layer = m->p[part].layer;
	*name = m->arena + m->p[part].name;
	return m->p[part].next;
}

bool merge_empty(const struct merge *m)
{
	return m->live == 0;
}

size_t merge_memory(const struct merge *m)
{
	return sizeof(*m) + (size_t)m->cap * sizeof(*m->e) + (size_t)m->nbuckets * 4 +
	       (size_t)m->pcap * sizeof(*m->p) + m->acap;
}

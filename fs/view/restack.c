/*
 * A mounted view's layers changed (fs/view/DESIGN.md, "Changing the
 * layers of a mounted view"): the new stack is opened and checked first,
 * then, with every request stopped (the stack lock, exclusive), each
 * directory the kernel holds is read again from the layers its new parts
 * name, top down, and compared with what it showed: a name whose winner
 * changed (another object, or none) is told to the kernel, after the
 * requests are let go again; every other name keeps its node and the
 * kernel its dentry.  An object is known across the change by its layer
 * (root device and inode) and its path there, so a layer that only moved
 * changes nothing it shows unless it now wins or loses a name.  A new
 * upper layer is a layer like the others, but no object keeps its node
 * across a change to or from the upper layer (layers_restack's map): the
 * old upper layer's files go, as if removed, and those still open keep
 * their objects as upper files removed while open do.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/fk.h"
#include "view/view.h"

/* No part: an old part that is none of the new ones. */
#define NO_PART UINT_MAX

/* One name the kernel must forget (a dentry of parent): a directory's
 * wholly, with what its dentry holds below it; any other's expires (its
 * next use asks again, fk_notify_expire_entry). */
struct notice {
	uint64_t parent;
	char *name;
	bool dir;
};

struct restack {
	struct view *v;
	const unsigned *map;      /* old layer -> new, or LAYER_NONE */
	bool upper_moved;         /* the upper layer is another one */
	struct notice *notes;
	size_t nnotes, cap;
	uint64_t *dirs;           /* directories whose attributes may change */
	size_t ndirs, dcap;
	bool expire_all;          /* a directory changed whose old names are unknown */
	struct view_node *head, *tail;  /* directories to read again, top down */
	int err;                  /* the first directory that could not be */
	struct view_node *at;     /* the directory being read again */
	struct keys {             /* its groups whose winner changed (their
				     keys): [1] those that were directories */
		uint32_t *key;
		size_t n, cap;
	} keys[2];
};

static void note(struct restack *rs, struct view_node *parent, const char *name, bool dir)
{
	struct notice *more;

	if (rs->nnotes == rs->cap) {
		rs->cap = rs->cap ? 2 * rs->cap : 64;
		if (!(more = realloc(rs->notes, rs->cap * sizeof(*more)))) {
			rs->expire_all = true;  /* cannot name it: all go */
			return;
		}
		rs->notes = more;
	}
	rs->notes[rs->nnotes].parent = view_id(rs->v, parent);
	rs->notes[rs->nnotes].dir = dir;
	if ((rs->notes[rs->nnotes].name = strdup(name)))
		rs->nnotes++;
	else
		rs->expire_all = true;
}

static void note_dir(struct restack *rs, struct view_node *dir)
{
	uint64_t *more;

	if (rs->ndirs == rs->dcap) {
		rs->dcap = rs->dcap ? 2 * rs->dcap : 64;
		if (!(more = realloc(rs->dirs, rs->dcap * sizeof(*more))))
			return;  /* its attributes expire with their timeout */
		rs->dirs = more;
	}
	rs->dirs[rs->ndirs++] = view_id(rs->v, dir);
}

static void enqueue(struct restack *rs, struct view_node *dir)
{
	dir->d->queued = NULL;
	if (rs->tail)
		rs->tail->d->queued = dir;
	else
		rs->head = dir;
	rs->tail = dir;
}

static size_t part_hash(unsigned layer, unsigned from, const char *s)
{
	size_t h = 14695981039346656037ULL ^ layer ^ (size_t)from << 32;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

/*
 * Which of dir's new parts each old one is (its parts were replaced:
 * was): the same layer (renumbered), the same spelling, in the same part
 * of the parent (the parent's own correspondence), so the same directory
 * of the same layer.  NULL if out of memory.  Node lock.
 */
static unsigned *correspond(struct restack *rs, struct view_node *dir)
{
	struct view_dir *d = dir->d;
	const unsigned *up = dir == rs->v->root ? NULL : dir->parent->d->corr;
	unsigned *corr = malloc((d->nwas + 1) * sizeof(*corr)), *table, slot;
	size_t size = 16, mask;

	while (size < 2 * (size_t)d->nparts)
		size *= 2;
	mask = size - 1;
	if (!corr || !(table = malloc(size * sizeof(*table)))) {
		free(corr);
		return NULL;
	}
	memset(table, 0xff, size * sizeof(*table));
	for (unsigned i = 0; i < d->nparts; i++)
		if (d->parts[i].name) {
			slot = part_hash(d->parts[i].layer, d->parts[i].from, d->parts[i].name) & mask;
			while (table[slot] != NO_PART)
				slot = (slot + 1) & mask;
			table[slot] = i;
		}
	for (unsigned j = 0; j < d->nwas; j++) {
		const struct view_part *o = &d->was[j];
		unsigned layer = rs->map[o->layer], from = up ? up[o->from] : o->from;

		corr[j] = NO_PART;
		if (!o->name || layer == LAYER_NONE || from == NO_PART)
			continue;
		for (slot = part_hash(layer, from, o->name) & mask; table[slot] != NO_PART;
		     slot = (slot + 1) & mask) {
			const struct view_part *p = &d->parts[table[slot]];

			if (p->layer == layer && p->from == from && strcmp(p->name, o->name) == 0) {
				corr[j] = table[slot];
				break;
			}
		}
	}
	free(table);
	return corr;
}

/* Whether each old part of dir is the new part of the same number. */
static bool same_parts(const struct view_dir *d, const unsigned *corr)
{
	if (d->nwas != d->nparts)
		return false;
	for (unsigned j = 0; j < d->nwas; j++)
		if (corr[j] != j)
			return false;
	return true;
}

/*
 * For each of dir's new parts, the listing its old index kept of the same
 * directory, taken from it; NULL where there is none, or if out of memory
 * (all is read again).  Node lock.
 */
static struct listing **reusable(struct view_node *dir)
{
	struct view_dir *d = dir->d;
	struct listing **reuse;

	if (!d->index || !(reuse = calloc(d->nparts + 1, sizeof(*reuse))))
		return NULL;
	for (unsigned j = 0; j < d->nwas; j++)
		if (d->corr[j] != NO_PART)
			reuse[d->corr[j]] = merge_take(d->index, j);
	return reuse;
}

/*
 * A name of dir whose winner changed (was a directory: wasdir): its
 * dentries go (node lock) — that of the spelling shown, and those of the
 * other spellings dir handed out for its group (handed.c), once dir is
 * compared; without a complete record of them, every dentry of the mount,
 * if one may exist (dent_behind).
 */
static void changed(struct restack *rs, struct view_node *dir, const char *name, bool wasdir)
{
	struct cfs_name cn = names_name(name);
	struct keys *k = &rs->keys[wasdir];
	uint32_t *more;

	note(rs, dir, name, wasdir);
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 64;
		if ((more = realloc(k->key, k->cap * sizeof(*more))))
			k->key = more;
		else
			k->cap = k->n;
	}
	if (k->n < k->cap && handed_complete(rs->v, dir))
		k->key[k->n++] = listing_key(&rs->v->names, &cn);
	else
		dent_behind(&rs->v->dentries, &dir->d->dcache, &rs->v->names, CFS_FOLD, &cn);
}

static void note_handed_file(void *arg, const char *spelling)
{
	struct restack *rs = arg;

	note(rs, rs->at, spelling, false);
}

static void note_handed_dir(void *arg, const char *spelling)
{
	struct restack *rs = arg;

	note(rs, rs->at, spelling, true);
}

/*
 * Whether entry i of old and entry j of m show one directory, whichever
 * layers' directories it merges, and whichever of their spellings it
 * shows.  Its name is not a change: the node the kernel holds for it (if
 * any) is kept by kids and read again in turn, its attributes refreshed
 * if its parts changed (note_dir), so its dentry stays — and every cached
 * name below it, which invalidating it would drop (a mod with a Data or
 * DATA folder added on top, an upper layer switched, a profile's order).
 * The kernel's dentry of a directory has whatever spelling it was last
 * looked up by in any case: the listing's is the view's.
 */
static bool same_dir(const struct merge *old, uint32_t i, const struct merge *m, uint32_t j)
{
	const struct merge_entry *a = merge_entry(old, i), *b;

	if (j == MERGE_NONE)
		return false;
	b = merge_entry(m, j);
	return a->type == DT_DIR && b->type == DT_DIR &&
	       !((a->flags | b->flags) & MERGE_WHITEOUT);
}

/* Whether entry i of dir's old index and entry j of m are one object:
 * same type and spelling, in the same part (node lock). */
static bool same_object(const struct view_dir *d, const struct merge *old, uint32_t i,
			const struct merge *m, uint32_t j)
{
	const struct merge_entry *a = merge_entry(old, i), *b;

	if (j == MERGE_NONE)
		return false;
	b = merge_entry(m, j);
	return a->type == b->type && d->corr[a->from] == b->from &&
	       strcmp(merge_name(old, i), merge_name(m, j)) == 0;
}

/*
 * Every name of dir whose winner is not the same in the new index m as in
 * the old one (node lock): each group shown before or after, by the
 * spelling it was shown by (a dentry of the new one, if the kernel keeps
 * one, was handed out as another spelling or a miss: changed names it).
 * The two indexes key a group alike: nothing is hashed again.
 */
static void diff(struct restack *rs, struct view_node *dir, const struct merge *old,
		 const struct merge *m)
{
	const struct cfs_names *nm = &rs->v->names;
	uint32_t j;

	for (uint32_t i = merge_next(old, 0); i != MERGE_NONE; i = merge_next(old, i + 1)) {
		j = merge_find_key(m, nm, merge_name(old, i), merge_entry(old, i)->hash);
		if (!same_object(dir->d, old, i, m, j) && !same_dir(old, i, m, j))
			changed(rs, dir, merge_name(old, i), merge_entry(old, i)->type == DT_DIR);
	}
	for (uint32_t i = merge_next(m, 0); i != MERGE_NONE; i = merge_next(m, i + 1))
		if (merge_find_key(old, nm, merge_name(m, i), merge_entry(m, i)->hash) == MERGE_NONE)
			changed(rs, dir, merge_name(m, i), false);  /* misses only */
}

/*
 * A gone node's layer, renumbered for the new stack: it is only asked
 * for the inode number's filesystem (layer_ino) and, for layer 0, whether
 * the object is upper — which an object of an old upper layer stays, so
 * that it is written where it is (a copy-up would find it gone).  A lower
 * layer removed from the stack answers as the bottom one.
 */
static void renumber(struct restack *rs, struct view_node *n)
{
	unsigned to = rs->map[n->layer];

	if (n->layer == 0 && rs->upper_moved)
		return;
	n->layer = to != LAYER_NONE ? to : rs->v->layers.n - 1;
}

/*
 * n, and all below it, no longer show in the view: gone, as if removed
 * (node lock).  An open file keeps what it opened by its descriptors, and
 * for the kernel's other requests on it (fstat) the object opened before
 * the change (view_restack, keep_open).
 */
static void drop(struct restack *rs, struct view_node *top)
{
	struct view_node *n = top, *k;

	/* Down to each node not yet gone, and back up by the parents. */
	for (;;) {
		if (!n->gone) {
			n->gone = true;
			renumber(rs, n);
		}
		for (k = n->d ? n->d->kids : NULL; k && k->gone; k = k->sib_next)
			;
		if (k) {
			n = k;
			continue;
		}
		if (n == top)
			return;
		n = n->parent;
	}
}

/*
 * The kids of dir against its new index m (node lock): each keeps its node
 * if m's entry for its group is its very object (a directory: a directory
 * still, under whichever spelling), else it goes and the kernel forgets
 * its name.  A directory kept takes its new parts and is read again in
 * turn.
 */
static void kids(struct restack *rs, struct view_node *dir, struct merge *m)
{
	for (struct view_node *n = dir->d->kids; n; n = n->sib_next) {
		struct cfs_name cn = names_name(n->name);
		const char *shown;
		char *name = NULL;
		uint32_t idx;
		struct merge_entry *e;
		bool same, keep;

		if (n->gone)
			continue;
		idx = dir->d->index ? merge_find_key(m, &rs->v->names, n->name,
						     merge_entry(dir->d->index, n->idx)->hash)
				    : merge_find(m, &rs->v->names, &cn, NULL);
		e = idx == MERGE_NONE ? NULL : merge_entry(m, idx);
		shown = e ? merge_name(m, idx) : NULL;
		same = e && e->type == n->type &&
		       (n->d || (dir->d->corr[n->from] == e->from && strcmp(shown, n->name) == 0));
		keep = same && !e->node;
		if (keep && n->d && strcmp(shown, n->name) != 0)
			keep = (name = strdup(shown)) != NULL;
		if (keep && n->d)
			keep = view_set_parts(n, m, idx) == 0;
		if (!keep) {
			free(name);
			drop(rs, n);
			/* diff named every group whose winner changed; not this one */
			if (!dir->d->index || same)
				changed(rs, dir, n->name, n->d != NULL);
			continue;
		}
		if (name) {  /* the kernel's dentry may still have the old spelling */
			cn = names_name(n->name);
			handed_add(rs->v, dir, &cn);
			free(n->name);
			n->name = name;
		}
		e->node = n;
		n->idx = idx;
		n->layer = e->layer;
		n->from = e->from;
		if (n->d) {
			e->ino = n->ino;  /* a directory keeps its number while held */
			enqueue(rs, n);
		}
	}
}

/*
 * dir merges the same directories as before, in the same order (node
 * lock): what it shows is what it showed, and only the layers' numbers
 * change, in its index and in its kids; a kept directory below it is in
 * the same case, and is renumbered in turn.  Nothing is read: a change
 * reads only the directories a changed layer holds (or held).
 */
static void renumber_dir(struct restack *rs, struct view_node *dir)
{
	if (dir->d->index)
		merge_renumber(dir->d->index, rs->map);
	for (struct view_node *n = dir->d->kids; n; n = n->sib_next) {
		if (n->gone)
			continue;  /* renumbered with every gone node (swap_layers) */
		n->layer = rs->map[n->layer];
		if (!n->d)
			continue;
		for (unsigned i = 0; i < n->d->nparts; i++)
			if (n->d->parts[i].name)
				n->d->parts[i].layer = rs->map[n->d->parts[i].layer];
		enqueue(rs, n);
	}
}

/*
 * dir could not be read again (stack lock exclusive; node lock not held):
 * its names go, as if removed, and every cached name expires; its next
 * use reads it as a remount would, and answers what that finds.
 */
static void unread(struct restack *rs, struct view_node *dir, int err)
{
	struct view *v = rs->v;

	pthread_mutex_lock(&v->node_lock);
	for (struct view_node *n = dir->d->kids; n; n = n->sib_next)
		if (!n->gone)
			drop(rs, n);
	view_install(v, dir, NULL);
	dir->d->evicted = true;
	pthread_mutex_unlock(&v->node_lock);
	rs->expire_all = true;
	if (!rs->err)
		rs->err = err;
}

/*
 * Reads dir again (stack lock exclusive; node lock not held), unless it
 * merges the same directories as before: its new index, if it had one or
 * has kids, compared with the old; its kids matched against it.  Only the
 * parts it did not merge before are read: the others' listings are the
 * old index's (listing.c).
 */
static void redo(struct restack *rs, struct view_node *dir)
{
	struct view *v = rs->v;
	struct view_dir *d = dir->d;
	struct merge *m = NULL;
	struct listing **reuse = NULL;
	bool same = true, need;
	int r = 0;

	pthread_mutex_lock(&v->node_lock);
	if (d->was) {
		d->corr = correspond(rs, dir);
		same = d->corr && same_parts(d, d->corr);
	}
	if (same) {
		free(d->corr);
		d->corr = NULL;
		renumber_dir(rs, dir);
	}
	need = d->index || d->kids;
	if (!same && d->corr && need)
		reuse = reusable(dir);
	pthread_mutex_unlock(&v->node_lock);
	if (same)
		return;
	if (!d->corr)
		r = -ENOMEM;
	else if (need)
		r = view_build(v, dir, reuse, &m);
	free(reuse);
	if (r < 0) {
		unread(rs, dir, r);
		return;
	}
	pthread_mutex_lock(&v->node_lock);
	note_dir(rs, dir);
	if (d->index)
		diff(rs, dir, d->index, m);
	else if (d->kids || d->evicted)
		rs->expire_all = true;  /* it may hold misses no index recorded */
	if (m)
		kids(rs, dir, m);
	rs->at = dir;
	handed_each(v, dir, rs->keys[0].key, rs->keys[0].n, note_handed_file, rs);
	handed_each(v, dir, rs->keys[1].key, rs->keys[1].n, note_handed_dir, rs);
	rs->keys[0].n = rs->keys[1].n = 0;
	view_install(v, dir, m);
	pthread_mutex_unlock(&v->node_lock);
}

/* The root's parts in a stack of n layers: every layer's root. */
static struct view_part *root_parts(unsigned n)
{
	struct view_part *p = calloc(n, sizeof(*p));

	for (unsigned i = 0; p && i < n; i++)
		if (!(p[i] = (struct view_part){ .layer = i, .name = strdup("") }).name) {
			while (i--)
				free(p[i].name);
			free(p);
			return NULL;
		}
	return p;
}

/* The change is done: what it kept of each directory goes. */
static void finish(struct view *v)
{
	for (struct view_node *n = v->root; n; n = n == v->root ? v->all : n->all_next) {
		if (!n->d)
			continue;
		for (unsigned i = 0; i < n->d->nwas; i++)
			free(n->d->was[i].name);
		free(n->d->was);
		free(n->d->corr);
		n->d->was = NULL;
		n->d->nwas = 0;
		n->d->corr = NULL;
	}
}

/*
 * Open lower files, and the upper layer's if it is another one now, whose
 * nodes may go: each keeps an O_PATH descriptor of its object for the
 * kernel's later requests (fstat of the open file), opened while the old
 * stack is in place.  Out of memory, fewer are kept, and their fstat
 * answers ENOENT.
 */
static size_t keep_open(struct view *v, bool upper_moved, struct view_node ***list, int **fds)
{
	size_t n = 0, cap = 0, kept = 0;

	*list = NULL;
	*fds = NULL;
	pthread_mutex_lock(&v->node_lock);
	for (struct view_node *k = v->all; k; k = k->all_next) {
		struct view_node **more;

		if (k->d || k->gone || !k->opens || (k->layer == 0 && !upper_moved))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			if (!(more = realloc(*list, cap * sizeof(*more))))
				break;
			*list = more;
		}
		(*list)[n++] = k;
	}
	pthread_mutex_unlock(&v->node_lock);
	if (n && !(*fds = malloc(n * sizeof(**fds))))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (((*fds)[kept] = view_open(v, (*list)[i], O_PATH | O_NOFOLLOW)) >= 0)
			(*list)[kept++] = (*list)[i];
	return kept;
}

/* After the requests go on: the kernel forgets what changed. */
static void tell(struct restack *rs)
{
	struct fk_session *se = rs->v->dentries.se;

	for (size_t i = 0; i < rs->nnotes; i++) {
		(rs->notes[i].dir ? fk_notify_inval_entry : fk_notify_expire_entry)(
			se, rs->notes[i].parent, rs->notes[i].name, strlen(rs->notes[i].name));
		free(rs->notes[i].name);
	}
	for (size_t i = 0; i < rs->ndirs; i++)
		fk_notify_inval_inode(se, rs->dirs[i], -1, 0);
	if (rs->expire_all)
		dent_expire_all(&rs->v->dentries);
}

/*
 * The new stack in place of the old (stack lock exclusive): a new work
 * directory first takes the names the old one keeps (view_keep_fds).
 */
static struct layers swap_layers(struct restack *rs, struct layers *fresh)
{
	struct view *v = rs->v;
	struct layers old = v->layers;

	layers_handover(&old, fresh);
	if (old.workdir && strcmp(old.workdir, fresh->workdir) != 0)
		view_keep_fds(v);
	pthread_mutex_lock(&v->node_lock);
	v->layers = *fresh;
	for (struct view_node *n = v->all; n; n = n->all_next)
		if (n->gone)
			renumber(rs, n);
	pthread_mutex_unlock(&v->node_lock);
	return old;
}

int view_restack(struct view *v, const struct layer_list *lower, const char *upperdir,
		 const char *workdir, char *err, size_t errlen)
{
	struct layers fresh, old;
	unsigned *map = calloc(v->layers.n, sizeof(*map));
	struct restack rs = { .v = v, .map = map };
	struct view_part *root;
	struct view_node **open_nodes;
	int *open_fds, r;
	size_t nopen;

	if (!map)
		return -ENOMEM;
	if (layers_restack(&v->layers, lower, upperdir, workdir, &fresh, map, err, errlen) < 0) {
		free(map);
		return -EINVAL;
	}
	if (!(root = root_parts(fresh.n))) {
		layers_close(&fresh);
		free(map);
		return -ENOMEM;
	}
	rs.upper_moved = v->layers.upper && map[0] == LAYER_NONE;
	pthread_rwlock_wrlock(&v->stack);
	nopen = keep_open(v, rs.upper_moved, &open_nodes, &open_fds);
	old = swap_layers(&rs, &fresh);
	v->root->d->was = v->root->d->parts;  /* kept until the change is done */
	v->root->d->nwas = v->root->d->nparts;
	v->root->d->parts = root;
	v->root->d->nparts = v->layers.n;
	enqueue(&rs, v->root);
	for (struct view_node *dir = rs.head; dir; dir = dir->d->queued)
		redo(&rs, dir);
	r = rs.err;
	finish(v);
	pthread_rwlock_unlock(&v->stack);
	for (size_t i = 0; i < nopen; i++) {
		if (open_nodes[i]->gone)
			view_keep(v, open_nodes[i], open_fds[i]);
		else
			close(open_fds[i]);
	}
	free(open_nodes);
	free(open_fds);
	if (r < 0)
		snprintf(err, errlen, "a directory could not be read again (%s): its names "
			 "went, and every cached name expires", strerror(-r));
	tell(&rs);
	layers_close(&old);
	free(rs.notes);
	free(rs.dirs);
	free(rs.keys[0].key);
	free(rs.keys[1].key);
	free(map);
	return r;
}

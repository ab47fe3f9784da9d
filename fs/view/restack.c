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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/fk.h"
#include "view/view.h"

/* One name the kernel must forget (a dentry of parent). */
struct notice {
	uint64_t parent;
	char *name;
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
	struct view_node **queue; /* directories to read again, top down */
	size_t nqueue, qcap;
	int err;
};

static void note(struct restack *rs, struct view_node *parent, const char *name)
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
	struct view_node **more;

	if (rs->nqueue == rs->qcap) {
		rs->qcap = rs->qcap ? 2 * rs->qcap : 64;
		if (!(more = realloc(rs->queue, rs->qcap * sizeof(*more)))) {
			rs->err = -ENOMEM;
			return;
		}
		rs->queue = more;
	}
	rs->queue[rs->nqueue++] = dir;
}

/*
 * "LAYER:PATH" of dir's part i, LAYER being the layer's number in the new
 * stack (map: the old stack's parts, before the change), or "" for a part
 * dropped or unreachable: what the part is, whichever stack numbers it.
 */
static char *part_id(struct restack *rs, struct view_node *dir, unsigned i, const unsigned *map)
{
	char path[PATH_MAX], *id;
	unsigned layer = dir->d->parts[i].layer;

	if (view_part_path_locked(rs->v, dir, i, NULL, path, sizeof(path)) < 0)
		return strdup("");
	if (map)
		layer = map[layer];
	return asprintf(&id, "%u:%s", layer, path) < 0 ? NULL : id;
}

static void free_ids(char **ids, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}

/* What dir's parts are, in order (node lock); NULL if out of memory. */
static char **parts_ids(struct restack *rs, struct view_node *dir, const unsigned *map)
{
	char **ids = calloc(dir->d->nparts + 1, sizeof(*ids));

	for (unsigned i = 0; ids && i < dir->d->nparts; i++)
		if (!(ids[i] = part_id(rs, dir, i, map))) {
			free_ids(ids, i);
			return NULL;
		}
	return ids;
}

/* Before the change: every directory node's parts, as the new stack will
 * number their layers (node lock). */
static int remember(struct restack *rs)
{
	struct view *v = rs->v;

	for (struct view_node *n = v->root; n; n = n == v->root ? v->all : n->all_next) {
		if (!n->d || n->gone)
			continue;
		if (!(n->d->was = parts_ids(rs, n, rs->map)))
			return -ENOMEM;
		n->d->nwas = n->d->nparts;
	}
	return 0;
}

static bool same_ids(char **a, unsigned na, char **b, unsigned nb)
{
	if (na != nb)
		return false;
	for (unsigned i = 0; i < na; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return true;
}

/* What entry idx of m shows: its type and "LAYER:PATH" (ids: the
 * directory's parts as m numbers them); "" for no entry. */
static void entry_id(const struct merge *m, uint32_t idx, char **ids, char *buf, size_t len)
{
	const struct merge_entry *e;

	if (idx == MERGE_NONE) {
		buf[0] = '\0';
		return;
	}
	e = merge_entry(m, idx);
	snprintf(buf, len, "%u %s/%s", e->type, ids[e->from], merge_name(m, idx));
}

/* A name of dir whose winner changed: its dentries go (node lock). */
static void changed(struct restack *rs, struct view_node *dir, const char *name)
{
	struct cfs_name cn = names_name(name);

	note(rs, dir, name);
	dent_behind(&rs->v->dentries, &dir->d->dcache, &rs->v->names, CFS_FOLD, &cn);
}

/*
 * Whether entry i of old and entry j of m show one directory under one
 * spelling, whichever layers' directories it merges.  Its name is not a
 * change: the node the kernel holds for it (if any) is kept by kids and
 * read again in turn, its attributes refreshed if its parts changed
 * (note_dir), so its dentry stays — and every cached name below it, which
 * invalidating it would drop (a mod with a Data folder added on top, an
 * upper layer switched).
 */
static bool same_dir(const struct merge *old, uint32_t i, const struct merge *m, uint32_t j)
{
	const struct merge_entry *a = merge_entry(old, i), *b;

	if (j == MERGE_NONE)
		return false;
	b = merge_entry(m, j);
	return a->type == DT_DIR && b->type == DT_DIR &&
	       !((a->flags | b->flags) & MERGE_WHITEOUT) &&
	       strcmp(merge_name(old, i), merge_name(m, j)) == 0;
}

/*
 * Every name of dir whose winner is not the same in the new index m as in
 * the old one (node lock): each group shown before or after.
 */
static void diff(struct restack *rs, struct view_node *dir, const struct merge *old,
		 const struct merge *m, char **now)
{
	char a[PATH_MAX + 64], b[PATH_MAX + 64];
	struct cfs_name cn;
	uint32_t j;

	for (uint32_t i = merge_next(old, 0); i != MERGE_NONE; i = merge_next(old, i + 1)) {
		cn = names_name(merge_name(old, i));
		j = merge_find(m, &rs->v->names, &cn, NULL);
		entry_id(old, i, dir->d->was, a, sizeof(a));
		entry_id(m, j, now, b, sizeof(b));
		if (strcmp(a, b) != 0 && !same_dir(old, i, m, j)) {
			changed(rs, dir, merge_name(old, i));
			if (j != MERGE_NONE && strcmp(merge_name(old, i), merge_name(m, j)) != 0)
				note(rs, dir, merge_name(m, j));
		}
	}
	for (uint32_t i = merge_next(m, 0); i != MERGE_NONE; i = merge_next(m, i + 1)) {
		cn = names_name(merge_name(m, i));
		if (merge_find(old, &rs->v->names, &cn, NULL) == MERGE_NONE)
			changed(rs, dir, merge_name(m, i));
	}
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
 * if m's entry for its group is its very object, else it goes and the
 * kernel forgets its name.  A directory kept takes its new parts and is
 * read again in turn.
 */
static void kids(struct restack *rs, struct view_node *dir, struct merge *m, char **now)
{
	char a[PATH_MAX + 64], b[PATH_MAX + 64];

	for (struct view_node *n = dir->d->kids; n; n = n->sib_next) {
		struct cfs_name cn = names_name(n->name);
		uint32_t idx;
		struct merge_entry *e;

		if (n->gone)
			continue;
		idx = merge_find(m, &rs->v->names, &cn, NULL);
		e = idx == MERGE_NONE ? NULL : merge_entry(m, idx);
		if (e && !n->d) {
			snprintf(a, sizeof(a), "%u %s/%s", n->type, dir->d->was[n->from], n->name);
			entry_id(m, idx, now, b, sizeof(b));
		}
		if (!e || e->node || e->type != n->type || strcmp(merge_name(m, idx), n->name) != 0 ||
		    (!n->d && strcmp(a, b) != 0) || (n->d && view_set_parts(n, m, idx) < 0)) {
			drop(rs, n);
			changed(rs, dir, n->name);
			continue;
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
 * Reads dir again (stack lock exclusive; node lock not held): its new
 * index, if it had one or has kids, compared with the old; its kids
 * matched against it.
 */
static int redo(struct restack *rs, struct view_node *dir)
{
	struct view *v = rs->v;
	struct merge *m = NULL;
	char **now;
	bool same, need;
	int r = 0;

	pthread_mutex_lock(&v->node_lock);
	now = parts_ids(rs, dir, NULL);
	need = dir->d->index || dir->d->kids;
	pthread_mutex_unlock(&v->node_lock);
	if (!now)
		return -ENOMEM;
	if (need && (r = view_build(v, dir, &m)) < 0) {
		free_ids(now, dir->d->nparts);
		return r;
	}
	pthread_mutex_lock(&v->node_lock);
	same = same_ids(dir->d->was, dir->d->nwas, now, dir->d->nparts);
	if (!same) {
		note_dir(rs, dir);
		if (dir->d->index)
			diff(rs, dir, dir->d->index, m, now);
		else if (dir->d->kids || dir->d->evicted)
			rs->expire_all = true;  /* it may hold misses no index recorded */
	}
	if (m)
		kids(rs, dir, m, now);
	view_install(v, dir, m);
	pthread_mutex_unlock(&v->node_lock);
	free_ids(now, dir->d->nparts);
	return 0;
}

/* The root merges every layer's root: its parts are the new stack's. */
static int root_parts(struct view *v)
{
	struct view_dir *d = v->root->d;
	struct view_part *p = calloc(v->layers.n, sizeof(*p));

	if (!p)
		return -ENOMEM;
	for (unsigned i = 0; i < v->layers.n; i++)
		if (!(p[i] = (struct view_part){ .layer = i, .name = strdup("") }).name) {
			while (i--)
				free(p[i].name);
			free(p);
			return -ENOMEM;
		}
	for (unsigned i = 0; i < d->nparts; i++)
		free(d->parts[i].name);
	free(d->parts);
	d->parts = p;
	d->nparts = v->layers.n;
	return 0;
}

static void forget_was(struct view *v)
{
	for (struct view_node *n = v->root; n; n = n == v->root ? v->all : n->all_next)
		if (n->d && n->d->was) {
			free_ids(n->d->was, n->d->nwas);
			n->d->was = NULL;
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
		fk_notify_inval_entry(se, rs->notes[i].parent, rs->notes[i].name,
				      strlen(rs->notes[i].name));
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
	struct view_node **open_nodes;
	int *open_fds, r;
	size_t nopen;

	if (!map)
		return -ENOMEM;
	if (layers_restack(&v->layers, lower, upperdir, workdir, &fresh, map, err, errlen) < 0) {
		free(map);
		return -EINVAL;
	}
	rs.upper_moved = v->layers.upper && map[0] == LAYER_NONE;
	pthread_rwlock_wrlock(&v->stack);
	nopen = keep_open(v, rs.upper_moved, &open_nodes, &open_fds);
	pthread_mutex_lock(&v->node_lock);
	r = remember(&rs);
	pthread_mutex_unlock(&v->node_lock);
	old = swap_layers(&rs, &fresh);
	if (r == 0)
		r = root_parts(v);
	if (r == 0)
		enqueue(&rs, v->root);
	for (size_t i = 0; r == 0 && rs.err == 0 && i < rs.nqueue; i++)
		r = redo(&rs, rs.queue[i]);
	if (r == 0)
		r = rs.err;
	forget_was(v);
	pthread_rwlock_unlock(&v->stack);
	for (size_t i = 0; i < nopen; i++) {
		if (open_nodes[i]->gone)
			view_keep(v, open_nodes[i], open_fds[i]);
		else
			close(open_fds[i]);
	}
	free(open_nodes);
	free(open_fds);
	if (r < 0) {
		/* Half read again: what was not yet compared can only expire. */
		snprintf(err, errlen, "the view was read again only in part (%s): every "
			 "cached name expires", strerror(-r));
		rs.expire_all = true;
	}
	tell(&rs);
	layers_close(&old);
	free(rs.notes);
	free(rs.dirs);
	free(rs.queue);
	free(map);
	return r;
}

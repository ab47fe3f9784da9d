/*
 * The nodes of an overlay view.  A node is one entry of its parent's merged
 * index that the kernel holds; it finds its object again by path, from the
 * root of the layer that holds it, through each ancestor's spelling in that
 * layer (a merged directory has one per layer).  The layers change only
 * through the view while it is mounted (as for overlayfs), so an index,
 * once built, is kept current by the view's own changes, and one freed to
 * stay under -o index_mem and built again says what it said: its entries
 * find their nodes again by spelling.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/leases.h"
#include "common/lowlevel.h"
#include "common/util.h"
#include "view/view.h"

static struct view_node *node_new(unsigned char type)
{
	struct view_node *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->type = type;
	n->kept = -1;
	if (type == DT_DIR) {
		n->d = calloc(1, sizeof(*n->d));
		if (!n->d) {
			free(n);
			return NULL;
		}
		pthread_mutex_init(&n->d->change, NULL);
	}
	return n;
}

static void node_free(struct view_node *n)
{
	if (n->d) {
		for (unsigned i = 0; i < n->d->nparts; i++)
			free(n->d->parts[i].name);
		free(n->d->parts);
		merge_free(n->d->index);
		for (struct view_listing *l = n->d->old, *next; l; l = next) {
			next = l->next;
			merge_free(l->index);
			free(l);
		}
		handed_free(n->d->handed);
		pthread_mutex_destroy(&n->d->change);
		free(n->d);
	}
	if (n->kept >= 0)
		close(n->kept);
	free(n->readers);
	free(n->name);
	free(n);
}

/* The name kept.N (N = seq) of a gone node's object in the work directory. */
static void kept_path(uint64_t seq, char buf[static 32])
{
	snprintf(buf, 32, "kept.%" PRIu64, seq);
}

static void kept_unlink(struct view *v, uint64_t seq)
{
	char name[32];

	kept_path(seq, name);
	unlinkat(v->layers.workfd, name, 0);
}

static int add_part(struct view_dir *d, unsigned layer, unsigned from, const char *name)
{
	struct view_part *np = realloc(d->parts, (d->nparts + 1) * sizeof(*np));

	if (!np)
		return -ENOMEM;
	d->parts = np;
	np[d->nparts].layer = layer;
	np[d->nparts].from = from;
	np[d->nparts].name = strdup(name);
	if (!np[d->nparts].name)
		return -ENOMEM;
	d->nparts++;
	return 0;
}

/* The root: every layer's root, merged. */
int view_init(struct view *v)
{
	struct stat st;
	pthread_rwlockattr_t ra;

	pthread_mutex_init(&v->node_lock, NULL);
	/* A restack waits only for the requests under way, not for a stream
	 * of new ones: they wait behind it. */
	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&v->stack, &ra);
	pthread_rwlockattr_destroy(&ra);
	if (!v->index_limit)
		v->index_limit = CFS_INDEX_MEM_DEFAULT;
	v->root = node_new(DT_DIR);
	if (!v->root)
		return -ENOMEM;
	v->root->nlookup = 1;  /* never forgotten */
	v->root->name = strdup("");
	for (unsigned i = 0; i < v->layers.n; i++)
		if (!v->root->name || add_part(v->root->d, i, 0, "") < 0)
			return -ENOMEM;
	/* The bottom layer's root: its number stays when anything is copied up. */
	if (fstat(v->layers.l[v->layers.n - 1].fd, &st) < 0)
		return -errno;
	v->root->ino = layer_ino(&v->layers, v->layers.n - 1, st.st_ino);
	return 0;
}

/* At unmount, after the session: every node still held goes. */
void view_destroy(struct view *v)
{
	while (v->all) {
		struct view_node *n = v->all;

		v->all = n->all_next;
		if (n->kept_name)
			kept_unlink(v, n->kept_name);
		node_free(n);
	}
	node_free(v->root);
	free(v->links);
	layers_close(&v->layers);
	pthread_mutex_destroy(&v->node_lock);
	pthread_rwlock_destroy(&v->stack);
}

struct view_node *view_node(struct view *v, uint64_t id)
{
	return id == FUSE_ROOT_ID ? v->root : (struct view_node *)(uintptr_t)id;
}

uint64_t view_id(const struct view *v, const struct view_node *n)
{
	return n == v->root ? FUSE_ROOT_ID : (uint64_t)(uintptr_t)n;
}

/*
 * The path of name (NULL: of the part itself) inside dir's part `part`,
 * relative to its layer's root ("" for the root), written from the end of
 * buf; *layer: that layer.  -ENOENT if dir or an ancestor is gone,
 * -ENAMETOOLONG past len - 1 bytes.  Node lock.
 */
static int part_path_locked(struct view *v, struct view_node *dir, unsigned part,
			    const char *name, char *buf, size_t len, unsigned *layer)
{
	size_t pos = len - 1;

	buf[pos] = '\0';
	for (const char *s = name; s || dir != v->root;) {
		size_t l;

		if (!s) {
			const struct view_part *p = &dir->d->parts[part];

			if (dir->gone || !p->name)
				return -ENOENT;
			s = p->name;
			part = p->from;
			dir = dir->parent;
		}
		l = strlen(s);
		if (pos < l + (pos < len - 1))
			return -ENAMETOOLONG;
		if (pos < len - 1)
			buf[--pos] = '/';  /* between this name and the one below it */
		pos -= l;
		memcpy(buf + pos, s, l);
		s = NULL;
	}
	*layer = v->root->d->parts[part].layer;
	memmove(buf, buf + pos, len - pos);
	return 0;
}

int view_part_path_locked(struct view *v, struct view_node *dir, unsigned part,
			  const char *name, char *buf, size_t len)
{
	unsigned layer;

	return part_path_locked(v, dir, part, name, buf, len, &layer);
}

int view_part_path(struct view *v, struct view_node *dir, unsigned part, const char *name,
		   char *buf, size_t len)
{
	unsigned layer;
	int r;

	pthread_mutex_lock(&v->node_lock);
	r = part_path_locked(v, dir, part, name, buf, len, &layer);
	pthread_mutex_unlock(&v->node_lock);
	return r;
}

/* The index of dir's top part: the first read (node lock). */
static unsigned top_part(const struct view_node *dir)
{
	unsigned best = 0;

	for (unsigned i = 1; i < dir->d->nparts; i++)
		if (dir->d->parts[i].name && (!dir->d->parts[best].name ||
					      dir->d->parts[i].layer < dir->d->parts[best].layer))
			best = i;
	return best;
}

/* The part of dir in the upper layer where the view makes new names: the
 * first of layer 0 (the one copy-up made, or the smallest spelling of the
 * upper layer's twins); -ENOENT if there is none (node lock). */
static int upper_part_locked(const struct view_node *dir)
{
	for (unsigned i = 0; i < dir->d->nparts; i++)
		if (dir->d->parts[i].layer == 0 && dir->d->parts[i].name)
			return (int)i;
	return -ENOENT;
}

/* Whether the upper layer holds dir (node lock). */
bool view_in_upper(const struct view_node *dir)
{
	return upper_part_locked(dir) >= 0;
}

/* dir merges the directory name of its parent's part `from` in layer too
 * (a copy-up made it; node lock). */
int view_add_part(struct view_node *dir, unsigned layer, unsigned from, const char *name)
{
	return add_part(dir->d, layer, from, name);
}

int view_upper_part(struct view *v, struct view_node *dir)
{
	int r;

	pthread_mutex_lock(&v->node_lock);
	r = upper_part_locked(dir);
	pthread_mutex_unlock(&v->node_lock);
	return r;
}

/* n's object's path (*layer: its layer), as for part_path_locked. */
static int node_path_locked(struct view *v, struct view_node *n, char *buf, size_t len,
			    unsigned *layer)
{
	unsigned top;

	if (!n->d)
		return n->gone ? -ENOENT
			       : part_path_locked(v, n->parent, n->from, n->name, buf, len, layer);
	if (n == v->root) {
		*layer = v->root->d->parts[top_part(n)].layer;
		buf[0] = '\0';
		return 0;
	}
	top = top_part(n);
	return n->gone || !n->d->parts[top].name
	       ? -ENOENT
	       : part_path_locked(v, n->parent, n->d->parts[top].from, n->d->parts[top].name, buf,
				  len, layer);
}

/*
 * Whether a name of len bytes in dir has a path the view can reach in the
 * upper layer (PATH_MAX, fs/view/DESIGN.md), where each directory is spelled as
 * the view spells it: checked before anything is made, so that a refused
 * creation or rename leaves nothing behind.
 */
int view_room(struct view *v, struct view_node *dir, size_t len)
{
	size_t total = len;

	pthread_mutex_lock(&v->node_lock);
	for (struct view_node *n = dir; n != v->root; n = n->parent)
		total += strlen(n->name) + 1;
	pthread_mutex_unlock(&v->node_lock);
	return total > PATH_MAX - 1 ? -ENAMETOOLONG : 0;
}

/* Whether what fd holds (fstat into st) is of n's type. */
static bool same_type(int fd, const struct view_node *n, struct stat *st)
{
	return fstat(fd, st) == 0 && IFTODT(st->st_mode) == n->type;
}

/*
 * A gone node's object, by the descriptor it kept (fills st, as below): a
 * file no name of the view shows any more but that the kernel still
 * reaches — open, or by a link's dentry.
 */
static int open_kept(int kept, int flags, struct stat *st)
{
	char proc[32];
	int fd;

	if (flags & O_PATH)
		fd = fcntl(kept, F_DUPFD_CLOEXEC, 0);
	else {
		fd_procpath(kept, proc);
		fd = open(proc, (flags & ~(O_NOFOLLOW | O_CREAT | O_EXCL)) | O_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	if ((flags & O_PATH) && fstat(fd, st) < 0) {
		close(fd);
		return -errno;
	}
	return fd;
}

/*
 * An open for I/O of n's object at path in layer.  It never waits on a
 * FIFO put where n's file was (O_NONBLOCK, then the type is checked: the
 * kernel opens the view's own FIFOs itself, so the daemon never has one
 * to open), and waits for a lease break only within the bound of
 * leases.h, so that one user's leases or FIFOs cannot take every worker
 * (issue 33).
 */
static int open_io(struct view *v, struct view_node *n, unsigned layer, const char *path,
		   int flags)
{
	struct stat st;
	int fd = layer_open(&v->layers, layer, path, flags | O_NONBLOCK, 0);

	if (fd == -EWOULDBLOCK && !(flags & O_NONBLOCK) && lease_wait_begin()) {
		fd = layer_open(&v->layers, layer, path, flags, 0);
		lease_wait_end();
	}
	if (fd < 0)
		return fd;
	if (!same_type(fd, n, &st)) {
		close(fd);
		return -ENOENT;
	}
	if (fcntl(fd, F_SETFL, flags) < 0) {  /* the status flags asked for */
		close(fd);
		return -EIO;
	}
	return fd;
}

/*
 * An open for I/O of n's object at path in layer.  A change racing with
 * the request may have put another object there before the index says n
 * is gone — a whiteout, typically, which such an open refuses (ENXIO;
 * EACCES for a daemon that is not root: mode 000): a refusal is n's own
 * only if what stands at path is of n's type, else n is gone.  What is of
 * n's type at the probe may have come since the refusal (the name removed
 * and made again: tests/view/stress.sh, opens racing with removals), so
 * it is opened once more before its refusal is taken.
 */
static int open_io_checked(struct view *v, struct view_node *n, unsigned layer,
			   const char *path, int flags, struct stat *st)
{
	int fd = -EIO, probe;
	bool same;

	for (int tries = 0; tries < 2; tries++) {
		fd = open_io(v, n, layer, path, flags);
		if (fd >= 0 || fd == -ENOENT || fd == -EXDEV)
			return fd;
		probe = layer_open(&v->layers, layer, path, O_PATH | O_NOFOLLOW, 0);
		if (probe < 0)
			return fd;
		same = same_type(probe, n, st);
		close(probe);
		if (!same)
			return -ENOENT;
	}
	return fd;
}

/*
 * Opens n's object in the layer holding it (a gone node's: by the name or
 * descriptor it kept, view_keep); an O_PATH open fills st, and must find
 * an object of n's type, else n is gone.
 */
static int open_checked(struct view *v, struct view_node *n, int flags, struct stat *st)
{
	char path[PATH_MAX];
	unsigned layer = LAYER_WORK;  /* where a kept name is */
	uint64_t seq;
	int fd = 0, kept;

	pthread_mutex_lock(&v->node_lock);
	kept = n->gone ? n->kept : -1;
	seq = n->gone ? n->kept_name : 0;
	if (seq)
		kept_path(seq, path);
	else if (kept < 0)
		fd = node_path_locked(v, n, path, sizeof(path), &layer);
	pthread_mutex_unlock(&v->node_lock);
	if (kept >= 0)
		return open_kept(kept, flags, st);
	if (fd < 0)
		return fd;
	fd = flags & O_PATH ? layer_open(&v->layers, layer, path, flags, 0)
			    : open_io_checked(v, n, layer, path, flags, st);
	if (fd == -EXDEV)
		return -EACCES;  /* a mount inside a layer: not entered (layers.c) */
	if (fd < 0 || !(flags & O_PATH))
		return fd;
	if (!same_type(fd, n, st)) {
		close(fd);
		return -ENOENT;
	}
	return fd;
}

int view_open(struct view *v, struct view_node *n, int flags)
{
	struct stat st;

	return open_checked(v, n, flags, &st);
}

/* n's attributes as the view shows them. */
int view_stat(struct view *v, struct view_node *n, struct stat *st)
{
	int fd = open_checked(v, n, O_PATH | O_NOFOLLOW, st);

	if (fd < 0)
		return fd;
	close(fd);
	view_adjust(v, n, st);
	return 0;
}

static struct view_node **link_slot(struct view *v, uint64_t ino)
{
	return &v->links[(ino * 0x9e3779b97f4a7c15ULL >> 32) & (v->links_cap - 1)];
}

/* How many names of the upper object ino are the view's own, kept in the
 * work directory for gone nodes (view_keep), not the user's (node lock). */
static nlink_t kept_links(struct view *v, ino_t ino)
{
	nlink_t k = 0;

	if (!v->nkept)
		return 0;
	for (struct view_node *m = *link_slot(v, ino); m; m = m->link_next)
		k += m->ino == ino && m->kept_name;
	return k;
}

/* What the view shows of the backing attributes st of n's object. */
void view_adjust(struct view *v, struct view_node *n, struct stat *st)
{
	nlink_t k;

	pthread_mutex_lock(&v->node_lock);
	if (n->d) {
		st->st_ino = n->ino;
		/* Like overlayfs: a merged directory's link count is unknown (1),
		 * which tells find and fts not to count subdirectories by it.  In
		 * a writable view every directory's is, so that a copy-up (which
		 * merges it) changes no count the kernel may have kept. */
		if (n->d->nparts > 1 || v->layers.upper)
			st->st_nlink = 1;
	} else {
		k = n->layer == 0 ? kept_links(v, st->st_ino) : 0;
		st->st_nlink -= k < st->st_nlink ? k : st->st_nlink;
		st->st_ino = layer_ino(&v->layers, n->layer, st->st_ino);
	}
	pthread_mutex_unlock(&v->node_lock);
}

/* Whether the upper layer's directory name in dir's part `part` is opaque;
 * *ino: its number as the view shows it, when it is found. */
static bool opaque_at(struct view *v, struct view_node *dir, unsigned part, const char *name,
		      uint64_t *ino)
{
	char path[PATH_MAX];
	struct stat st;
	bool opaque;
	int fd = view_part_path(v, dir, part, name, path, sizeof(path));

	if (fd == 0)
		fd = layer_open(&v->layers, 0, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	if (fd < 0)
		return false;
	opaque = marker_opaque(fd);
	if (fstat(fd, &st) == 0)
		*ino = layer_ino(&v->layers, 0, st.st_ino);
	close(fd);
	return opaque;
}

/*
 * Seals each directory the upper layer holds opaque (any of its twins
 * there): it hides, not merges, the directories below and keeps its own
 * number, that of its smallest spelling there (merge.h, merge_seal).
 */
static void seal(struct view *v, struct view_node *dir, struct merge *m)
{
	for (uint32_t i = merge_merged(m, MERGE_NONE); i != MERGE_NONE; i = merge_merged(m, i)) {
		const struct merge_entry *e = merge_entry(m, i);
		uint64_t own = e->ino, other;
		bool opaque = opaque_at(v, dir, e->from, merge_name(m, i), &own);
		unsigned layer, from;
		const char *s;

		for (uint32_t p = e->lower; !opaque && p != MERGE_NONE;) {
			p = merge_part(m, p, &layer, &from, &s);
			opaque = layer == 0 && opaque_at(v, dir, from, s, &other);
		}
		if (opaque)
			merge_seal(m, i, own);
	}
}

/* The fewest parts a directory keeps its lower parts' listings for (a
 * restack merges it again from them; fewer are read again). */
#define VIEW_KEEP_PARTS 4

/* Orders dir's parts as they are read: by layer, then by index. */
static int part_order(const void *a, const void *b)
{
	const unsigned *x = a, *y = b;

	return x[1] != y[1] ? (x[1] < y[1] ? -1 : 1) : (x[0] > y[0]) - (x[0] < y[0]);
}

/* Part `part` of dir, of layer, read (0 or -errno). */
static int read_part(struct view *v, struct view_node *dir, unsigned part, unsigned layer,
		     struct listing **l)
{
	char path[PATH_MAX];
	int fd, r = view_part_path(v, dir, part, NULL, path, sizeof(path));

	if (r < 0)
		return r;
	fd = layer_open(&v->layers, layer, path, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	r = listing_read(&v->names, fd, l);
	close(fd);
	return r;
}

/*
 * Reads every part of dir into a new index (change lock held), layer by
 * layer; an opaque part ends the reading after its layer's other parts.
 * A part whose listing is in reuse (by part, or reuse NULL; a restack's
 * lower parts it had read before) is not read again; the index keeps the
 * lower layers' listings of a directory of many parts (listing.c), and
 * reuse is emptied.
 */
int view_build(struct view *v, struct view_node *dir, struct listing **reuse,
	       struct merge **out)
{
	struct merge *m = merge_new(&v->index_bytes);
	unsigned (*order)[2] = NULL, n, stop = UINT_MAX;
	int r = m ? 0 : -ENOMEM;

	pthread_mutex_lock(&v->node_lock);
	n = dir->d->nparts;
	if (r == 0 && !(order = malloc(n * sizeof(*order))))
		r = -ENOMEM;
	for (unsigned i = 0; r == 0 && i < n; i++) {
		order[i][0] = i;
		order[i][1] = dir->d->parts[i].name ? dir->d->parts[i].layer : UINT_MAX;
	}
	pthread_mutex_unlock(&v->node_lock);
	if (r == 0)
		qsort(order, n, sizeof(*order), part_order);
	for (unsigned i = 0; r == 0 && i < n && order[i][1] <= stop; i++) {
		unsigned part = order[i][0], layer = order[i][1];
		struct listing *l = reuse ? reuse[part] : NULL;

		if (l)
			reuse[part] = NULL;
		else if ((r = read_part(v, dir, part, layer, &l)) < 0)
			break;
		r = merge_feed(m, &v->names, &v->layers, layer, part, l);
		if (r == 1) {  /* opaque: nothing further down */
			stop = layer;
			r = 0;
		}
		/* The upper layer's parts change as the view writes: read each time;
		 * so is a directory of a few parts, as cheap to read as to keep. */
		if (r < 0 || (layer == 0 && v->layers.upper) || n < VIEW_KEEP_PARTS ||
		    merge_keep(m, part, l) < 0)
			listing_free(l);
	}
	for (unsigned i = 0; reuse && i < n; i++) {
		listing_free(reuse[i]);
		reuse[i] = NULL;
	}
	free(order);
	if (r < 0) {
		merge_free(m);
		return r;
	}
	merge_finish(m);
	seal(v, dir, m);
	*out = m;
	return 0;
}

/* Puts dir, whose index was just built, on the ring (node lock). */
static void ring_add(struct view *v, struct view_node *dir)
{
	struct view_node *h = v->hand;

	if (!h) {
		v->hand = dir->d->rnext = dir->d->rprev = dir;
		return;
	}
	dir->d->rnext = h;
	dir->d->rprev = h->d->rprev;
	h->d->rprev->d->rnext = dir;
	h->d->rprev = dir;
}

/* Takes dir's index off the ring, and returns it (node lock). */
static struct merge *ring_unlink(struct view *v, struct view_node *dir)
{
	struct view_dir *d = dir->d;
	struct merge *m = d->index;

	if (!m)
		return NULL;
	if (d->rnext == dir) {
		v->hand = NULL;
	} else {
		d->rprev->d->rnext = d->rnext;
		d->rnext->d->rprev = d->rprev;
		if (v->hand == dir)
			v->hand = d->rnext;
	}
	d->rnext = d->rprev = NULL;
	d->index = NULL;
	return m;
}

/* Frees dir's index and takes it off the ring (node lock). */
static void ring_drop(struct view *v, struct view_node *dir)
{
	merge_free(ring_unlink(v, dir));
}

/*
 * Whether nothing refers to dir's index but dir (node lock).  Its nodes do
 * not: reattach gives them their entries in the index built next.
 */
static bool unused(const struct view_node *dir)
{
	return !dir->d->busy && !dir->opens && !dir->gone;
}

/*
 * Brings the indexes' memory back under the bound if it went over, by
 * freeing indexes other than the one just built that were not used since
 * the hand last passed and that nothing refers to.  Two turns of the ring
 * at most: one to take the second chances.  Node lock.
 */
static void trim(struct view *v)
{
	size_t n = 0;

	if (atomic_load(&v->index_bytes) <= v->index_limit)
		return;
	for (struct view_node *i = v->hand; i; i = i->d->rnext) {
		n++;
		if (i->d->rnext == v->hand)
			break;
	}
	for (size_t k = 0; k < 2 * n && v->hand && atomic_load(&v->index_bytes) > v->index_limit;
	     k++) {
		struct view_node *dir = v->hand;

		v->hand = dir->d->rnext;
		if (!unused(dir))
			continue;
		if (dir->d->used) {
			dir->d->used = false;
			continue;
		}
		ring_drop(v, dir);
		dir->d->evicted = true;
		v->index_evictions++;
	}
}

/*
 * Gives each node dir still has (the kernel holds it, its index having been
 * freed) its entry in m, the index just built: its group's, which must
 * show the node's very object (spelling, type, layer and part).  The
 * layers change only through the view, and the view keeps them saying
 * what its indexes say (fs/view/DESIGN.md, "One name per group"), so each is
 * found; a node that is not (a layer changed behind the view's back) is
 * gone, as a name removed.  Node lock.
 */
static void reattach(struct view *v, struct view_node *dir, struct merge *m)
{
	for (struct view_node *n = dir->d->kids; n; n = n->sib_next) {
		struct cfs_name cn = names_name(n->name);
		struct merge_entry *e = NULL;
		uint32_t idx;

		if (n->gone)
			continue;
		idx = merge_find(m, &v->names, &cn, NULL);
		if (idx != MERGE_NONE && strcmp(merge_name(m, idx), n->name) == 0)
			e = merge_entry(m, idx);
		if (!e || e->node || e->type != n->type || e->layer != n->layer ||
		    e->from != n->from) {
			n->gone = true;
			continue;
		}
		e->node = n;
		n->idx = idx;
	}
}

/*
 * dir's index is now m, built from its new parts by a restack (node
 * lock): the old one goes, or stays for the listings open on it.
 */
void view_install(struct view *v, struct view_node *dir, struct merge *m)
{
	struct view_dir *d = dir->d;
	struct view_listing *l = d->gen_opens && d->index ? malloc(sizeof(*l)) : NULL;

	if (l) {
		*l = (struct view_listing){ .index = ring_unlink(v, dir), .gen = d->gen,
					    .opens = d->gen_opens, .next = d->old };
		d->old = l;
		d->gen++;
		d->gen_opens = 0;
	}
	ring_drop(v, dir);
	d->index = m;
	if (m)
		ring_add(v, dir);
}

/* A listing of dir begins: it reads the index of the generation returned. */
uint64_t view_listing_open(struct view *v, struct view_node *dir)
{
	uint64_t gen;

	pthread_mutex_lock(&v->node_lock);
	gen = dir->d->gen;
	dir->d->gen_opens++;
	pthread_mutex_unlock(&v->node_lock);
	return gen;
}

/* The index a listing of generation gen reads (node lock). */
struct merge *view_listing_index(struct view_node *dir, uint64_t gen)
{
	for (struct view_listing *l = dir->d->old; l; l = l->next)
		if (l->gen == gen)
			return l->index;
	return dir->d->index;
}

void view_listing_close(struct view *v, struct view_node *dir, uint64_t gen)
{
	struct view_listing **p, *l = NULL;

	pthread_mutex_lock(&v->node_lock);
	if (gen == dir->d->gen)
		dir->d->gen_opens--;
	for (p = &dir->d->old; *p; p = &(*p)->next)
		if ((*p)->gen == gen) {
			if (--(*p)->opens == 0) {
				l = *p;
				*p = l->next;
			}
			break;
		}
	pthread_mutex_unlock(&v->node_lock);
	if (l) {
		merge_free(l->index);
		free(l);
	}
}

/* Holds dir's index for a request if it has one (node lock). */
static bool hold(struct view_node *dir)
{
	if (!dir->d->index)
		return false;
	dir->d->busy++;
	dir->d->used = true;
	return true;
}

/*
 * Builds dir's merged index if it has none yet (change lock not held) and
 * keeps it for the caller, who calls view_index_done once it no longer
 * reads the index (on 0 only).
 */
int view_index(struct view *v, struct view_node *dir)
{
	struct merge *m = NULL;
	bool have;
	int r = 0;

	if (!dir->d)
		return -ENOTDIR;
	pthread_mutex_lock(&v->node_lock);
	have = hold(dir);
	pthread_mutex_unlock(&v->node_lock);
	if (have)
		return 0;
	pthread_mutex_lock(&dir->d->change);
	/* Built meanwhile?  Held in the same hold of the node lock that saw
	 * it: once that lock is let go, another build's trim may free it. */
	pthread_mutex_lock(&v->node_lock);
	have = hold(dir);
	pthread_mutex_unlock(&v->node_lock);
	if (!have && (r = view_build(v, dir, NULL, &m)) == 0) {
		pthread_mutex_lock(&v->node_lock);
		reattach(v, dir, m);
		dir->d->index = m;
		hold(dir);
		ring_add(v, dir);
		trim(v);
		pthread_mutex_unlock(&v->node_lock);
	}
	pthread_mutex_unlock(&dir->d->change);
	return r;
}

void view_index_done(struct view *v, struct view_node *dir)
{
	pthread_mutex_lock(&v->node_lock);
	dir->d->busy--;
	pthread_mutex_unlock(&v->node_lock);
}

/* A directory's part as merge_part gives it. */
struct part_ref {
	unsigned layer, from;
	const char *name;
};

/* Orders a new directory's parts as they are to be read (view_part): by
 * layer, spelling, and the parent's part (read in that order too). */
static int part_ref_order(const void *a, const void *b)
{
	const struct part_ref *x = a, *y = b;
	int c;

	if (x->layer != y->layer)
		return x->layer < y->layer ? -1 : 1;
	if ((c = strcmp(x->name, y->name)) != 0)
		return c;
	return (x->from > y->from) - (x->from < y->from);
}

/*
 * Gives d, a new directory node's, the parts of entry e of its parent's
 * index m: its own and those merged into it, in the order they are read,
 * at most VIEW_PARTS_MAX less one (room for the part a copy-up adds; a
 * hostile layer's thousands of twins of one directory merge as far as
 * that and no further, the rest being the bottom ones).  Node lock.
 */
static int add_parts(struct view_dir *d, const struct merge *m, uint32_t idx)
{
	const struct merge_entry *e = merge_entry(m, idx);
	size_t count = 1, cap = 4;
	struct part_ref *refs = malloc(cap * sizeof(*refs)), *more;
	int r = 0;

	if (!refs)
		return -ENOMEM;
	refs[0] = (struct part_ref){ .layer = e->layer, .from = e->from,
				     .name = merge_name(m, idx) };
	for (uint32_t p = e->lower; p != MERGE_NONE; count++) {
		if (count == cap) {
			if (!(more = realloc(refs, 2 * cap * sizeof(*refs)))) {
				free(refs);
				return -ENOMEM;
			}
			refs = more;
			cap *= 2;
		}
		p = merge_part(m, p, &refs[count].layer, &refs[count].from, &refs[count].name);
	}
	qsort(refs, count, sizeof(*refs), part_ref_order);
	if (count > VIEW_PARTS_MAX - 1)
		count = VIEW_PARTS_MAX - 1;
	for (size_t i = 0; r == 0 && i < count; i++)
		r = add_part(d, refs[i].layer, refs[i].from, refs[i].name);
	free(refs);
	return r;
}

/* dir's parts are now those of entry idx of its parent's index m (node
 * lock; a restack, which keeps the old ones in was until it is done). */
int view_set_parts(struct view_node *dir, const struct merge *m, uint32_t idx)
{
	struct view_dir *d = dir->d;

	d->was = d->parts;
	d->nwas = d->nparts;
	d->parts = NULL;
	d->nparts = 0;
	return add_parts(d, m, idx);
}

/*
 * The node of entry idx of dir's index, made if the kernel holds none yet;
 * the caller counts the kernel's reference.  Node lock held.
 */
struct view_node *view_child(struct view *v, struct view_node *dir, uint32_t idx)
{
	struct merge_entry *e = merge_entry(dir->d->index, idx);
	struct view_node *n = e->node;

	if (n)
		return n;
	n = node_new(e->type);
	if (!n)
		return NULL;
	n->name = strdup(merge_name(dir->d->index, idx));
	n->layer = e->layer;
	n->from = e->from;
	n->ino = e->ino;
	if (!n->name || (n->d && add_parts(n->d, dir->d->index, idx) < 0))
		goto fail;
	view_adopt(dir, n);
	n->idx = idx;
	e->node = n;
	v->nodes++;
	n->all_next = v->all;
	if (v->all)
		v->all->all_prev = n;
	v->all = n;
	return n;
fail:
	node_free(n);
	return NULL;
}

/* n off its parent's list of kids (node lock). */
static void kid_remove(struct view_node *n)
{
	if (n->sib_prev)
		n->sib_prev->sib_next = n->sib_next;
	else
		n->parent->d->kids = n->sib_next;
	if (n->sib_next)
		n->sib_next->sib_prev = n->sib_prev;
}

/* n, new or moved by a rename, names dir as its parent (node lock). */
void view_adopt(struct view_node *dir, struct view_node *n)
{
	if (n->parent)
		kid_remove(n);
	n->parent = dir;
	n->sib_prev = NULL;
	n->sib_next = dir->d->kids;
	if (dir->d->kids)
		dir->d->kids->sib_prev = n;
	dir->d->kids = n;
}

static void links_remove(struct view *v, struct view_node *n)
{
	struct view_node **p = link_slot(v, n->ino);

	while (*p != n)
		p = &(*p)->link_next;
	*p = n->link_next;
	n->in_links = false;
	v->nlinks--;
}

/* Doubles the table when it is as full as it is long (node lock). */
static void links_grow(struct view *v)
{
	size_t cap = v->links_cap ? v->links_cap * 2 : 64, old = v->links_cap;
	struct view_node **t = calloc(cap, sizeof(*t)), **was = v->links;

	if (!t)
		return;  /* longer chains */
	v->links = t;
	v->links_cap = cap;
	for (size_t i = 0; i < old; i++)
		for (struct view_node *n = was[i], *next; n; n = next) {
			struct view_node **slot = link_slot(v, n->ino);

			next = n->link_next;
			n->link_next = *slot;
			*slot = n;
		}
	free(was);
}

/* Enters n, whose ino is its upper object's, in the table (node lock);
 * false if there is no table to enter it in. */
static bool links_add(struct view *v, struct view_node *n)
{
	struct view_node **slot;

	if (v->nlinks >= v->links_cap)
		links_grow(v);
	if (!v->links_cap)
		return false;
	slot = link_slot(v, n->ino);
	n->link_next = *slot;
	*slot = n;
	n->in_links = true;
	v->nlinks++;
	return true;
}

/*
 * The node the kernel is to know the upper file n (attributes st, as the
 * view shows them) by: a file with several links is one inode to the
 * kernel under all its names, as on any filesystem — after a remount too,
 * when each name's first lookup makes a node of its own.  Else the kernel
 * would take a rename(2) from one name onto another for a real one (it
 * skips the call only for one inode) and move its dentry, leaving the
 * remaining name to a node whose own name is gone.  Returns n, entered in
 * the table, or the node already entered for the same object, with a
 * reference for the kernel (the caller drops n's).
 */
struct view_node *view_links(struct view *v, struct view_node *n, const struct stat *st)
{
	struct view_node *m = NULL;

	if (n->d || st->st_nlink <= 1)
		return n;
	pthread_mutex_lock(&v->node_lock);
	if (n->layer == 0 && !n->gone && !n->in_links) {
		n->ino = st->st_ino;
		if (v->links_cap)
			for (m = *link_slot(v, n->ino); m && (m->ino != n->ino || m->gone);)
				m = m->link_next;
		if (m) {
			m->nlookup++;
			m->linked = true;
		} else {
			links_add(v, n);
		}
	}
	pthread_mutex_unlock(&v->node_lock);
	return m ? m : n;
}

/* n keeps its object by the name kept.N (N = seq) if it can be found in
 * the table of links by its upper object's number ino (node lock). */
static bool keep_name(struct view *v, struct view_node *n, uint64_t seq, ino_t ino)
{
	if (!n->in_links) {
		n->ino = ino;
		if (!links_add(v, n))
			return false;
	}
	n->kept_name = seq;
	v->nkept++;
	return true;
}

/*
 * n is about to lose its name while the kernel may still reach it (open,
 * or by a link's dentry: ovl_dir.c, keep_object); fd, O_PATH, is its object,
 * and is taken.  An upper object keeps a name instead of the descriptor:
 * a hard link kept.N in the work directory, entered in the table of links
 * so that view_adjust hides it from the link count, and removed when the
 * kernel forgets n.  The descriptors then stay bounded by the open files,
 * whatever number of inodes the kernel remembers.  A lower object (an open
 * file whose name was whited out), or an upper one the daemon may not link
 * (protected_hardlinks, EMLINK), keeps fd.
 */
void view_keep(struct view *v, struct view_node *n, int fd)
{
	char proc[32], name[32];
	struct stat st;
	uint64_t seq;
	bool upper, named = false;

	pthread_mutex_lock(&v->node_lock);
	upper = n->layer == 0 && v->layers.workfd >= 0;
	seq = ++v->kept_names;
	pthread_mutex_unlock(&v->node_lock);
	kept_path(seq, name);
	fd_procpath(fd, proc);
	if (upper && fstat(fd, &st) == 0)
		named = linkat(AT_FDCWD, proc, v->layers.workfd, name, AT_SYMLINK_FOLLOW) == 0;
	pthread_mutex_lock(&v->node_lock);
	if (n->kept < 0 && !n->kept_name) {  /* else kept already */
		if (named && keep_name(v, n, seq, st.st_ino)) {
			named = false;
		} else {
			n->kept = fd;
			fd = -1;
		}
	}
	pthread_mutex_unlock(&v->node_lock);
	if (named)
		kept_unlink(v, seq);
	if (fd >= 0)
		close(fd);
}

/*
 * The work directory is about to change (a restack's new upper layer):
 * every gone node keeping its object by a name kept.N there keeps it by a
 * descriptor instead, and the name goes, so that nothing of the view's is
 * left in the old work directory.  The stack lock is held exclusive: no
 * request makes or frees a node, so the list is walked without the node
 * lock (RELEASE, which runs beside, reads no kept name).  A name that
 * cannot be opened (EMFILE) loses its object: its fstat answers ENOENT.
 */
void view_keep_fds(struct view *v)
{
	char name[32];
	int fd;

	for (struct view_node *k = v->all; k; k = k->all_next) {
		if (!k->kept_name)
			continue;
		kept_path(k->kept_name, name);
		fd = openat(v->layers.workfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		unlinkat(v->layers.workfd, name, 0);
		pthread_mutex_lock(&v->node_lock);
		k->kept = fd;
		k->kept_name = 0;
		v->nkept--;
		pthread_mutex_unlock(&v->node_lock);
	}
}

/* The kernel drops count references to n; what nothing holds goes. */
void view_forget(struct view *v, struct view_node *n, uint64_t count)
{
	uint64_t kept = 0;

	pthread_mutex_lock(&v->node_lock);
	n->nlookup -= count < n->nlookup ? count : n->nlookup;
	while (n != v->root && n->nlookup == 0 && !(n->d && n->d->kids)) {
		struct view_node *p = n->parent;

		if (!n->gone && p->d->index)
			merge_entry(p->d->index, n->idx)->node = NULL;
		kid_remove(n);
		if (n->in_links)
			links_remove(v, n);
		if (n->kept_name) {
			kept = n->kept_name;
			v->nkept--;
		}
		if (n->d)
			ring_drop(v, n);
		if (n->all_prev)
			n->all_prev->all_next = n->all_next;
		else
			v->all = n->all_next;
		if (n->all_next)
			n->all_next->all_prev = n->all_prev;
		node_free(n);
		v->nodes--;
		n = p;
	}
	pthread_mutex_unlock(&v->node_lock);
	if (kept)  /* a name in the work directory: not under the node lock */
		kept_unlink(v, kept);
}

/* A file opened on n (delta 1) or closed (-1). */
void view_opened(struct view *v, struct view_node *n, int delta)
{
	pthread_mutex_lock(&v->node_lock);
	n->opens += (uint32_t)delta;
	pthread_mutex_unlock(&v->node_lock);
}

/*
 * A file open for reading on n's object in layer, as fd: if that is a
 * lower layer, fd is entered for view_readers_move.  -EAGAIN if n was
 * copied up since the open (the caller opens the copy instead).
 */
int view_reader_add(struct view *v, struct view_node *n, unsigned layer, int fd)
{
	int *r, ret = 0;

	pthread_mutex_lock(&v->node_lock);
	if (n->layer != layer) {
		ret = -EAGAIN;
	} else if (layer != 0) {
		r = realloc(n->readers, (n->nreaders + 1) * sizeof(*r));
		if (r) {
			n->readers = r;
			r[n->nreaders++] = fd;
		} else {
			ret = -ENOMEM;
		}
	}
	pthread_mutex_unlock(&v->node_lock);
	return ret;
}

/* fd, open on n, is being closed. */
void view_reader_drop(struct view *v, struct view_node *n, int fd)
{
	pthread_mutex_lock(&v->node_lock);
	for (uint32_t i = 0; i < n->nreaders; i++)
		if (n->readers[i] == fd) {
			n->readers[i] = n->readers[--n->nreaders];
			break;
		}
	pthread_mutex_unlock(&v->node_lock);
}

/*
 * n was just copied up: every descriptor still open on its lower object
 * now holds the copy (dup3 onto the same number, which is what the
 * kernel's file handle names).  The kernel keeps one page cache for the
 * node, filled by whichever open file reads it: a read through an old
 * descriptor must not put the lower file's bytes there, where every
 * later open would find them (fs/view/DESIGN.md, "Copy-up").  If the copy
 * cannot be opened, the old descriptors keep the lower file.
 */
void view_readers_move(struct view *v, struct view_node *n)
{
	int fd;

	pthread_mutex_lock(&v->node_lock);
	fd = n->nreaders ? 0 : -1;
	pthread_mutex_unlock(&v->node_lock);
	if (fd < 0 || (fd = view_open(v, n, O_RDONLY | O_NOFOLLOW)) < 0)
		return;
	pthread_mutex_lock(&v->node_lock);
	for (uint32_t i = 0; i < n->nreaders; i++)
		dup3(fd, n->readers[i], O_CLOEXEC);
	n->nreaders = 0;
	pthread_mutex_unlock(&v->node_lock);
	close(fd);
}

/* The change locks of two directories (once if they are one). */
void view_lock2(struct view_node *a, struct view_node *b)
{
	if (a == b) {
		pthread_mutex_lock(&a->d->change);
		return;
	}
	if ((uintptr_t)a > (uintptr_t)b) {
		struct view_node *t = a;

		a = b;
		b = t;
	}
	pthread_mutex_lock(&a->d->change);
	pthread_mutex_lock(&b->d->change);
}

void view_unlock2(struct view_node *a, struct view_node *b)
{
	pthread_mutex_unlock(&a->d->change);
	if (a != b)
		pthread_mutex_unlock(&b->d->change);
}

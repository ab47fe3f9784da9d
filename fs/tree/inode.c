/*
 * The node table: one node per backing object the kernel remembers, found
 * by (st_dev, st_ino) in a chained hash table, and by its id (ids.c); the
 * root is FUSE_ROOT_ID and keeps its descriptor for good.
 *
 * A node holds a locator, not a descriptor (fs/tree/DESIGN.md, "Nodes and
 * descriptors"): a file handle where the backing filesystem gives one and
 * the daemon may open it, else its parent node and its name there.  It is
 * freed when the kernel has forgotten every lookup and no operation pins
 * it and no path locator names it as parent.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"
#include "tree/flagstore.h"
#include "tree/inode.h"

static size_t bucket(const struct cfs_nodes *nt, dev_t dev, ino_t ino)
{
	uint64_t h = (uint64_t)ino * 0x9e3779b97f4a7c15u ^ (uint64_t)dev;

	return (size_t)(h ^ h >> 29) & (nt->size - 1);
}

/*
 * The handle of the entry name of dfd ("" with AT_EMPTY_PATH: of dfd's own
 * object), if it can serve as its locator.
 */
static int handle_at(const struct cfs_nodes *nt, int dfd, const char *name, int flags,
		     union inode_handle *h)
{
	int mount_id;

	h->fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(dfd, name, &h->fh, &mount_id, flags) < 0)
		return -errno;
	/* Handles open only on the mount they came from: other mounts below
	 * the root (bind mounts, say) use path locators. */
	if (mount_id != nt->mount_id || h->fh.handle_bytes > UINT8_MAX)
		return -EXDEV;
	return 0;
}

static int get_handle(const struct cfs_nodes *nt, int fd, union inode_handle *h)
{
	return handle_at(nt, fd, "", AT_EMPTY_PATH, h);
}

/*
 * Can this daemon open handles of the root's mount?  It needs
 * CAP_DAC_READ_SEARCH, and a descriptor on the mount that is not O_PATH
 * (nt->mount_fd, kept open for open_by_handle_at).
 */
static bool probe_handles(struct cfs_nodes *nt, int rootfd)
{
	union inode_handle h;
	int fd;

	h.fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(rootfd, "", &h.fh, &nt->mount_id, AT_EMPTY_PATH) < 0)
		return false;
	nt->mount_fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (nt->mount_fd < 0)
		return false;
	fd = open_by_handle_at(nt->mount_fd, &h.fh, O_PATH | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return true;
	}
	close(nt->mount_fd);
	nt->mount_fd = -1;
	return false;
}

/*
 * Reads the flag of the directory open as fd, whose attributes were st
 * just before, into d.  That ctime lets dir.c notice a flag set or cleared
 * in the backing tree, and a default ACL set or removed (both move it),
 * which creations must know about (dir_default_acl).  A flag the daemon
 * may not read (an unprivileged daemon, a directory without read
 * permission for it) leaves the rule unknown: dir.c then answers only what
 * both rules agree on.
 */
/*
 * Records ctime as the one the flag was read at.  The backing filesystem
 * stamps a change with the coarse clock's tick (4 ms at HZ=250), so a
 * change made in the same tick as ctime leaves ctime as it is: until the
 * clock has moved past it, equal ctimes prove nothing, and dir.c reads the
 * flag again (git's "racily clean" index entries, for the same reason).
 */
void inode_stamp_flag(struct cfs_dir *d, const struct timespec *ctime)
{
	struct timespec now;

	d->flag_ctime = *ctime;
	d->flag_racy = clock_gettime(CLOCK_REALTIME_COARSE, &now) < 0 ||
		       now.tv_sec < ctime->tv_sec ||
		       (now.tv_sec == ctime->tv_sec && now.tv_nsec <= ctime->tv_nsec);
}

int inode_load_flag(struct cfs_dir *d, int fd, const struct stat *st)
{
	bool on;
	int err;

	inode_stamp_flag(d, &st->st_ctim);
	d->acl_known = false;
	err = flagstore_get(fd, &on);
	atomic_store(&d->casefold, on);
	d->flag_unknown = err == -EACCES;
	return d->flag_unknown ? 0 : err;
}

static struct dirpark_owner park_owner(const struct cfs_inode *dir, dev_t dev, ino_t ino)
{
	return (struct dirpark_owner){ .dev = dev, .ino = ino, .casefold = dir->d->casefold,
				       .handle_len = dir->handle_len, .handle = dir->handle };
}

/* A directory node's own state, for the directory open as fd, as st says. */
static int dir_record_init(struct cfs_inode *dir, int fd, const struct stat *st)
{
	struct cfs_dir *d = dir->d;
	struct dirpark_owner o;
	int err = inode_load_flag(d, fd, st);

	if (err < 0)
		return err;
	pthread_mutex_init(&d->lock, NULL);
	d->fd = -1;
	d->wd = -1;
	d->gone_reported = false;
	d->refusal_logged = 0;
	atomic_init(&d->entries_behind, false);
	o = park_owner(dir, st->st_dev, st->st_ino);
	d->index = dirpark_take(&o);
	dirindex_set_owner(d->index, &d->lock);
	return 0;
}

/*
 * The kernel forgot dir (or we unmount): its index is parked.  The lock is
 * taken because the bound on indexes' memory may be emptying it (dirindex.c).
 */
static void dir_record_fini(struct cfs_inode *dir)
{
	struct dirpark_owner o = park_owner(dir, dir->dev, dir->ino);
	struct cfs_dirindex *idx;

	pthread_mutex_lock(&dir->d->lock);
	idx = dir->d->index;
	dir->d->index = NULL;
	dirindex_set_owner(idx, NULL);
	pthread_mutex_unlock(&dir->d->lock);
	dirpark_put(&o, idx);
	pthread_mutex_destroy(&dir->d->lock);
}

int inode_table_init(struct cfs_nodes *nt, int rootfd, bool handles, uint32_t fd_cache)
{
	struct cfs_inode *root;
	struct stat st;
	int err;

	if (fstat(rootfd, &st) < 0)
		return -errno;
	nt->mount_fd = -1;
	nt->use_handles = handles && probe_handles(nt, rootfd);
	nt->root_handle.fh.handle_bytes = MAX_HANDLE_SZ;
	if (get_handle(nt, rootfd, &nt->root_handle) < 0)
		nt->root_handle.fh.handle_bytes = 0;
	nt->size = 1024;
	nt->count = 0;
	nt->table = calloc(nt->size, sizeof(*nt->table));
	if (!nt->table)
		return -ENOMEM;
	err = fdcache_init(&nt->fdc, fd_cache, fd_cache, &nt->lock);
	if (err < 0)
		return err;
	root = nt->root = calloc(1, sizeof(*root));
	if (!root || (err = ids_init(nt)) < 0)
		return root ? err : -ENOMEM;
	pthread_mutex_init(&nt->lock, NULL);
	root->dev = st.st_dev;
	root->ino = st.st_ino;
	root->type = S_IFDIR;
	root->fde.fd = rootfd;
	root->fde.slot = FDC_HELD;
	root->nlookup = 1;
	root->d = &nt->root_dir;
	return dir_record_init(root, rootfd, &st);
}

/* Frees a node taken out of the table; returns its parent to release. */
static struct cfs_inode *destroy(struct cfs_inode *in)
{
	struct cfs_inode *parent = in->parent;

	if (in->fde.fd >= 0)
		close(in->fde.fd);
	if (in->d) {
		dir_record_fini(in);
		free(in->d);
	}
	ids_free_aliases(in);
	free(in->name);
	free(in);
	return parent;
}

static bool unused(const struct cfs_nodes *nt, const struct cfs_inode *in)
{
	return in != nt->root && !in->nlookup && !in->fde.pins && !in->children;
}

static void unhook(struct cfs_nodes *nt, struct cfs_inode *in);

/*
 * -o nfs_nodes=N: a node with a file handle that the kernel forgot stays,
 * id and generation included, on a list of at most N, so that an NFS
 * client's handle still resolves (LOOKUP of "."), and a new lookup of its
 * object gets the same id.  Its directory index goes; the oldest kept node
 * that is still unused is freed when the list is full (table lock held).
 * A node with a derived id needs none of this: its id opens its object
 * again by handle (inode_lookup_id).
 */
static bool keep(struct cfs_nodes *nt, struct cfs_inode *in)
{
	if (!nt->keep_max || !in->handle_len || in->unhashed || ids_derived(in->id.value))
		return false;
	if (!in->kept) {
		in->kept = true;
		in->kept_next = NULL;
		if (nt->kept_tail)
			nt->kept_tail->kept_next = in;
		else
			nt->kept_head = in;
		nt->kept_tail = in;
		nt->kept++;
	}
	if (in->d && in->d->index) {
		dirindex_free(in->d->index);
		in->d->index = NULL;
	}
	while (nt->kept > nt->keep_max) {
		struct cfs_inode *old = nt->kept_head;

		nt->kept_head = old->kept_next;
		if (!nt->kept_head)
			nt->kept_tail = NULL;
		nt->kept--;
		old->kept = false;
		if (old != in && unused(nt, old)) {
			/* A handle node has no parent to release; its descriptor
			 * is an O_PATH one, whose close does not block. */
			unhook(nt, old);
			destroy(old);
		}
	}
	return in->kept;
}

/* Unhooks in if nothing needs it any more (table lock held): true if so. */
static bool unhook_if_unused(struct cfs_nodes *nt, struct cfs_inode *in)
{
	if (!unused(nt, in) || keep(nt, in))
		return false;
	if (in->kept)
		return false;  /* still listed (unhashed since): freed when dropped */
	unhook(nt, in);
	return true;
}

static void unhook(struct cfs_nodes *nt, struct cfs_inode *in)
{
	struct cfs_inode **p;

	p = in->unhashed ? &nt->unhashed : &nt->table[bucket(nt, in->dev, in->ino)];
	while (*p != in)
		p = &(*p)->next;
	*p = in->next;
	ids_drop(nt, in);
	nt->count--;
	if (!in->handle_len)
		nt->path_nodes--;
	if (in->fde.slot >= 0)
		fdcache_remove(&nt->fdc, &in->fde);
	handles_remove(nt, in);
}

/*
 * Drops one pin from in (or, with in's parent, one child reference) and
 * frees what is no longer needed, up the chain of path locators.
 */
static void release(struct cfs_nodes *nt, struct cfs_inode *in, bool pin)
{
	while (in) {
		bool gone;

		pthread_mutex_lock(&nt->lock);
		if (pin)
			in->fde.pins--;
		else
			in->children--;
		gone = unhook_if_unused(nt, in);
		pthread_mutex_unlock(&nt->lock);
		if (!gone)
			return;
		in = destroy(in);
		pin = false;
	}
}

/* Drops a pin taken without a descriptor (locator_pin's failure path). */
void inode_put(struct cfs_nodes *nt, struct cfs_inode *in)
{
	release(nt, in, true);
}

static void destroy_chain(struct cfs_inode *in)
{
	struct cfs_inode *next;

	for (; in; in = next) {
		next = in->next;
		in->parent = NULL;
		destroy(in);
	}
}

void inode_table_destroy(struct cfs_nodes *nt)
{
	for (size_t i = 0; i < nt->size; i++)
		destroy_chain(nt->table[i]);
	destroy_chain(nt->unhashed);
	free(nt->table);
	handles_destroy(nt);
	ids_destroy(nt);
	fdcache_destroy(&nt->fdc);
	dir_record_fini(nt->root);
	dirpark_clear();
	close(nt->root->fde.fd);
	free(nt->root);
	if (nt->mount_fd >= 0)
		close(nt->mount_fd);
	pthread_mutex_destroy(&nt->lock);
}

/* One more kernel reference on a node the caller knows to be alive. */
void inode_ref(struct cfs_nodes *nt, struct cfs_inode *in)
{
	pthread_mutex_lock(&nt->lock);
	in->nlookup++;
	pthread_mutex_unlock(&nt->lock);
}


/* Doubles the buckets when the table is full; a failed grow is harmless. */
static void maybe_grow(struct cfs_nodes *nt)
{
	size_t old = nt->size, size = old * 2;
	struct cfs_inode **t;

	if (nt->count < old || !(t = calloc(size, sizeof(*t))))
		return;
	struct cfs_inode **prev = nt->table;

	nt->table = t;
	nt->size = size;
	for (size_t i = 0; i < old; i++) {
		struct cfs_inode *in = prev[i], *next;

		for (; in; in = next) {
			size_t b = bucket(nt, in->dev, in->ino);

			next = in->next;
			in->next = t[b];
			t[b] = in;
		}
	}
	free(prev);
}

static struct cfs_inode *find_locked(struct cfs_nodes *nt, dev_t dev, ino_t ino)
{
	if (nt->root->dev == dev && nt->root->ino == ino)
		return nt->root;
	for (struct cfs_inode *in = nt->table[bucket(nt, dev, ino)]; in; in = in->next)
		if (in->dev == dev && in->ino == ino)
			return in;
	return NULL;
}

/*
 * Takes in out of the (dev, ino) table (table lock held): its object is gone,
 * so an object that reuses the inode number must get a node of its own.  It
 * lives on, out of the table, until the kernel forgets it.
 */
static void unhash_locked(struct cfs_nodes *nt, struct cfs_inode *in)
{
	struct cfs_inode **p = &nt->table[bucket(nt, in->dev, in->ino)];

	if (in == nt->root || in->unhashed)
		return;
	while (*p != in)
		p = &(*p)->next;
	*p = in->next;
	in->next = nt->unhashed;
	nt->unhashed = in;
	in->unhashed = true;
}

/* Same object, as far as file handles tell (nodes without one: assumed). */
static bool same_handle(const struct cfs_inode *a, const struct cfs_inode *b)
{
	return !a->handle_len || !b->handle_len ||
	       (a->handle_len == b->handle_len && a->handle_type == b->handle_type &&
		memcmp(a->handle, b->handle, a->handle_len) == 0);
}

/*
 * Points a path locator at (dir, name) (table lock held).  Returns the old
 * parent, whose child reference the caller releases, or NULL.  A failed
 * allocation keeps the old locator: at worst a later reopen is ESTALE.
 */
static struct cfs_inode *relocate(struct cfs_inode *in, struct cfs_inode *dir,
				  const char *name)
{
	struct cfs_inode *old = in->parent;
	char *copy;

	if (in->handle_len || !old || !name || (old == dir && strcmp(in->name, name) == 0))
		return NULL;
	copy = strdup(name);
	if (!copy)
		return NULL;
	free(in->name);
	in->name = copy;
	in->parent = dir;
	dir->children++;
	return old;
}

/*
 * A new node for the object st describes, found as name (NULL: reached
 * otherwise, so it needs a file handle), located by the handle h (NULL:
 * by that name).  A directory's record reads its flag from fd, the
 * object's descriptor; no other type needs one (-1).
 */
static int new_node(const char *name, const union inode_handle *h, int fd,
		    const struct stat *st, struct cfs_inode **out)
{
	size_t len = h ? h->fh.handle_bytes : 0;
	struct cfs_inode *in = calloc(1, sizeof(*in) + len);

	if (!in)
		return -ENOMEM;
	in->dev = st->st_dev;
	in->ino = st->st_ino;
	in->type = st->st_mode & S_IFMT;
	in->nlookup = 1;
	in->fde.fd = -1;
	in->fde.slot = FDC_NONE;
	if (h) {
		in->handle_len = (uint8_t)len;
		in->handle_type = h->fh.handle_type;
		memcpy(in->handle, h->fh.f_handle, len);
	} else if (!name || !(in->name = strdup(name))) {
		/* No name (reached by handle or as ".."): no locator at all. */
		free(in);
		return name ? -ENOMEM : -ESTALE;
	}
	if (S_ISDIR(st->st_mode)) {
		int err = (in->d = malloc(sizeof(*in->d))) ? dir_record_init(in, fd, st) : -ENOMEM;

		if (err < 0) {
			free(in->d);
			free(in->name);
			free(in);
			return err;
		}
	}
	*out = in;
	return 0;
}

/*
 * Takes one kernel reference on the node of the object st describes, found
 * as name in dir (NULL: by handle, or as ".."): fresh, a new node for it,
 * enters the table, unless a node for the object is there already (fresh
 * is then freed).  fd, an O_PATH descriptor on the object or -1, is
 * consumed: cached for the new node, or closed.
 */
static void add_node(struct cfs_nodes *nt, struct cfs_inode *dir, const char *name,
		     struct cfs_inode *fresh, int fd, const struct stat *st, struct cfs_inode **out)
{
	struct cfs_inode *in, *old = NULL;
	int evicted = -1;

	pthread_mutex_lock(&nt->lock);
	in = find_locked(nt, st->st_dev, st->st_ino);
	if (in && !same_handle(in, fresh)) {
		/* The inode number of an object that is gone, reused by a
		 * new one (the handle's generation differs): the old node
		 * names nothing now. */
		unhash_locked(nt, in);
		in = NULL;
	}
	if (in) {
		/* Known already (a racing lookup of another name of it won). */
		in->nlookup++;
		old = relocate(in, dir, name);
	} else {
		maybe_grow(nt);
		in = fresh;
		in->next = nt->table[bucket(nt, in->dev, in->ino)];
		nt->table[bucket(nt, in->dev, in->ino)] = in;
		ids_assign(nt, in);
		nt->count++;
		if (!in->handle_len) {
			in->parent = dir;
			dir->children++;
			nt->path_nodes++;
		} else {
			handles_add(nt, in);
		}
		if (fd >= 0) {
			evicted = fdcache_install(&nt->fdc, &in->fde, fd);
			if (in->fde.fd == fd)
				fd = -1;
		}
		fresh = NULL;
	}
	pthread_mutex_unlock(&nt->lock);
	if (old)
		release(nt, old, false);
	if (fresh)
		destroy(fresh);
	if (fd >= 0)
		close(fd);
	if (evicted >= 0)
		close(evicted);
	*out = in;
}

/*
 * Takes one kernel reference on the node of the object fd is on, whose
 * attributes are st, found as name in dir (NULL: by handle, or as "..",
 * which make no path locator), creating the node if needed.
 * With install, fd (O_PATH) is consumed: cached for the new node — just
 * looked up or made, so the kernel's next request is likely for it — or
 * closed; without, it is the caller's (an open file) and only lends the
 * new node its file handle.
 */
static int lookup_fd(struct cfs_nodes *nt, struct cfs_inode *dir, const char *name, int fd,
		     bool install, const struct stat *st, struct cfs_inode **out)
{
	union inode_handle h;
	bool handle = nt->use_handles && get_handle(nt, fd, &h) == 0;
	struct cfs_inode *fresh;
	int err = new_node(name, handle ? &h : NULL, fd, st, &fresh);

	if (err < 0) {
		if (install)
			close(fd);
		return err;
	}
	add_node(nt, dir, name, fresh, install ? fd : -1, st, out);
	return 0;
}

/*
 * Takes one kernel reference on the node of the object fd (O_PATH, consumed)
 * is on, found as name in dir, creating the node if needed; fills st.
 */
int inode_lookup_fd(struct cfs_nodes *nt, struct cfs_inode *dir, const char *name, int fd,
		    struct stat *st, struct cfs_inode **out)
{
	if (fstat(fd, st) < 0) {
		close(fd);
		return -errno;
	}
	return lookup_fd(nt, dir, name, fd, true, st, out);
}

/*
 * Likewise for a regular file just created as name and open as fd (not
 * consumed), whose attributes are st.  The node caches an O_PATH
 * descriptor of its own, reopened through /proc (no identity check
 * needed): it keeps the object reachable while cached, so that a later
 * open of this node still works after another process renamed something
 * over the name, as the kernel's dentry promises — a handle would answer
 * ESTALE then, and a second race during the kernel's retry would reach the
 * caller (tests/fs/stress_model.sh, 16 processes).  Without a descriptor
 * to spare, the node does without.
 */
int inode_lookup_open(struct cfs_nodes *nt, struct cfs_inode *dir, const char *name, int fd,
		      const struct stat *st, struct cfs_inode **out)
{
	char path[32];
	int pfd;

	fd_procpath(fd, path);
	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd >= 0)
		return lookup_fd(nt, dir, name, pfd, true, st, out);
	return lookup_fd(nt, dir, name, fd, false, st, out);
}

/*
 * inode_lookup's new node, made from the name alone where that is safe
 * (issue 40): no descriptor is opened, checked with fstat and cached (the
 * cache closing another node's for it) at every first lookup, where most
 * nodes are only looked up (find, ls -l, git status) or opened once, which
 * the handle or the name then does in one call (locator_open).  The
 * identity is the statx that gave st: dev, ino and type in one answer.  A
 * path locator needs nothing more; a file handle, a second call, is taken
 * only where it can be checked against st: a FILEID_INO32_GEN handle
 * (ext4's) holds the inode number.  Directories read their flag from a
 * descriptor; an object on another filesystem below the root goes that
 * way too.  Returns 0 with *out set, -errno, or 1: take the descriptor
 * way.
 *
 * What the two calls cannot tell apart: the object removed, and another
 * made under the name with the very inode number, between them.  The node
 * then has the new object's handle and the old one's type — the kernel
 * sees the new type at the first GETATTR, and an open reaches what the
 * name held a moment later, as the O_NONBLOCK first try of every open
 * allows for (a FIFO does not wait); a device node there needs CAP_MKNOD.
 */
static int lookup_lazy(struct cfs_nodes *nt, struct cfs_inode *dir, int dfd, const char *name,
		       const struct stat *st, struct cfs_inode **out)
{
	union inode_handle h;
	struct cfs_inode *fresh;
	int err;

	if (S_ISDIR(st->st_mode) || st->st_dev != dir->dev)
		return 1;
	if (nt->use_handles &&
	    (handle_at(nt, dfd, name, 0, &h) < 0 || ids_handle_ino(&h) != st->st_ino))
		return 1;
	err = new_node(name, nt->use_handles ? &h : NULL, -1, st, &fresh);
	if (err == 0)
		add_node(nt, dir, name, fresh, -1, st, out);
	return err;
}

/*
 * Takes one kernel reference on the node of the entry name in dir (whose
 * descriptor the caller has pinned as dfd), creating the node if needed.
 * st holds the entry's attributes as just read (dir_resolve_stat); where
 * a new node needs a descriptor, its attributes are read again from it.
 */
int inode_lookup(struct cfs_nodes *nt, struct cfs_inode *dir, int dfd, const char *name,
		 struct stat *st, struct cfs_inode **out)
{
	struct cfs_inode *in, *old = NULL;
	int fd, err;

	pthread_mutex_lock(&nt->lock);
	in = find_locked(nt, st->st_dev, st->st_ino);
	if (in) {
		in->nlookup++;
		old = relocate(in, dir, name);
	}
	pthread_mutex_unlock(&nt->lock);
	if (in) {
		if (old)
			release(nt, old, false);
		*out = in;
		return 0;
	}
	err = lookup_lazy(nt, dir, dfd, name, st, out);
	if (err <= 0)
		return err;
	/* Its identity comes from a descriptor, not the name, which could be
	 * swapped between two calls. */
	fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	return inode_lookup_fd(nt, dir, name, fd, st, out);
}

/*
 * The parent of the directory dir (pinned as dfd), with one kernel
 * reference, for the kernel's LOOKUP of ".." (NFS export); fills st.  The
 * root is its own parent.  A node already known is taken as it is (its
 * locator untouched); a new one needs a file handle, else ESTALE: a path
 * locator (dir, "..") would make dir hold its own parent.
 */
int inode_lookup_parent(struct cfs_nodes *nt, struct cfs_inode *dir, int dfd, struct stat *st,
			struct cfs_inode **out)
{
	struct cfs_inode *in;
	int fd;

	if (dir == nt->root) {
		inode_ref(nt, nt->root);
		*out = nt->root;
		return fstat(dfd, st) < 0 ? -errno : 0;
	}
	fd = openat(dfd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0) {
		close(fd);
		return -errno;
	}
	if (st->st_dev == dir->dev && st->st_ino == dir->ino) {
		/* The filesystem's root, reached without passing ours: dir is
		 * outside the tree (a forged handle's), and has no parent here. */
		close(fd);
		return -ESTALE;
	}
	pthread_mutex_lock(&nt->lock);
	in = find_locked(nt, st->st_dev, st->st_ino);
	if (in)
		in->nlookup++;
	pthread_mutex_unlock(&nt->lock);
	if (in) {
		close(fd);
		*out = in;
		return 0;
	}
	return lookup_fd(nt, dir, NULL, fd, true, st, out);
}

/*
 * A node for the derived id an NFS file handle holds, which this daemon
 * does not know (forgotten, or from an earlier mount): its object opened
 * by the handle the id is, or -ESTALE when that is gone.  The node must
 * get that id back (not so when an unhashed node still holds it, or the
 * object is the root): the kernel checks the answer's id against the one
 * it asked for.
 */
static int lookup_derived(struct cfs_nodes *nt, fk_ino_t id, struct cfs_inode **out)
{
	union inode_handle h;
	struct stat st;
	int fd, err;

	ids_handle(id, &h);
	do
		fd = open_by_handle_at(nt->mount_fd, &h.fh, O_PATH | O_CLOEXEC);
	while (fd < 0 && fdcache_shed(&nt->fdc, errno));
	if (fd < 0)
		return errno == ENOENT || errno == ESTALE || errno == EINVAL ? -ESTALE : -errno;
	err = inode_lookup_fd(nt, nt->root, NULL, fd, &st, out);
	if (err == 0 && (*out)->id.value != id) {
		inode_forget(nt, *out, 1);
		err = -ESTALE;
	}
	return err;
}

/*
 * The node of any id an NFS file handle holds (LOOKUP of "."), with one
 * kernel reference and the id's generation: one in the id set as it is,
 * a derived one by its handle (where this daemon opens handles); any
 * other is stale.
 */
int inode_lookup_id(struct cfs_nodes *nt, fk_ino_t id, struct cfs_inode **out,
		    uint64_t *generation)
{
	if (id == FUSE_ROOT_ID) {
		inode_ref(nt, nt->root);
		*generation = 0;
		*out = nt->root;
		return 0;
	}
	*out = ids_ref(nt, id, generation);
	if (*out)
		return 0;
	if (!nt->use_handles || !ids_derived(id))
		return -ESTALE;
	*generation = 0;
	return lookup_derived(nt, id, out);
}

void inode_forget(struct cfs_nodes *nt, struct cfs_inode *in, uint64_t n)
{
	bool gone;

	pthread_mutex_lock(&nt->lock);
	in->nlookup = in->nlookup > n ? in->nlookup - n : 0;
	gone = unhook_if_unused(nt, in);
	pthread_mutex_unlock(&nt->lock);
	if (gone && (in = destroy(in)))
		release(nt, in, false);
}

/* FORGET of n references by the id ino: the id's part (ids_forget), then the node's. */
void inode_forget_id(struct cfs_nodes *nt, fk_ino_t ino, uint64_t n)
{
	inode_forget(nt, ids_forget(nt, ino, n), n);
}

/*
 * After FS_IOC_SETVERSION changed the generation of in's object, open as
 * fd: its file handle changed with it, and the old one would answer ESTALE
 * (an open file's next read would fail).  Takes the new one if it is as
 * long as the old.
 */
void inode_rehandle(struct cfs_nodes *nt, struct cfs_inode *in, int fd)
{
	union inode_handle h;

	if (!in->handle_len || get_handle(nt, fd, &h) < 0)
		return;
	pthread_mutex_lock(&nt->lock);
	if (h.fh.handle_bytes == in->handle_len && h.fh.handle_type == in->handle_type)
		memcpy(in->handle, h.fh.f_handle, in->handle_len);
	pthread_mutex_unlock(&nt->lock);
}

/*
 * The node of (dev, ino), pinned (release with inode_put), or NULL: for
 * the watcher, which learns of objects by identity, not by name.
 */
struct cfs_inode *inode_find(struct cfs_nodes *nt, dev_t dev, ino_t ino)
{
	struct cfs_inode *in;

	pthread_mutex_lock(&nt->lock);
	in = find_locked(nt, dev, ino);
	if (in)
		in->fde.pins++;
	pthread_mutex_unlock(&nt->lock);
	return in;
}

/*
 * The ids of every node the kernel may remember, root included, in a new
 * array (*ids, for the caller to free); returns how many, 0 when out of
 * memory.  A snapshot: nodes may go meanwhile, and ids of forgotten nodes
 * are harmless to the kernel's invalidation calls.
 */
size_t inode_ids(struct cfs_nodes *nt, fk_ino_t **ids)
{
	size_t n = 0;

	pthread_mutex_lock(&nt->lock);
	*ids = malloc((nt->count + 1) * sizeof(**ids));
	if (*ids) {
		(*ids)[n++] = FUSE_ROOT_ID;
		for (size_t b = 0; b < nt->size; b++)
			for (struct cfs_inode *in = nt->table[b]; in; in = in->next)
				(*ids)[n++] = in->id.value;
	}
	pthread_mutex_unlock(&nt->lock);
	return n;
}

/* unhash_locked, for a caller without the table lock. */
void inode_unhash(struct cfs_nodes *nt, struct cfs_inode *in)
{
	pthread_mutex_lock(&nt->lock);
	unhash_locked(nt, in);
	pthread_mutex_unlock(&nt->lock);
}

/*
 * Counts an open of in (ops_file.c, "File data"): a writer is counted
 * before the backing open can truncate.  True if the open must bypass the
 * page cache: a reader while someone writes.
 */
bool inode_writer_open(struct cfs_nodes *nt, struct cfs_inode *in, bool writer)
{
	bool direct;

	pthread_mutex_lock(&nt->lock);
	if (writer)
		in->writers++;
	direct = !writer && in->writers > 0;
	pthread_mutex_unlock(&nt->lock);
	return direct;
}

/* Whether in is open for writing through the mount. */
bool inode_writing(struct cfs_nodes *nt, struct cfs_inode *in)
{
	bool writing;

	pthread_mutex_lock(&nt->lock);
	writing = in->writers > 0;
	pthread_mutex_unlock(&nt->lock);
	return writing;
}

void inode_writer_close(struct cfs_nodes *nt, struct cfs_inode *in)
{
	pthread_mutex_lock(&nt->lock);
	in->writers--;
	pthread_mutex_unlock(&nt->lock);
}

/*
 * After the daemon renamed the object st describes to name in ndir: a path
 * locator follows it.
 */
void inode_moved(struct cfs_nodes *nt, const struct stat *st, struct cfs_inode *ndir,
		 const char *name)
{
	struct cfs_inode *in, *old = NULL;

	pthread_mutex_lock(&nt->lock);
	in = find_locked(nt, st->st_dev, st->st_ino);
	if (in)
		old = relocate(in, ndir, name);
	pthread_mutex_unlock(&nt->lock);
	if (old)
		release(nt, old, false);
}

/* Whether any node has a path locator, which renames and removals move. */
bool inode_any_path_nodes(struct cfs_nodes *nt)
{
	bool any;

	pthread_mutex_lock(&nt->lock);
	any = nt->path_nodes > 0;
	pthread_mutex_unlock(&nt->lock);
	return any;
}

/*
 * Whether in's object, which st describes, stays reachable without a held
 * descriptor once name is removed (table lock held): a file with another
 * link, reached by its handle or by a path locator naming another link.
 * Hard links a user can make at will, and each held descriptor counts.
 */
static bool reached_otherwise(const struct cfs_inode *in, const struct stat *st,
			      const char *name)
{
	return !S_ISDIR(st->st_mode) && st->st_nlink > 1 &&
	       (in->handle_len || strcmp(in->name, name) != 0);
}

/*
 * The node of the entry name of the directory dfd, pinned (inode_put ends
 * the pin), if removing the name leaves it without a way to its object
 * (locator_hold_name); NULL otherwise.
 */
struct cfs_inode *inode_find_to_hold(struct cfs_nodes *nt, int dfd, const char *name)
{
	struct cfs_inode *in;
	struct stat st;

	if ((!nt->hold_all && !inode_any_path_nodes(nt)) ||
	    fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return NULL;
	pthread_mutex_lock(&nt->lock);
	in = find_locked(nt, st.st_dev, st.st_ino);
	if (in && in != nt->root && (!in->handle_len || nt->hold_all) && !in->fde.held &&
	    !reached_otherwise(in, &st, name))
		in->fde.pins++;
	else
		in = NULL;
	pthread_mutex_unlock(&nt->lock);
	return in;
}

/* The node table's figures: the text of the stats xattr (ops_file.c). */
int inode_stats(struct cfs_nodes *nt, char *buf, size_t len)
{
	size_t ibytes, ilimit, ievicted;
	int n;

	dirindex_memory(&ibytes, &ilimit, &ievicted);
	pthread_mutex_lock(&nt->lock);
	n = snprintf(buf, len, "nodes %zu ids %zu fds %u held %u held_limit %u fd_cache %u "
		     "handles %s index_bytes %zu index_limit %zu index_evictions %zu",
		     nt->count, nt->ids_count, nt->fdc.cache.used, nt->fdc.held.used,
		     nt->fdc.held.cap, nt->fdc.cache.cap,
		     nt->use_handles ? "yes" : "no", ibytes, ilimit, ievicted);
	pthread_mutex_unlock(&nt->lock);
	return n < 0 || (size_t)n >= len ? -ERANGE : n;
}

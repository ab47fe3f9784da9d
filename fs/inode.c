/*
 * The node table: one node per backing object the kernel remembers, found
 * by (st_dev, st_ino) in a chained hash table.  A node id is the node's
 * address; the root is FUSE_ROOT_ID and keeps its descriptor for good.
 *
 * A node holds a locator, not a descriptor (fs/README.md, "Nodes and
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
#include <unistd.h>

#include "casefoldfs.h"

/* A file handle with room for any filesystem's. */
union handle_buf {
	struct file_handle fh;
	unsigned char bytes[sizeof(struct file_handle) + MAX_HANDLE_SZ];
};

static size_t bucket(const struct cfs *fs, dev_t dev, ino_t ino)
{
	uint64_t h = (uint64_t)ino * 0x9e3779b97f4a7c15u ^ (uint64_t)dev;

	return (size_t)(h ^ h >> 29) & (fs->table_size - 1);
}

/* The handle of the object fd is on, if it can serve as its locator. */
static int get_handle(const struct cfs *fs, int fd, union handle_buf *h)
{
	int mount_id;

	h->fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(fd, "", &h->fh, &mount_id, AT_EMPTY_PATH) < 0)
		return -errno;
	/* Handles open only on the mount they came from: other mounts below
	 * the root (bind mounts, say) use path locators. */
	if (mount_id != fs->mount_id || h->fh.handle_bytes > UINT8_MAX)
		return -EXDEV;
	return 0;
}

/*
 * Can this daemon open handles of the root's mount?  It needs
 * CAP_DAC_READ_SEARCH, and a descriptor on the mount that is not O_PATH
 * (fs->mount_fd, kept open for open_by_handle_at).
 */
static bool probe_handles(struct cfs *fs, int rootfd)
{
	union handle_buf h;
	int fd;

	h.fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(rootfd, "", &h.fh, &fs->mount_id, AT_EMPTY_PATH) < 0)
		return false;
	fs->mount_fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fs->mount_fd < 0)
		return false;
	fd = open_by_handle_at(fs->mount_fd, &h.fh, O_PATH | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return true;
	}
	close(fs->mount_fd);
	fs->mount_fd = -1;
	return false;
}

int inode_table_init(struct cfs *fs, int rootfd, bool handles, uint32_t fd_cache)
{
	struct cfs_inode *root;
	struct stat st;
	int err;

	if (fstat(rootfd, &st) < 0)
		return -errno;
	fs->mount_fd = -1;
	fs->use_handles = handles && probe_handles(fs, rootfd);
	fs->table_size = 1024;
	fs->table_count = 0;
	fs->held_count = 0;
	fs->table = calloc(fs->table_size, sizeof(*fs->table));
	if (!fs->table)
		return -ENOMEM;
	err = fdcache_init(&fs->fdc, fd_cache);
	if (err < 0)
		return err;
	root = fs->root = calloc(1, sizeof(*root));
	if (!root)
		return -ENOMEM;
	pthread_mutex_init(&fs->table_lock, NULL);
	root->dev = st.st_dev;
	root->ino = st.st_ino;
	root->type = S_IFDIR;
	root->fd = rootfd;
	root->slot = CFS_SLOT_HELD;
	root->nlookup = 1;
	root->d = &fs->root_dir;
	return dir_init(root, rootfd, &st);
}

/* Frees a node taken out of the table; returns its parent to release. */
static struct cfs_inode *destroy(struct cfs_inode *in)
{
	struct cfs_inode *parent = in->parent;

	if (in->fd >= 0)
		close(in->fd);
	if (in->d) {
		dir_fini(in);
		free(in->d);
	}
	free(in->name);
	free(in);
	return parent;
}

/* Unhooks in if nothing needs it any more (table lock held): true if so. */
static bool unhook_if_unused(struct cfs *fs, struct cfs_inode *in)
{
	struct cfs_inode **p;

	if (in == fs->root || in->nlookup || in->pins || in->children)
		return false;
	p = in->unhashed ? &fs->unhashed : &fs->table[bucket(fs, in->dev, in->ino)];
	while (*p != in)
		p = &(*p)->next;
	*p = in->next;
	fs->table_count--;
	if (!in->handle_len)
		fs->path_nodes--;
	if (in->slot >= 0)
		fdcache_remove(fs, in);
	else if (in->slot == CFS_SLOT_HELD)
		fs->held_count--;
	return true;
}

/*
 * Drops one pin from in (or, with in's parent, one child reference) and
 * frees what is no longer needed, up the chain of path locators.
 */
static void release(struct cfs *fs, struct cfs_inode *in, bool pin)
{
	while (in) {
		bool gone;

		pthread_mutex_lock(&fs->table_lock);
		if (pin)
			in->pins--;
		else
			in->children--;
		gone = unhook_if_unused(fs, in);
		pthread_mutex_unlock(&fs->table_lock);
		if (!gone)
			return;
		in = destroy(in);
		pin = false;
	}
}

/* Drops a pin taken without a descriptor (inode_pin's failure path). */
void inode_put(struct cfs *fs, struct cfs_inode *in)
{
	release(fs, in, true);
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

void inode_table_destroy(struct cfs *fs)
{
	for (size_t i = 0; i < fs->table_size; i++)
		destroy_chain(fs->table[i]);
	destroy_chain(fs->unhashed);
	free(fs->table);
	fdcache_destroy(&fs->fdc);
	dir_fini(fs->root);
	dir_park_clear();
	close(fs->root->fd);
	free(fs->root);
	if (fs->mount_fd >= 0)
		close(fs->mount_fd);
	pthread_mutex_destroy(&fs->table_lock);
}

struct cfs_inode *inode_get(struct cfs *fs, fuse_ino_t ino)
{
	return ino == FUSE_ROOT_ID ? fs->root : (struct cfs_inode *)(uintptr_t)ino;
}

fuse_ino_t inode_id(struct cfs *fs, struct cfs_inode *in)
{
	return in == fs->root ? FUSE_ROOT_ID : (fuse_ino_t)(uintptr_t)in;
}

/* Doubles the buckets when the table is full; a failed grow is harmless. */
static void maybe_grow(struct cfs *fs)
{
	size_t old = fs->table_size, size = old * 2;
	struct cfs_inode **t;

	if (fs->table_count < old || !(t = calloc(size, sizeof(*t))))
		return;
	struct cfs_inode **prev = fs->table;

	fs->table = t;
	fs->table_size = size;
	for (size_t i = 0; i < old; i++) {
		struct cfs_inode *in = prev[i], *next;

		for (; in; in = next) {
			size_t b = bucket(fs, in->dev, in->ino);

			next = in->next;
			in->next = t[b];
			t[b] = in;
		}
	}
	free(prev);
}

static struct cfs_inode *find_locked(struct cfs *fs, dev_t dev, ino_t ino)
{
	if (fs->root->dev == dev && fs->root->ino == ino)
		return fs->root;
	for (struct cfs_inode *in = fs->table[bucket(fs, dev, ino)]; in; in = in->next)
		if (in->dev == dev && in->ino == ino)
			return in;
	return NULL;
}

/*
 * Takes in out of the (dev, ino) table (table lock held): its object is gone,
 * so an object that reuses the inode number must get a node of its own.  It
 * lives on, out of the table, until the kernel forgets it.
 */
static void unhash_locked(struct cfs *fs, struct cfs_inode *in)
{
	struct cfs_inode **p = &fs->table[bucket(fs, in->dev, in->ino)];

	if (in == fs->root || in->unhashed)
		return;
	while (*p != in)
		p = &(*p)->next;
	*p = in->next;
	in->next = fs->unhashed;
	fs->unhashed = in;
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

	if (in->handle_len || !old || (old == dir && strcmp(in->name, name) == 0))
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

/* A new node for the object fd (consumed on success) is on, as st says. */
static int new_node(struct cfs *fs, const char *name, int fd,
		    const struct stat *st, struct cfs_inode **out)
{
	union handle_buf h;
	bool handle = fs->use_handles && get_handle(fs, fd, &h) == 0;
	size_t len = handle ? h.fh.handle_bytes : 0;
	struct cfs_inode *in = calloc(1, sizeof(*in) + len);

	if (!in)
		return -ENOMEM;
	in->dev = st->st_dev;
	in->ino = st->st_ino;
	in->type = st->st_mode & S_IFMT;
	in->nlookup = 1;
	in->fd = -1;
	in->slot = CFS_SLOT_NONE;
	if (handle) {
		in->handle_len = (uint8_t)len;
		in->handle_type = h.fh.handle_type;
		memcpy(in->handle, h.fh.f_handle, len);
	} else if (!(in->name = strdup(name))) {
		free(in);
		return -ENOMEM;
	}
	if (S_ISDIR(st->st_mode)) {
		int err = (in->d = malloc(sizeof(*in->d))) ? dir_init(in, fd, st) : -ENOMEM;

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
 * Takes one kernel reference on the node of the object fd is on, whose
 * attributes are st, found as name in dir, creating the node if needed.
 * With install, fd (O_PATH) is consumed: cached for the new node, or
 * closed; without, it is the caller's (an open file) and only lends the
 * new node its file handle.
 */
static int lookup_fd(struct cfs *fs, struct cfs_inode *dir, const char *name, int fd,
		     bool install, const struct stat *st, struct cfs_inode **out)
{
	struct cfs_inode *in, *fresh = NULL, *old = NULL;
	int err, evicted = -1;

	err = new_node(fs, name, fd, st, &fresh);
	if (err < 0) {
		if (install)
			close(fd);
		return err;
	}
	pthread_mutex_lock(&fs->table_lock);
	in = find_locked(fs, st->st_dev, st->st_ino);
	if (in && !same_handle(in, fresh)) {
		/* The inode number of an object that is gone, reused by a
		 * new one (the handle's generation differs): the old node
		 * names nothing now. */
		unhash_locked(fs, in);
		in = NULL;
	}
	if (in) {
		/* Known already (a racing lookup of another name of it won). */
		in->nlookup++;
		old = relocate(in, dir, name);
	} else {
		maybe_grow(fs);
		in = fresh;
		in->next = fs->table[bucket(fs, in->dev, in->ino)];
		fs->table[bucket(fs, in->dev, in->ino)] = in;
		fs->table_count++;
		if (!in->handle_len) {
			in->parent = dir;
			dir->children++;
			fs->path_nodes++;
		}
		/* Just looked up: the kernel's next request is likely for it. */
		if (install) {
			evicted = fdcache_install(fs, in, fd);
			if (in->fd == fd)
				fd = -1;
		}
		fresh = NULL;
	}
	pthread_mutex_unlock(&fs->table_lock);
	if (old)
		release(fs, old, false);
	if (fresh)
		destroy(fresh);
	if (install && fd >= 0)
		close(fd);
	if (evicted >= 0)
		close(evicted);
	*out = in;
	return 0;
}

/*
 * Takes one kernel reference on the node of the object fd (O_PATH, consumed)
 * is on, found as name in dir, creating the node if needed; fills st.
 */
int inode_lookup_fd(struct cfs *fs, struct cfs_inode *dir, const char *name, int fd,
		    struct stat *st, struct cfs_inode **out)
{
	if (fstat(fd, st) < 0) {
		close(fd);
		return -errno;
	}
	return lookup_fd(fs, dir, name, fd, true, st, out);
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
int inode_lookup_open(struct cfs *fs, struct cfs_inode *dir, const char *name, int fd,
		      const struct stat *st, struct cfs_inode **out)
{
	char path[32];
	int pfd;

	fd_procpath(fd, path);
	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd >= 0)
		return lookup_fd(fs, dir, name, pfd, true, st, out);
	return lookup_fd(fs, dir, name, fd, false, st, out);
}

/*
 * Takes one kernel reference on the node of the entry name in dir (whose
 * descriptor the caller has pinned as dfd), creating the node if needed.
 * st holds the entry's attributes as just read (dir_resolve_stat); a new
 * node's are read again from its own descriptor.
 */
int inode_lookup(struct cfs *fs, struct cfs_inode *dir, int dfd, const char *name,
		 struct stat *st, struct cfs_inode **out)
{
	struct cfs_inode *in, *old = NULL;
	int fd;

	pthread_mutex_lock(&fs->table_lock);
	in = find_locked(fs, st->st_dev, st->st_ino);
	if (in) {
		in->nlookup++;
		old = relocate(in, dir, name);
	}
	pthread_mutex_unlock(&fs->table_lock);
	if (in) {
		if (old)
			release(fs, old, false);
		*out = in;
		return 0;
	}
	/* New to us: its identity comes from a descriptor, not the name,
	 * which could be swapped between two calls. */
	fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	return inode_lookup_fd(fs, dir, name, fd, st, out);
}

void inode_forget(struct cfs *fs, struct cfs_inode *in, uint64_t n)
{
	bool gone;

	pthread_mutex_lock(&fs->table_lock);
	in->nlookup = in->nlookup > n ? in->nlookup - n : 0;
	gone = unhook_if_unused(fs, in);
	pthread_mutex_unlock(&fs->table_lock);
	if (gone && (in = destroy(in)))
		release(fs, in, false);
}

/*
 * Opens the object of a node with a file handle (handle_len > 0), with
 * flags: the descriptor or -errno, -ESTALE when the object is gone.
 */
int inode_open_handle(struct cfs *fs, struct cfs_inode *in, int flags)
{
	union handle_buf h;
	int fd;

	h.fh.handle_bytes = in->handle_len;
	h.fh.handle_type = in->handle_type;
	memcpy(h.fh.f_handle, in->handle, in->handle_len);
	do
		fd = open_by_handle_at(fs->mount_fd, &h.fh, flags | O_CLOEXEC);
	while (fd < 0 && fdcache_shed(fs, errno));
	if (fd >= 0)
		return fd;
	if (errno != ENOENT && errno != ESTALE)
		return -errno;
	/* Gone: the kernel's retry looks the name up again, and must not
	 * find this node for an object that reused the inode number. */
	pthread_mutex_lock(&fs->table_lock);
	unhash_locked(fs, in);
	pthread_mutex_unlock(&fs->table_lock);
	return -ESTALE;
}

/*
 * Reopens a node's object from its locator (the caller pins in): an O_PATH
 * descriptor, or -ESTALE when the object is gone or the locator now leads
 * to another one.
 */
int inode_reopen(struct cfs *fs, struct cfs_inode *in)
{
	char name[CFS_NAME_MAX + 1];
	struct cfs_inode *parent;
	struct stat st;
	int fd, pfd;

	if (in->handle_len)
		return inode_open_handle(fs, in, O_PATH);
	pthread_mutex_lock(&fs->table_lock);
	parent = in->parent;
	if (parent) {
		parent->pins++;  /* alive until we are done, whatever renames do */
		snprintf(name, sizeof(name), "%s", in->name);
	}
	pthread_mutex_unlock(&fs->table_lock);
	if (!parent)
		return -ESTALE;
	pfd = inode_pin(fs, parent);
	inode_put(fs, parent);
	if (pfd < 0)
		return pfd;
	fd = openat(pfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	inode_unpin(fs, parent, pfd);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? -ESTALE : -errno;
	if (fstat(fd, &st) < 0 || st.st_dev != in->dev || st.st_ino != in->ino ||
	    (st.st_mode & S_IFMT) != in->type) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/*
 * After the daemon renamed the object st describes to name in ndir: a path
 * locator follows it.
 */
void inode_moved(struct cfs *fs, const struct stat *st, struct cfs_inode *ndir,
		 const char *name)
{
	struct cfs_inode *in, *old = NULL;

	pthread_mutex_lock(&fs->table_lock);
	in = find_locked(fs, st->st_dev, st->st_ino);
	if (in)
		old = relocate(in, ndir, name);
	pthread_mutex_unlock(&fs->table_lock);
	if (old)
		release(fs, old, false);
}

/* Whether any node has a path locator, which renames and removals move. */
bool inode_any_path_nodes(struct cfs *fs)
{
	bool any;

	pthread_mutex_lock(&fs->table_lock);
	any = fs->path_nodes > 0;
	pthread_mutex_unlock(&fs->table_lock);
	return any;
}

/*
 * Before the daemon removes the entry name of the directory dfd: if the
 * kernel still remembers its object under a path locator, the node keeps
 * a descriptor to it, since the name will not reach it afterwards.  A file
 * handle still opens an object that is unlinked but in use.
 */
void inode_hold_name(struct cfs *fs, int dfd, const char *name)
{
	struct cfs_inode *in;
	struct stat st;

	if (!inode_any_path_nodes(fs) || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	pthread_mutex_lock(&fs->table_lock);
	in = find_locked(fs, st.st_dev, st.st_ino);
	if (in && in != fs->root && !in->handle_len && in->slot != CFS_SLOT_HELD)
		in->pins++;
	else
		in = NULL;
	pthread_mutex_unlock(&fs->table_lock);
	if (!in)
		return;
	inode_hold(fs, in);
	inode_put(fs, in);
}

/* The node table's figures: the text of the stats xattr (ops_file.c). */
int inode_stats(struct cfs *fs, char *buf, size_t len)
{
	int n;

	pthread_mutex_lock(&fs->table_lock);
	n = snprintf(buf, len, "nodes %zu fds %u held %zu fd_cache %u handles %s",
		     fs->table_count, fs->fdc.used, fs->held_count, fs->fdc.cap,
		     fs->use_handles ? "yes" : "no");
	pthread_mutex_unlock(&fs->table_lock);
	return n < 0 || (size_t)n >= len ? -ERANGE : n;
}

/* /proc/self/fd/N: reopens the exact object an O_PATH descriptor holds. */
void fd_procpath(int fd, char buf[static 32])
{
	snprintf(buf, 32, "/proc/self/fd/%d", fd);
}

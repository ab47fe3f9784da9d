/*
 * The inode table: one cfs_inode per backing object the kernel knows,
 * found by (st_dev, st_ino) in a chained hash table and freed when the
 * kernel has forgotten every lookup.  A node id is the inode's address; the
 * root is FUSE_ROOT_ID.  Each inode holds an O_PATH|O_NOFOLLOW descriptor,
 * so the object is reached without any path and cannot be swapped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "casefoldfs.h"

static size_t bucket(const struct cfs *fs, dev_t dev, ino_t ino)
{
	uint64_t h = (uint64_t)ino * 0x9e3779b97f4a7c15u ^ (uint64_t)dev;

	return (size_t)(h ^ h >> 29) & (fs->table_size - 1);
}

static void init_inode(struct cfs_inode *in, int fd, const struct stat *st)
{
	in->fd = fd;
	in->dev = st->st_dev;
	in->ino = st->st_ino;
	in->type = st->st_mode & S_IFMT;
	in->nlookup = 1;
	in->next = NULL;
	pthread_mutex_init(&in->lock, NULL);
	in->casefold = false;
	in->index = NULL;
	in->gone_reported = false;
}

int inode_table_init(struct cfs *fs, int rootfd)
{
	struct stat st;

	if (fstat(rootfd, &st) < 0)
		return -errno;
	fs->table_size = 1024;
	fs->table_count = 0;
	fs->table = calloc(fs->table_size, sizeof(*fs->table));
	if (!fs->table)
		return -ENOMEM;
	pthread_mutex_init(&fs->table_lock, NULL);
	init_inode(&fs->root, rootfd, &st);
	return dir_load_flag(&fs->root);
}

static void free_inode(struct cfs_inode *in)
{
	close(in->fd);
	dirindex_free(in->index);
	pthread_mutex_destroy(&in->lock);
	free(in);
}

void inode_table_destroy(struct cfs *fs)
{
	for (size_t i = 0; i < fs->table_size; i++) {
		struct cfs_inode *in = fs->table[i], *next;

		for (; in; in = next) {
			next = in->next;
			free_inode(in);
		}
	}
	free(fs->table);
	dirindex_free(fs->root.index);
	close(fs->root.fd);
	pthread_mutex_destroy(&fs->root.lock);
	pthread_mutex_destroy(&fs->table_lock);
}

struct cfs_inode *inode_get(struct cfs *fs, fuse_ino_t ino)
{
	return ino == FUSE_ROOT_ID ? &fs->root : (struct cfs_inode *)(uintptr_t)ino;
}

fuse_ino_t inode_id(struct cfs *fs, struct cfs_inode *in)
{
	return in == &fs->root ? FUSE_ROOT_ID : (fuse_ino_t)(uintptr_t)in;
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
	if (fs->root.dev == dev && fs->root.ino == ino)
		return &fs->root;
	for (struct cfs_inode *in = fs->table[bucket(fs, dev, ino)]; in; in = in->next)
		if (in->dev == dev && in->ino == ino)
			return in;
	return NULL;
}

/*
 * Takes one kernel reference on the inode for the object that fd (an O_PATH
 * descriptor, consumed) and st describe, creating the inode if needed.
 */
int inode_acquire(struct cfs *fs, int fd, const struct stat *st, struct cfs_inode **out)
{
	struct cfs_inode *in, *fresh;
	int err;

	pthread_mutex_lock(&fs->table_lock);
	in = find_locked(fs, st->st_dev, st->st_ino);
	if (in) {
		in->nlookup++;
		pthread_mutex_unlock(&fs->table_lock);
		close(fd);
		*out = in;
		return 0;
	}
	pthread_mutex_unlock(&fs->table_lock);

	/* Read the flag outside the table lock; a racing twin may win. */
	fresh = malloc(sizeof(*fresh));
	if (!fresh) {
		close(fd);
		return -ENOMEM;
	}
	init_inode(fresh, fd, st);
	if (S_ISDIR(st->st_mode) && (err = dir_load_flag(fresh)) < 0) {
		free_inode(fresh);
		return err;
	}

	pthread_mutex_lock(&fs->table_lock);
	in = find_locked(fs, st->st_dev, st->st_ino);
	if (in) {
		in->nlookup++;
	} else {
		maybe_grow(fs);
		in = fresh;
		in->next = fs->table[bucket(fs, in->dev, in->ino)];
		fs->table[bucket(fs, in->dev, in->ino)] = in;
		fs->table_count++;
		fresh = NULL;
	}
	pthread_mutex_unlock(&fs->table_lock);
	if (fresh)
		free_inode(fresh);
	*out = in;
	return 0;
}

void inode_forget(struct cfs *fs, struct cfs_inode *in, uint64_t n)
{
	bool gone;

	if (in == &fs->root)
		return;
	pthread_mutex_lock(&fs->table_lock);
	in->nlookup = in->nlookup > n ? in->nlookup - n : 0;
	gone = in->nlookup == 0;
	if (gone) {
		struct cfs_inode **p = &fs->table[bucket(fs, in->dev, in->ino)];

		while (*p != in)
			p = &(*p)->next;
		*p = in->next;
		fs->table_count--;
	}
	pthread_mutex_unlock(&fs->table_lock);
	if (gone)
		free_inode(in);
}

/* /proc/self/fd/N: reopens the exact object an O_PATH descriptor holds. */
void inode_procpath(const struct cfs_inode *in, char buf[static 64])
{
	snprintf(buf, 64, "/proc/self/fd/%d", in->fd);
}

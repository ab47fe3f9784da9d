/*
 * Node ids (part of the node layer, ids.h): what the kernel calls a node
 * by, and what an NFS file handle carries (with the generation) across
 * FORGET and across a restart of the daemon (fs/tree/CLIENTS.md, "NFS
 * export").  Two kinds, in disjoint ranges:
 *
 *  - derived ids, at least 2^32: the backing file handle itself, where it
 *    is FILEID_INO32_GEN (a 32-bit inode number and a nonzero 32-bit
 *    generation: ext2/3/4, and others using the generic encoder), with
 *    generation 0.  The same object gets the same id in every mount, and
 *    an id the daemon no longer knows opens its object again by handle
 *    (inode_lookup_id), or fails with ESTALE once it is gone.
 *  - counter ids, 2 to 2^32 - 1, for every other node and for the aliases
 *    of -o case_rename: counted up, skipping ids in use, with a
 *    generation random at mount and changed at each wrap, so that no
 *    (id, generation) pair is handed to two objects, and one from an
 *    earlier mount meets another generation (ESTALE).
 *
 * FUSE_ROOT_ID is the root's, and is not in the set.  Under the table lock.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "tree/ids.h"

/* FILEID_INO32_GEN (linux/exportfs.h): u32 inode number, u32 generation. */
#define HANDLE_INO32_GEN 1
#define COUNTER_END ((fk_ino_t)1 << 32)

static size_t id_bucket(size_t size, fk_ino_t value)
{
	uint64_t h = (uint64_t)value * 0x9e3779b97f4a7c15u;

	return (size_t)(h >> 32) & (size - 1);
}

/* A random generation for counter ids (never 0, which derived ids have). */
static uint32_t fresh_generation(void)
{
	uint32_t g;

	if (getrandom(&g, sizeof(g), GRND_NONBLOCK) != sizeof(g))
		g = (uint32_t)time(NULL);
	return g ? g : 1;
}

int ids_init(struct cfs_nodes *nt)
{
	nt->ids_size = 1024;
	nt->ids_count = 0;
	nt->ids = calloc(nt->ids_size, sizeof(*nt->ids));
	nt->next_counter = FUSE_ROOT_ID + 1;
	nt->counter_generation = fresh_generation();
	nt->root->id = (struct cfs_id){ .value = FUSE_ROOT_ID };
	return nt->ids ? 0 : -ENOMEM;
}

void ids_destroy(struct cfs_nodes *nt)
{
	free(nt->ids);
	nt->ids = NULL;
}

/* The node an id belongs to. */
static struct cfs_inode *id_node(struct cfs_id *e)
{
	if (e->alias)
		return ((struct cfs_alias *)e)->node;
	return (struct cfs_inode *)((char *)e - offsetof(struct cfs_inode, id));
}

static struct cfs_id *find(const struct cfs_nodes *nt, fk_ino_t value)
{
	struct cfs_id *e = nt->ids[id_bucket(nt->ids_size, value)];

	while (e && e->value != value)
		e = e->next;
	return e;
}

/* Doubles the buckets when there are as many ids; a failed grow is harmless. */
static void grow(struct cfs_nodes *nt)
{
	size_t size = nt->ids_size * 2;
	struct cfs_id **t;

	if (nt->ids_count < nt->ids_size || !(t = calloc(size, sizeof(*t))))
		return;
	for (size_t i = 0; i < nt->ids_size; i++) {
		struct cfs_id *e = nt->ids[i], *next;

		for (; e; e = next) {
			next = e->next;
			e->next = t[id_bucket(size, e->value)];
			t[id_bucket(size, e->value)] = e;
		}
	}
	free(nt->ids);
	nt->ids = t;
	nt->ids_size = size;
}

static void add(struct cfs_nodes *nt, struct cfs_id *e)
{
	size_t b;

	grow(nt);
	b = id_bucket(nt->ids_size, e->value);
	e->next = nt->ids[b];
	nt->ids[b] = e;
	nt->ids_count++;
}

static void remove_id(struct cfs_nodes *nt, struct cfs_id *e)
{
	struct cfs_id **p = &nt->ids[id_bucket(nt->ids_size, e->value)];

	while (*p && *p != e)
		p = &(*p)->next;
	if (*p) {
		*p = e->next;
		nt->ids_count--;
	}
}

/* The next free counter id, with its generation. */
static void take_counter(struct cfs_nodes *nt, struct cfs_id *e)
{
	do {
		e->value = nt->next_counter++;
		e->generation = nt->counter_generation;
		if (nt->next_counter == COUNTER_END) {
			/* Values come round again: with another generation. */
			nt->next_counter = FUSE_ROOT_ID + 1;
			if (++nt->counter_generation == 0)
				nt->counter_generation = 1;
		}
	} while (find(nt, e->value));
}

/* Whether a handle is FILEID_INO32_GEN: its inode number and generation. */
static bool ino32_gen(int type, const unsigned char *handle, size_t len, uint32_t *ino,
		      uint32_t *gen)
{
	if (type != HANDLE_INO32_GEN || len != 2 * sizeof(uint32_t))
		return false;
	memcpy(ino, handle, sizeof(*ino));
	memcpy(gen, handle + sizeof(*ino), sizeof(*gen));
	return true;
}

/* The id derived from a file handle, or 0 if it has none. */
static fk_ino_t derived_id(int type, const unsigned char *handle, size_t len)
{
	uint32_t ino, gen;

	/* Generation 0 would open any object with that inode number (ext4
	 * checks no generation then): such an object gets a counter id. */
	if (!ino32_gen(type, handle, len, &ino, &gen) || !gen)
		return 0;
	return (fk_ino_t)gen << 32 | ino;
}

/* The inode number a FILEID_INO32_GEN handle holds; 0 for other kinds. */
ino_t ids_handle_ino(const union inode_handle *h)
{
	uint32_t ino, gen;

	if (!ino32_gen(h->fh.handle_type, h->fh.f_handle, h->fh.handle_bytes, &ino, &gen))
		return 0;
	return ino;
}

bool ids_derived(fk_ino_t value)
{
	return value >= COUNTER_END;
}

void ids_handle(fk_ino_t value, union inode_handle *h)
{
	uint32_t ino = (uint32_t)value, gen = (uint32_t)(value >> 32);

	h->fh.handle_bytes = 2 * sizeof(uint32_t);
	h->fh.handle_type = HANDLE_INO32_GEN;
	memcpy(h->fh.f_handle, &ino, sizeof(ino));
	memcpy(h->fh.f_handle + sizeof(ino), &gen, sizeof(gen));
}

void ids_assign(struct cfs_nodes *nt, struct cfs_inode *in)
{
	in->id.alias = false;
	in->id.value = derived_id(in->handle_type, in->handle, in->handle_len);
	in->id.generation = 0;
	/* Taken only by a node with this very handle that left the table
	 * (its object seemed gone) and that the kernel still remembers. */
	if (!in->id.value || find(nt, in->id.value))
		take_counter(nt, &in->id);
	add(nt, &in->id);
}

void ids_drop(struct cfs_nodes *nt, struct cfs_inode *in)
{
	remove_id(nt, &in->id);
	for (struct cfs_alias *a = in->aliases; a; a = a->next)
		remove_id(nt, &a->id);
}

void ids_free_aliases(struct cfs_inode *in)
{
	struct cfs_alias *a, *next;

	for (a = in->aliases; a; a = next) {
		next = a->next;
		free(a);
	}
	in->aliases = NULL;
}

/*
 * in's alias for spelling, with one more kernel reference, made on first
 * use (table lock held); in's own id when out of memory (a case-only
 * rename by that spelling then changes nothing, as on ext4).  One alias
 * per spelling: two spellings on one kernel inode would make a rename
 * between them the kernel's no-op.
 */
static const struct cfs_id *alias(struct cfs_nodes *nt, struct cfs_inode *in,
				  const char *spelling)
{
	struct cfs_alias *a;

	for (a = in->aliases; a && strcmp(a->spelling, spelling) != 0; a = a->next)
		;
	if (!a) {
		a = malloc(sizeof(*a) + strlen(spelling) + 1);
		if (!a)
			return &in->id;
		a->node = in;
		a->nlookup = 0;
		strcpy(a->spelling, spelling);
		a->id.alias = true;
		take_counter(nt, &a->id);
		add(nt, &a->id);
		a->next = in->aliases;
		in->aliases = a;
	}
	a->nlookup++;
	return &a->id;
}

/* The id an entry reply gives for in, reached by spelling (NULL: its own). */
void ids_entry(struct cfs_nodes *nt, struct cfs_inode *in, const char *spelling,
	       fk_ino_t *value, uint64_t *generation)
{
	const struct cfs_id *e = &in->id;  /* immutable: read without the lock */

	if (spelling && in != nt->root) {
		pthread_mutex_lock(&nt->lock);
		e = alias(nt, in, spelling);
		pthread_mutex_unlock(&nt->lock);
	}
	*value = e->value;
	*generation = e->generation;
}

/*
 * FORGET of n references by the id ino, as far as the id is concerned: an
 * alias the kernel no longer holds leaves the set (the kernel makes a new
 * one next time), so that a node's aliases are only the spellings the
 * kernel holds it by.  Returns the id's node, whose own count inode_forget
 * then lowers.
 */
struct cfs_inode *ids_forget(struct cfs_nodes *nt, fk_ino_t ino, uint64_t n)
{
	struct cfs_inode *in = nt->root;
	struct cfs_alias *a, **p;
	struct cfs_id *e = NULL;

	pthread_mutex_lock(&nt->lock);
	if (ino != FUSE_ROOT_ID) {
		e = find(nt, ino);
		in = e ? id_node(e) : NULL;
	}
	if (e && e->alias) {
		a = (struct cfs_alias *)e;
		a->nlookup = a->nlookup > n ? a->nlookup - n : 0;
		if (!a->nlookup) {
			remove_id(nt, e);
			for (p = &in->aliases; *p != a; p = &(*p)->next)
				;
			*p = a->next;
			free(a);
		}
	}
	pthread_mutex_unlock(&nt->lock);
	return in;
}

fk_ino_t ids_value(struct cfs_nodes *nt, struct cfs_inode *in)
{
	(void)nt;
	return in->id.value;  /* immutable */
}

/*
 * The node of an id the kernel holds a reference on: one the daemon handed
 * out and the kernel has not forgotten, so it is in the set.
 */
struct cfs_inode *ids_node(struct cfs_nodes *nt, fk_ino_t ino)
{
	struct cfs_id *e;

	if (ino == FUSE_ROOT_ID)
		return nt->root;
	pthread_mutex_lock(&nt->lock);
	e = find(nt, ino);
	pthread_mutex_unlock(&nt->lock);
	return e ? id_node(e) : NULL;
}

/*
 * The node of an id in the set (not the root's, which is not in it), with
 * one kernel reference taken and the id's generation; NULL if the id is
 * not there (an NFS file handle's may be forgotten, or an earlier
 * daemon's).
 */
struct cfs_inode *ids_ref(struct cfs_nodes *nt, fk_ino_t value, uint64_t *generation)
{
	struct cfs_inode *in = NULL;
	struct cfs_id *e;

	pthread_mutex_lock(&nt->lock);
	e = find(nt, value);
	if (e) {
		in = id_node(e);
		in->nlookup++;
		if (e->alias)
			((struct cfs_alias *)e)->nlookup++;
		*generation = e->generation;
	}
	pthread_mutex_unlock(&nt->lock);
	return in;
}

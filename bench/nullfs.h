/*
 * What the do-nothing daemons (fsfloor.c, fsnull.c) answer from: a node
 * number hashed from a name, and a node's attributes, with no system call.
 */
#ifndef BENCH_NULLFS_H
#define BENCH_NULLFS_H

#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

/* FNV-1a of name. */
static inline uint64_t nullfs_hash(const char *name)
{
	uint64_t h = 0xcbf29ce484222325u;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 0x100000001b3u;
	return h;
}

/* A directory (dir) or a regular file of size bytes, owned by root. */
static inline void nullfs_attr(struct stat *st, uint64_t ino, int dir, off_t size)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_mode = dir ? S_IFDIR | 0755 : S_IFREG | 0644;
	st->st_nlink = dir ? 2 : 1;
	st->st_size = dir ? 0 : size;
}

#endif

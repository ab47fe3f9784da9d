/*
 * The per-directory index of stored names (dirindex.c), and the parking
 * lot that keeps the indexes of directories the kernel forgot (dirpark.c).
 * Callers hold the directory's lock: the index's owner, which the bound on
 * the memory of all indexes (dirindex.c) also takes, with trylock, to evict.
 */
#ifndef CFS_DIRINDEX_H
#define CFS_DIRINDEX_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "common/names.h"

struct cfs_dirindex;

struct cfs_dirindex *dirindex_new(pthread_mutex_t *owner);
void dirindex_free(struct cfs_dirindex *idx);
void dirindex_set_owner(struct cfs_dirindex *idx, pthread_mutex_t *owner);
void dirindex_set_limit(size_t bytes);
void dirindex_memory(size_t *bytes, size_t *limit, size_t *evictions);
int dirindex_refresh(struct cfs_dirindex *idx, const struct cfs_names *nm, enum cfs_rule rule,
		     int dfd, bool root, const struct stat *st);
int dirindex_find(const struct cfs_dirindex *idx, const struct cfs_names *nm,
		  enum cfs_rule rule, struct cfs_name *name, char *stored, bool *several);
void dirindex_add(struct cfs_dirindex *idx, const struct cfs_names *nm, enum cfs_rule rule,
		  struct cfs_name *name);
void dirindex_remove(struct cfs_dirindex *idx, const struct cfs_names *nm, enum cfs_rule rule,
		     struct cfs_name *name);
bool dirindex_current(const struct cfs_dirindex *idx, const struct stat *st);
void dirindex_stamp(struct cfs_dirindex *idx, const struct stat *st);
bool dirindex_stamp_read(const struct cfs_dirindex *idx);
/* The index is rebuilt at the next refresh, whatever the stamps say. */
void dirindex_stale(struct cfs_dirindex *idx);
int dirindex_stats(const struct cfs_dirindex *idx, char *buf, size_t len);
size_t dirindex_findings(const struct cfs_dirindex *idx);
void dirindex_quiet(struct cfs_dirindex *idx);
const char *dirindex_first(const struct cfs_dirindex *idx);

/* Which directory an index describes, for the parking lot. */
struct dirpark_owner {
	dev_t dev;
	ino_t ino;
	bool casefold;
	unsigned handle_len;          /* 0: no file handle */
	const unsigned char *handle;
};

void dirpark_put(const struct dirpark_owner *o, struct cfs_dirindex *idx);
struct cfs_dirindex *dirpark_take(const struct dirpark_owner *o);
void dirpark_clear(void);

#endif /* CFS_DIRINDEX_H */

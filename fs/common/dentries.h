/*
 * What a directory handed out to the kernel's dentry cache, and the
 * mount's dentry epoch (dentries.c): the rule for when every dentry of a
 * mount must expire.  A casefoldfs tree and an overlay view both keep one
 * record per directory and one epoch per mount; the callers hold the
 * directory's lock (or whatever serialises changes to its names).
 */
#ifndef CFS_DENTRIES_H
#define CFS_DENTRIES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/lowlevel.h"
#include "common/names.h"

/*
 * One directory's record, for the epoch it was made in.  CFS_MISSES: the
 * misses kept by spelling, beyond which every creation of a missed class
 * bumps the epoch.  git probes about twenty names in .git that it does not
 * have (MERGE_HEAD, index.lock, ...) and creates index.lock on every
 * status that refreshes the index: at 12 each such status expired every
 * dentry of the mount, at 16 the second one did; 32 holds a session of
 * status and commit (bench/work.sh, BENCHMARKS.md) for 160 more bytes per
 * remembered directory.
 */
#define CFS_MISSES 32
struct cfs_dcache {
	uint64_t epoch;         /* the mount's epoch when recorded; older: nothing */
	uint64_t miss_classes[2];    /* a bit per class of names (rule hash, mod
					128) a negative was handed out for */
	uint64_t variant_classes[2]; /* likewise for positives under other than
					stored spellings */
	struct {
		uint32_t class, spelling;  /* hashes of one miss handed out */
	} miss[CFS_MISSES];
	uint8_t misses;         /* entries of miss; CFS_MISSES + 1: more than fit */
};

/* Whether the kernel can expire every dentry at once (FUSE_NOTIFY_INC_EPOCH). */
enum {
	CFS_DCACHE_PROBE,  /* not yet asked whether the kernel has the epoch */
	CFS_DCACHE_EPOCH,  /* stored spellings cached, epoch bumped when needed */
	CFS_DCACHE_ZERO,   /* every inexact spelling with entry_timeout 0 */
};

/* A mount's epoch. */
struct cfs_epoch {
	struct fk_session *se;    /* set before the first request */
	_Atomic int mode;           /* CFS_DCACHE_*: set once, at first use */
	_Atomic uint64_t now;       /* epochs bumped, plus one */
};

void dent_init(struct cfs_epoch *ep, bool noepoch);
bool dent_epoch(const struct cfs_epoch *ep);
bool dent_positive(struct cfs_epoch *ep, struct cfs_dcache *r, const struct cfs_names *nm,
		   enum cfs_rule rule, struct cfs_name *given, const char *stored);
bool dent_negative(struct cfs_epoch *ep, struct cfs_dcache *r, const struct cfs_names *nm,
		   enum cfs_rule rule, struct cfs_name *given);
void dent_created(struct cfs_epoch *ep, struct cfs_dcache *r, const struct cfs_names *nm,
		  enum cfs_rule rule, struct cfs_name *name);
void dent_removed(struct cfs_epoch *ep, struct cfs_dcache *r, const struct cfs_names *nm,
		  enum cfs_rule rule, struct cfs_name *given, const char *stored);
void dent_behind(struct cfs_epoch *ep, struct cfs_dcache *r, const struct cfs_names *nm,
		 enum cfs_rule rule, struct cfs_name *name);
void dent_rule_behind(struct cfs_epoch *ep, struct cfs_dcache *r);
bool dent_expire_all(struct cfs_epoch *ep);

#endif /* CFS_DENTRIES_H */

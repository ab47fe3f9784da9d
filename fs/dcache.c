/*
 * The kernel dentry-cache policy.  FUSE caches one dentry per spelling and
 * knows nothing of case, so in a directory whose rule is not exact a cached
 * dentry can go wrong through an operation made under another spelling:
 *  - a positive dentry for a spelling other than the stored name ("FOO" for
 *    foo) outlives the entry when foo is removed or renamed;
 *  - a positive dentry for the stored name outlives it when it is removed
 *    or renamed through another spelling;
 *  - a negative dentry ("FOO" missing) hides an entry created as "foo".
 * The kernel updates by itself only the dentry an operation went through.
 *
 * Design: every answer is cacheable (entry_timeout, the same bound as for
 * changes made behind our back), and before answering an operation that
 * could leave another dentry wrong, the daemon expires every dentry of the
 * mount with FUSE_NOTIFY_INC_EPOCH (Linux 6.16+).  The bump is a lock-free
 * atomic increment in the kernel, so unlike notify_inval_entry it can be
 * sent while the kernel holds the directory's lock, and the caller can
 * never observe the stale dentry; the kernel samples the epoch before it
 * sends a lookup, so an answer racing with a bump is born expired.
 *
 * A bump costs every cached dentry one lookup, so the daemon bumps only
 * when a dentry that could now be wrong may exist.  A dentry can go wrong
 * only through a change to a name equal to its own under the rule — of its
 * class — so each directory records, for the current epoch (fs->epoch),
 * the classes it handed out other-spelling positives for, and the misses
 * it handed out (class and spelling; beyond CFS_MISSES, only their
 * classes).  Creating a name needs a bump only if a miss of another
 * spelling of its class was handed out (a miss of the very spelling the
 * kernel turns positive itself: the usual lookup-then-create); removing
 * one only if it went through another spelling or other-spelling
 * positives of its class were handed out.  Hashes are the rule's keyed
 * ones (names.c), truncated to 32 bits in the record.
 *
 * Without the epoch (older kernels, -o noepoch) non-exact directories get
 * entry_timeout 0 and no negative entries: one lookup per path walk,
 * always correct.  Exact directories cache positive entries
 * either way, and negative ones only with the epoch: a flag change can turn
 * them into non-exact directories.  Callers hold the directory's lock.
 */
#include <linux/fuse.h>
#include <string.h>
#include <unistd.h>

#include "dcache.h"
#include "dir.h"
#include "watch.h"

/* Not in older <linux/fuse.h>; the value is fixed by the protocol (7.44). */
#define NOTIFY_INC_EPOCH 8

/* Expires every dentry of the mount; false if the kernel does not know how. */
static bool inc_epoch(struct cfs *fs)
{
	struct fuse_out_header oh = {
		.len = sizeof(oh),
		.error = NOTIFY_INC_EPOCH,
		.unique = 0,  /* a notification, not a reply */
	};

	return write(fuse_session_fd(fs->se), &oh, sizeof(oh)) == (ssize_t)sizeof(oh);
}

/* The first caller probes the kernel; a probe is a harmless bump. */
static bool epoch_works(struct cfs *fs)
{
	int mode = atomic_load(&fs->dcache_mode);

	if (mode == CFS_DCACHE_PROBE) {
		mode = inc_epoch(fs) ? CFS_DCACHE_EPOCH : CFS_DCACHE_ZERO;
		atomic_store(&fs->dcache_mode, mode);
	}
	return mode == CFS_DCACHE_EPOCH;
}

static void bump(struct cfs *fs)
{
	if (!inc_epoch(fs))
		fuse_log(FUSE_LOG_ERR, "casefoldfs: cannot expire dentries: %m\n");
	atomic_fetch_add(&fs->epoch, 1);
}

/* dir's record of what it handed out, emptied by any bump since. */
static struct cfs_dcache *record(struct cfs *fs, struct cfs_inode *dir)
{
	struct cfs_dcache *r = &dir->d->dcache;
	uint64_t now = atomic_load(&fs->epoch);

	if (r->epoch != now)
		*r = (struct cfs_dcache){ .epoch = now };
	return r;
}

/*
 * Classes of names: a name's bit in a 128-bit set, by its hash under dir's
 * rule, so that names equal under the rule share it.  A dentry can go wrong
 * only through a change to a name of its own class, so a change to a name
 * of a class nothing was handed out for needs no bump.  A name the rule
 * cannot hash is in every class.
 */
static void add_class(uint64_t set[2], struct cfs *fs, struct cfs_inode *dir,
		      struct cfs_name *name)
{
	if (names_hash(&fs->names, dir_rule(fs, dir), name) < 0) {
		set[0] = set[1] = UINT64_MAX;
		return;
	}
	set[name->hash >> 6 & 1] |= UINT64_C(1) << (name->hash & 63);
}

static bool in_class(const uint64_t set[2], struct cfs *fs, struct cfs_inode *dir,
		     struct cfs_name *name)
{
	if (names_hash(&fs->names, dir_rule(fs, dir), name) < 0)
		return set[0] || set[1];
	return set[name->hash >> 6 & 1] & UINT64_C(1) << (name->hash & 63);
}

static bool any_class(const uint64_t set[2])
{
	return set[0] || set[1];
}

/*
 * How long the kernel may keep what it learnt of in (its attributes; its
 * entries, for a directory): until a notice says otherwise where changes
 * behind our back are watched, else the mount's timeout.
 */
double dcache_ttl(const struct cfs *fs, const struct cfs_inode *in)
{
	return watch_covers(fs, in) ? fs->watched_timeout : fs->timeout;
}

/* Timeout of a positive entry answered for given, stored as stored. */
double dcache_positive(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *given,
		       const char *stored)
{
	if (dir_rule(fs, dir) == CFS_EXACT)
		return dcache_ttl(fs, dir);
	if (!epoch_works(fs))
		return 0.0;
	if (strcmp(given->s, stored) != 0)
		add_class(record(fs, dir)->variant_classes, fs, dir, given);
	return dcache_ttl(fs, dir);
}

/* Timeout of a negative entry for given; 0: not cached. */
double dcache_negative(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *given)
{
	struct cfs_dcache *r;
	uint32_t class, spelling;

	if (!epoch_works(fs))
		return 0.0;
	r = record(fs, dir);
	add_class(r->miss_classes, fs, dir, given);
	if (r->misses > CFS_MISSES)
		return dcache_ttl(fs, dir);
	class = names_hash(&fs->names, dir_rule(fs, dir), given) < 0 ? 0 : (uint32_t)given->hash;
	spelling = (uint32_t)names_spelling(&fs->names, given);
	for (unsigned i = 0; i < r->misses; i++)
		if (r->miss[i].class == class && r->miss[i].spelling == spelling)
			return dcache_ttl(fs, dir);
	if (r->misses < CFS_MISSES) {
		r->miss[r->misses].class = class;
		r->miss[r->misses].spelling = spelling;
	}
	r->misses++;
	return dcache_ttl(fs, dir);
}

/*
 * Whether a miss was handed out for another spelling of name's class: the
 * kernel turns a miss of the very spelling created into the new entry by
 * itself, but keeps any other.  Beyond what the record holds, any miss of
 * the class counts.
 */
static bool other_miss(struct cfs *fs, struct cfs_inode *dir, struct cfs_dcache *r,
		       struct cfs_name *name)
{
	uint32_t class, spelling;

	if (!in_class(r->miss_classes, fs, dir, name))
		return false;
	if (r->misses > CFS_MISSES || names_hash(&fs->names, dir_rule(fs, dir), name) < 0)
		return true;
	class = (uint32_t)name->hash;
	spelling = (uint32_t)names_spelling(&fs->names, name);
	for (unsigned i = 0; i < r->misses; i++)
		if (r->miss[i].class == class && r->miss[i].spelling != spelling)
			return true;
	return false;
}

/* Before answering: name was created in dir, under that very spelling. */
void dcache_created(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *name)
{
	if (atomic_load(&fs->dcache_mode) != CFS_DCACHE_EPOCH || dir_rule(fs, dir) == CFS_EXACT)
		return;
	if (other_miss(fs, dir, record(fs, dir), name))
		bump(fs);
}

/*
 * Before answering: the entry stored as stored in dir was removed or
 * renamed away through the spelling given.
 */
void dcache_removed(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *given,
		    const char *stored)
{
	if (atomic_load(&fs->dcache_mode) != CFS_DCACHE_EPOCH)
		return;
	/* given and stored are of one class: the rule matched them. */
	if (strcmp(given->s, stored) != 0 ||
	    in_class(record(fs, dir)->variant_classes, fs, dir, given))
		bump(fs);
}

/* Before answering: dir's rule changed (chattr +F or -F). */
void dcache_rule_changed(struct cfs *fs)
{
	if (atomic_load(&fs->dcache_mode) == CFS_DCACHE_EPOCH)
		bump(fs);
}

/*
 * A name of dir changed behind our back (notice.c, dir's lock held): the
 * kernel is told to forget that very name; any other spelling or miss it
 * may hold can only be expired with all the rest.
 */
void dcache_behind(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *name)
{
	struct cfs_dcache *r;

	if (atomic_load(&fs->dcache_mode) != CFS_DCACHE_EPOCH || dir_rule(fs, dir) == CFS_EXACT)
		return;
	r = record(fs, dir);
	if (in_class(r->variant_classes, fs, dir, name) || other_miss(fs, dir, r, name))
		bump(fs);
}

/*
 * dir's attributes changed behind our back (notice.c, dir's lock held): if
 * that was its flag, every dentry it handed out under the old rule other
 * than a stored spelling is wrong now, whichever rule the daemon has read
 * meanwhile.
 */
void dcache_rule_behind(struct cfs *fs, struct cfs_inode *dir)
{
	struct cfs_dcache *r;

	if (atomic_load(&fs->dcache_mode) != CFS_DCACHE_EPOCH)
		return;
	r = record(fs, dir);
	if (any_class(r->variant_classes) || any_class(r->miss_classes))
		bump(fs);
}

/* Every dentry of the mount expires (notices were lost). */
void dcache_expire_all(struct cfs *fs)
{
	if (atomic_load(&fs->dcache_mode) == CFS_DCACHE_EPOCH)
		bump(fs);
}

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
 * Design: every answer is cacheable, and before answering an operation
 * that could leave another dentry wrong, the daemon expires every dentry of
 * the mount with FUSE_NOTIFY_INC_EPOCH (Linux 6.16+).  The bump is a
 * lock-free atomic increment in the kernel, so unlike an entry invalidation
 * it can be sent while the kernel holds the directory's lock, and the
 * caller can never observe the stale dentry; the kernel samples the epoch
 * before it sends a lookup, so an answer racing with a bump is born
 * expired.
 *
 * A bump costs every cached dentry one lookup, so the daemon bumps only
 * when a dentry that could now be wrong may exist.  A dentry can go wrong
 * only through a change to a name equal to its own under the rule — of its
 * class — so each directory records, for the current epoch, the classes it
 * handed out other-spelling positives for, and the misses it handed out
 * (class and spelling; beyond CFS_MISSES, only their classes).  Creating a
 * name needs a bump only if a miss of another spelling of its class was
 * handed out (a miss of the very spelling the kernel turns positive
 * itself: the usual lookup-then-create); removing one only if it went
 * through another spelling or other-spelling positives of its class were
 * handed out.  Hashes are the rule's keyed ones (names.c), truncated to 32
 * bits in the record.
 *
 * Without the epoch (older kernels, -o noepoch) inexact answers are not
 * cacheable: non-exact directories get entry_timeout 0 and no negative
 * entries, one lookup per path walk, always correct.  Exact directories
 * cache positive entries either way, and negative ones only with the
 * epoch: a flag change can turn them into non-exact directories.
 */
#include <string.h>
#include <unistd.h>

#include "common/dentries.h"

void dent_init(struct cfs_epoch *ep, bool noepoch)
{
	ep->se = NULL;
	atomic_init(&ep->mode, noepoch ? CFS_DCACHE_ZERO : CFS_DCACHE_PROBE);
	atomic_init(&ep->now, 1);  /* directories' records start at 0: empty */
}

/* Expires every dentry of the mount; false if the kernel does not know how. */
static bool inc_epoch(struct cfs_epoch *ep)
{
	return fk_notify_inc_epoch(ep->se) == 0;
}

/*
 * The first caller asks what the kernel agreed to at INIT.  (A probe by
 * bumping the epoch was not harmless: it expired every dentry the kernel
 * had by then — a walk of 9,455 files the kernel forgot and listed again.)
 */
static bool epoch_works(struct cfs_epoch *ep)
{
	int mode = atomic_load(&ep->mode);

	if (mode == CFS_DCACHE_PROBE) {
		mode = fk_notify_has_epoch(ep->se) ? CFS_DCACHE_EPOCH : CFS_DCACHE_ZERO;
		atomic_store(&ep->mode, mode);
	}
	return mode == CFS_DCACHE_EPOCH;
}

/* Whether the epoch is known to work (without asking). */
bool dent_epoch(const struct cfs_epoch *ep)
{
	return atomic_load(&ep->mode) == CFS_DCACHE_EPOCH;
}

static void bump(struct cfs_epoch *ep)
{
	if (!inc_epoch(ep))
		fuse_log(FUSE_LOG_ERR, "casefoldfs: cannot expire dentries: %m\n");
	atomic_fetch_add(&ep->now, 1);
}

/* r, emptied by any bump since it was made. */
static struct cfs_dcache *record(struct cfs_epoch *ep, struct cfs_dcache *r)
{
	uint64_t now = atomic_load(&ep->now);

	if (r->epoch != now)
		*r = (struct cfs_dcache){ .epoch = now };
	return r;
}

/*
 * Classes of names: a name's bit in a 128-bit set, by its hash under the
 * directory's rule, so that names equal under the rule share it.  A dentry
 * can go wrong only through a change to a name of its own class, so a
 * change to a name of a class nothing was handed out for needs no bump.  A
 * name the rule cannot hash is in every class.
 */
static void add_class(uint64_t set[2], const struct cfs_names *nm, enum cfs_rule rule,
		      struct cfs_name *name)
{
	if (names_hash(nm, rule, name) < 0) {
		set[0] = set[1] = UINT64_MAX;
		return;
	}
	set[name->hash >> 6 & 1] |= UINT64_C(1) << (name->hash & 63);
}

static bool in_class(const uint64_t set[2], const struct cfs_names *nm, enum cfs_rule rule,
		     struct cfs_name *name)
{
	if (names_hash(nm, rule, name) < 0)
		return set[0] || set[1];
	return set[name->hash >> 6 & 1] & UINT64_C(1) << (name->hash & 63);
}

static bool any_class(const uint64_t set[2])
{
	return set[0] || set[1];
}

/* Whether a positive entry answered for given, stored as stored, may be cached. */
bool dent_positive(struct cfs_epoch *ep, struct cfs_dcache *r, const struct cfs_names *nm,
		   enum cfs_rule rule, struct cfs_name *given, const char *stored)
{
	if (rule == CFS_EXACT)
		return true;
	if (!epoch_works(ep))
		return false;
	if (strcmp(given->s, stored) != 0)
		add_class(record(ep, r)->variant_classes, nm, rule, given);
	return true;
}

/* Whether a negative entry for given may be cached. */
bool dent_negative(struct cfs_epoch *ep, struct cfs_dcache *r, const struct cfs_names *nm,
		   enum cfs_rule rule, struct cfs_name *given)
{
	uint32_t class, spelling;

	if (!epoch_works(ep))
		return false;
	r = record(ep, r);
	add_class(r->miss_classes, nm, rule, given);
	if (r->misses > CFS_MISSES)
		return true;
	class = names_hash(nm, rule, given) < 0 ? 0 : (uint32_t)given->hash;
	spelling = (uint32_t)names_spelling(nm, given);
	for (unsigned i = 0; i < r->misses; i++)
		if (r->miss[i].class == class && r->miss[i].spelling == spelling)
			return true;
	if (r->misses < CFS_MISSES) {
		r->miss[r->misses].class = class;
		r->miss[r->misses].spelling = spelling;
	}
	r->misses++;
	return true;
}

/*
 * Whether a miss was handed out for another spelling of name's class: the
 * kernel turns a miss of the very spelling created into the new entry by
 * itself, but keeps any other.  Beyond what the record holds, any miss of
 * the class counts.
 */
static bool other_miss(const struct cfs_names *nm, enum cfs_rule rule, struct cfs_dcache *r,
		       struct cfs_name *name)
{
	uint32_t class, spelling;

	if (!in_class(r->miss_classes, nm, rule, name))
		return false;
	if (r->misses > CFS_MISSES || names_hash(nm, rule, name) < 0)
		return true;
	class = (uint32_t)name->hash;
	spelling = (uint32_t)names_spelling(nm, name);
	for (unsigned i = 0; i < r->misses; i++)
		if (r->miss[i].class == class && r->miss[i].spelling != spelling)
			return true;
	return false;
}

/*
 * name exists now: a miss recorded for that very spelling is the kernel's
 * new entry, no longer a miss — so that a directory filled one lookup and
 * creation at a time (tar, rsync, cp) never outgrows its record.
 */
static void forget_miss(const struct cfs_names *nm, struct cfs_dcache *r, struct cfs_name *name)
{
	uint32_t class = (uint32_t)name->hash, spelling;

	if (r->misses > CFS_MISSES || name->hashed != 1)
		return;
	spelling = (uint32_t)names_spelling(nm, name);
	for (unsigned i = 0; i < r->misses;)
		if (r->miss[i].class == class && r->miss[i].spelling == spelling)
			r->miss[i] = r->miss[--r->misses];
		else
			i++;
}

/* Before answering: name was created in the directory, under that very spelling. */
void dent_created(struct cfs_epoch *ep, struct cfs_dcache *r, const struct cfs_names *nm,
		  enum cfs_rule rule, struct cfs_name *name)
{
	if (!dent_epoch(ep) || rule == CFS_EXACT)
		return;
	r = record(ep, r);
	if (other_miss(nm, rule, r, name))
		bump(ep);
	else
		forget_miss(nm, r, name);
}

/*
 * Before answering: the entry stored as stored was removed or renamed away
 * through the spelling given.
 */
void dent_removed(struct cfs_epoch *ep, struct cfs_dcache *r, const struct cfs_names *nm,
		  enum cfs_rule rule, struct cfs_name *given, const char *stored)
{
	if (!dent_epoch(ep))
		return;
	/* given and stored are of one class: the rule matched them. */
	if (strcmp(given->s, stored) != 0 ||
	    in_class(record(ep, r)->variant_classes, nm, rule, given))
		bump(ep);
}

/*
 * A name of the directory changed behind our back: the kernel is told to
 * forget that very name; any other spelling or miss it may hold can only
 * be expired with all the rest.
 */
void dent_behind(struct cfs_epoch *ep, struct cfs_dcache *r, const struct cfs_names *nm,
		 enum cfs_rule rule, struct cfs_name *name)
{
	if (!dent_epoch(ep) || rule == CFS_EXACT)
		return;
	r = record(ep, r);
	if (in_class(r->variant_classes, nm, rule, name) || other_miss(nm, rule, r, name))
		bump(ep);
}

/*
 * The directory's rule changed behind our back: every dentry it handed out
 * under the old rule other than a stored spelling is wrong now.
 */
void dent_rule_behind(struct cfs_epoch *ep, struct cfs_dcache *r)
{
	if (!dent_epoch(ep))
		return;
	r = record(ep, r);
	if (any_class(r->variant_classes) || any_class(r->miss_classes))
		bump(ep);
}

/*
 * Every dentry of the mount expires (a rule changed; notices were lost or
 * late): true if the kernel knows how.
 */
bool dent_expire_all(struct cfs_epoch *ep)
{
	if (!epoch_works(ep))
		return false;
	bump(ep);
	return true;
}

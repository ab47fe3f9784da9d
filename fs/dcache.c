/*
 * The kernel dentry-cache policy.  FUSE caches one dentry per spelling and
 * knows nothing of case, so in a directory whose rule is not exact a cached
 * dentry for one spelling can outlive the entry it named, or name the wrong
 * one, after an operation made through another spelling ("stat FOO; rm foo;
 * stat FOO").  Negative entries are never cached (ENOENT replies carry no
 * timeout), so only positive dentries matter.
 *
 * Design:
 *  - A spelling other than the stored name is answered with entry_timeout
 *    0: the kernel asks again at every path walk, and the index answers in
 *    constant time.
 *  - The stored spelling is cached like any name, and every operation that
 *    could leave a stored-spelling dentry wrong — unlink, rmdir or rename
 *    through another spelling, or a rename whose new spelling differs from
 *    the name it lands on — expires every dentry of the mount before it is
 *    answered, with FUSE_NOTIFY_INC_EPOCH (Linux 6.16+): an atomic
 *    increment that takes no lock, so unlike notify_inval_entry it can be
 *    sent while the kernel holds the parent directory's lock, and the
 *    caller can never observe the stale dentry.  Operations through the
 *    stored spelling need nothing: the kernel updates that very dentry.
 *  - Kernels without the epoch (or -o noepoch) get entry_timeout 0 for every
 *    spelling in such directories: correct, one lookup per path walk.
 *  The first lookup that wants a cacheable answer probes the epoch once;
 *  until the probe succeeds nothing cacheable has been handed out.
 */
#include <linux/fuse.h>
#include <string.h>
#include <unistd.h>

#include "casefoldfs.h"

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

static bool epoch_works(struct cfs *fs)
{
	int mode = atomic_load(&fs->dcache_mode);

	if (mode == CFS_DCACHE_PROBE) {
		mode = inc_epoch(fs) ? CFS_DCACHE_EPOCH : CFS_DCACHE_ZERO;
		atomic_store(&fs->dcache_mode, mode);
	}
	return mode == CFS_DCACHE_EPOCH;
}

/* Timeout of a positive entry answered for given, stored as stored. */
double dcache_entry_timeout(struct cfs *fs, enum cfs_rule rule, const char *given,
			    const char *stored)
{
	if (rule == CFS_EXACT)
		return fs->entry_timeout;
	if (strcmp(given, stored) != 0 || !epoch_works(fs))
		return 0.0;
	return fs->entry_timeout;
}

/*
 * Called before answering an operation that reached the entry stored as
 * stored through the spelling given (and left the namespace changed).
 */
void dcache_spelling_used(struct cfs *fs, const char *given, const char *stored)
{
	if (strcmp(given, stored) == 0 ||
	    atomic_load(&fs->dcache_mode) != CFS_DCACHE_EPOCH)
		return;
	if (!inc_epoch(fs))
		fuse_log(FUSE_LOG_ERR, "casefoldfs: cannot expire dentries: %m\n");
}

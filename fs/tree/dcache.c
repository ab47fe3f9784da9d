/*
 * How long the kernel may keep a casefoldfs tree's answers (dcache_ttl:
 * what is watched keeps longer), and when every dentry of the mount must
 * expire.  The epoch rule is dentries.c's, shared with the overlay view;
 * the rest of this file hands it a tree directory's record and rule, so
 * that the requests name only the directory node.  Callers hold the
 * directory's lock.
 */
#include "tree/dcache.h"
#include "tree/dir.h"
#include "tree/watch.h"

/*
 * How long the kernel may keep what it learnt of in (its attributes; its
 * entries, for a directory): until a notice says otherwise where changes
 * behind our back are watched, else the mount's timeout.  A watched
 * file's attributes only for DCACHE_FILE_TTL: some changes to a file make
 * no notice (a write through a shared mapping; through a hard link outside
 * the watched directories, for inotify; through another spelling's alias
 * of -o case_rename, the daemon's own), and the kernel asks again for
 * attributes whose time is up at the next stat or read, where a new mtime
 * or size drops the file's pages (auto_inval_data).
 */
double dcache_ttl(const struct cfs *fs, const struct cfs_inode *in)
{
	if (!watch_covers(fs, in))
		return fs->timeout;
	if (S_ISREG(in->type) && fs->watched_timeout > DCACHE_FILE_TTL)
		return DCACHE_FILE_TTL;
	return fs->watched_timeout;
}

static int64_t ctime_ns(const struct stat *st)
{
	return (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
}

/*
 * The attribute timeout of an answer that hands the kernel st, in's
 * attributes.  Their ctime is noted for dcache_told.
 */
double dcache_attr(const struct cfs *fs, struct cfs_inode *in, const struct stat *st)
{
	atomic_store_explicit(&in->told, ctime_ns(st), memory_order_relaxed);
	return dcache_ttl(fs, in);
}

/*
 * Whether the kernel was last answered in's attributes as st, read since
 * a change notice's change, gives them: then the change is in them, and
 * the notice has nothing to invalidate.  That is what an ordinary user's
 * inotify reports of the daemon's own changes: the flag it gives a new
 * subdirectory before the MKDIR's answer, a chmod before the SETATTR's.
 * (Invalidating those did harm besides the requests it cost: one that
 * lands while the kernel makes the inode of a first answer leaves that
 * inode without its attributes, mode 0, on kernels without aff12041b4b2.)
 * Only where ctimes are multigrain (fine_ctime): a coarse ctime stays
 * equal through a change made in its tick.  A notice the reader takes
 * between our change and the answer's noting its ctime still invalidates:
 * one request more, never a stale answer.  An answer the kernel dropped
 * (its request interrupted) leaves it the attributes before, until their
 * timeout, as with any FUSE daemon's.
 */
bool dcache_told(const struct cfs *fs, struct cfs_inode *in, const struct stat *st)
{
	return fs->fine_ctime &&
	       atomic_load_explicit(&in->told, memory_order_relaxed) == ctime_ns(st);
}

/* Timeout of a positive entry answered for given, stored as stored. */
double dcache_positive(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *given,
		       const char *stored)
{
	if (!dent_positive(&fs->dentries, &dir->d->dcache, &fs->names, dir_rule(fs, dir), given,
			   stored))
		return 0.0;
	return dcache_ttl(fs, dir);
}

/* Timeout of a negative entry for given; 0: not cached. */
double dcache_negative(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *given)
{
	if (!dent_negative(&fs->dentries, &dir->d->dcache, &fs->names, dir_rule(fs, dir), given))
		return 0.0;
	return dcache_ttl(fs, dir);
}

/* Before answering: name was created in dir, under that very spelling. */
void dcache_created(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *name)
{
	dent_created(&fs->dentries, &dir->d->dcache, &fs->names, dir_rule(fs, dir), name);
}

/*
 * Before answering: the entry stored as stored in dir was removed or
 * renamed away through the spelling given.
 */
void dcache_removed(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *given,
		    const char *stored)
{
	dent_removed(&fs->dentries, &dir->d->dcache, &fs->names, dir_rule(fs, dir), given,
		     stored);
}

/* Before answering: dir's rule changed (chattr +F or -F). */
void dcache_rule_changed(struct cfs *fs)
{
	dent_expire_all(&fs->dentries);
}

/* A name of dir changed behind our back (notice.c, dir's lock held). */
void dcache_behind(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *name)
{
	dent_behind(&fs->dentries, &dir->d->dcache, &fs->names, dir_rule(fs, dir), name);
}

/*
 * dir's attributes changed behind our back (notice.c, dir's lock held): if
 * that was its flag, every dentry it handed out under the old rule other
 * than a stored spelling is wrong now, whichever rule the daemon has read
 * meanwhile.
 */
void dcache_rule_behind(struct cfs *fs, struct cfs_inode *dir)
{
	dent_rule_behind(&fs->dentries, &dir->d->dcache);
}

/* Every dentry of the mount expires (notices were lost or late); false
 * if the kernel cannot do that (no epoch). */
bool dcache_expire_all(struct cfs *fs)
{
	return dent_expire_all(&fs->dentries);
}

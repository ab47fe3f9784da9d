/*
 * One directory: its persistent casefold flag and how a name given by the
 * kernel resolves to the name stored in the backing directory.
 *
 * The flag is an xattr on the backing directory (flagstore.c): it travels
 * with the tree, survives remounts and needs no side database.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"
#include "tree/dir.h"
#include "tree/watch.h"

/*
 * A directory removed from the backing tree while the kernel still knows
 * it: it holds nothing and nothing can be made in it.  Said once.
 */
static int report_gone(struct cfs_inode *dir)
{
	if (!dir->d->gone_reported)
		fuse_log(FUSE_LOG_WARNING, "casefoldfs: directory (inode %lu) was removed from the "
			 "backing tree behind our back\n", (unsigned long)dir->ino);
	dir->d->gone_reported = true;
	return -ENOENT;
}

/*
 * Pins the directory's descriptor (dir->d->fd until dir_unlock) and takes
 * its lock.  A directory whose object is gone is ENOENT, as on ext4.
 */
int dir_lock(struct cfs *fs, struct cfs_inode *dir)
{
	int fd;

	if (!dir->d)
		return -ENOTDIR;
	fd = locator_pin(&fs->nodes, dir);
	pthread_mutex_lock(&dir->d->lock);
	if (fd == -ESTALE)
		fd = report_gone(dir);
	if (fd < 0) {
		pthread_mutex_unlock(&dir->d->lock);
		return fd;
	}
	dir->d->fd = fd;
	dir->d->checked = false;
	dir->d->changed = false;
	watch_dir(fs, dir, fd);
	return 0;
}

/*
 * After the daemon changed dir's entries (dir_settle before the reply, or
 * dir_unlock, the lock held since the dir_resolve that revalidated flag and
 * index): the new mtime and ctime are ours, not a sign of an outside
 * change, so neither the index nor the flag needs reading again.  A change
 * made behind our back between our own change and this fstat goes
 * unnoticed by the stamps (a window of a few system calls, which the
 * caller cannot reach before the reply); one in the same clock tick too,
 * which inode_stamp_flag and the notice reader (entries_behind) catch.
 */
static void restamp(struct cfs_inode *dir)
{
	struct stat st;

	if (fstat(dir->d->fd, &st) < 0)
		return;
	inode_stamp_flag(dir->d, &st.st_ctim);
	if (dir->d->index)
		dirindex_stamp(dir->d->index, &st);
}

/*
 * Takes the stamps of the daemon's own change to dir now, before the reply
 * lets the caller change the directory again — behind our back, in the
 * backing tree: stamped after that, the other change would pass for ours
 * (dir's lock held).
 */
void dir_settle(struct cfs_inode *dir)
{
	if (!dir->d->changed)
		return;
	restamp(dir);
	dir->d->changed = false;
}

void dir_unlock(struct cfs *fs, struct cfs_inode *dir)
{
	int fd = dir->d->fd;

	if (dir->d->changed)
		restamp(dir);
	dir->d->fd = -1;
	pthread_mutex_unlock(&dir->d->lock);
	locator_unpin(&fs->nodes, dir, fd);
}

/* Locks two directories (or one) in a fixed order: lower address first. */
int dir_lock2(struct cfs *fs, struct cfs_inode *a, struct cfs_inode *b)
{
	struct cfs_inode *first = (uintptr_t)a < (uintptr_t)b ? a : b;
	struct cfs_inode *second = first == a ? b : a;
	int err;

	if (a == b)
		return dir_lock(fs, a);
	err = dir_lock(fs, first);
	if (err == 0 && (err = dir_lock(fs, second)) < 0)
		dir_unlock(fs, first);
	return err;
}

void dir_unlock2(struct cfs *fs, struct cfs_inode *a, struct cfs_inode *b)
{
	dir_unlock(fs, a);
	if (a != b)
		dir_unlock(fs, b);
}

/* Caller holds dir's lock and has checked that the directory is empty. */
int dir_store_flag(struct cfs_inode *dir, bool on)
{
	struct cfs_dir *d = dir->d;
	struct stat st;
	int err = flagstore_set(d->fd, on);

	if (err < 0)
		return err;
	d->casefold = on;
	if (fstat(d->fd, &st) == 0)
		inode_stamp_flag(d, &st.st_ctim);
	/* The rule changed: an index built under the old one is meaningless. */
	dirindex_free(d->index);
	d->index = NULL;
	return 0;
}

/* Caller holds dir's lock. */
enum cfs_rule dir_rule(const struct cfs *fs, const struct cfs_inode *dir)
{
	return names_rule(&fs->names, dir->d->casefold);
}

/*
 * The superblock's names, and at a +F root every name equal to them under
 * its rule, are hidden at the root of the mount (dir's lock held, or a
 * listing, which reads the rule as it is).
 */
bool dir_hides(const struct cfs *fs, const struct cfs_inode *dir, const char *name)
{
	return dir == fs->nodes.root && super_reserved(&fs->names, dir_rule(fs, dir), name);
}

/*
 * Rereads the flag when the backing directory's ctime moved since it was
 * read, or was read in the clock's current tick (inode_stamp_flag) where
 * the backing filesystem's ctimes are coarse: someone may have set or
 * cleared it in the backing tree directly.  (Coarse, each creation in a
 * directory, which stamps it in the tick of the last, read the flag and
 * the default ACL again: three calls more per file an untar made.)  A
 * flag found changed expires the dentries handed out under the old rule
 * here, as the notice reader would: it compares the flag with the one
 * read here, and finds nothing to do once this has run (notice.c).
 */
static int revalidate_flag(struct cfs *fs, struct cfs_inode *dir, const struct stat *st)
{
	struct cfs_dir *d = dir->d;
	bool was = d->casefold;
	int err;

	if ((!d->flag_racy || fs->fine_ctime) && st->st_ctim.tv_sec == d->flag_ctime.tv_sec &&
	    st->st_ctim.tv_nsec == d->flag_ctime.tv_nsec)
		return 0;
	err = inode_load_flag(d, d->fd, st);
	if (err == 0 && d->casefold != was) {
		dent_rule_behind(&fs->dentries, &d->dcache);
		dirindex_free(d->index);
		d->index = NULL;
	}
	return err;
}

/* The flag as the backing tree has it now (dir's lock held). */
int dir_check_flag(struct cfs *fs, struct cfs_inode *dir)
{
	struct stat st;

	if (fstat(dir->d->fd, &st) < 0)
		return -errno;
	return revalidate_flag(fs, dir, &st);
}

/*
 * Whether dir has a default ACL (dir's lock held, checked in this hold):
 * read once after each reading of the flag, since setting or removing it
 * moves the ctime as a flag change does.
 */
bool dir_default_acl(struct cfs_inode *dir)
{
	struct cfs_dir *d = dir->d;
	char path[32];

	if (!d->acl_known) {
		fd_procpath(d->fd, path);
		d->default_acl = getxattr(path, "system.posix_acl_default", NULL, 0) > 0;
		d->acl_known = true;
	}
	return d->default_acl;
}

/* Creates the index of dir, whose attributes are st (dir's lock held). */
static int build_index(const struct cfs *fs, struct cfs_inode *dir, enum cfs_rule rule,
		       const struct stat *st)
{
	struct cfs_dir *d = dir->d;

	if (d->index)
		return 0;
	d->index = dirindex_new(&d->lock);
	if (!d->index)
		return -ENOMEM;
	return dirindex_refresh(d->index, &fs->names, rule, d->fd, dir == fs->nodes.root, st);
}

/*
 * Checks, once per hold of dir's lock, that what the daemon knows of the
 * directory still holds: the directory exists, its flag is as read (ctime)
 * and its index, if any, is current (mtime) — so that the mutating
 * operation that follows a resolve never stamps an index that was already
 * stale.  Later resolves in the same hold trust the check: nothing changes
 * the directory through the mount meanwhile but the holder, who keeps the
 * index current and restamps at dir_unlock.  Fills d->st.
 */
static int check_dir(struct cfs *fs, struct cfs_inode *dir)
{
	struct cfs_dir *d = dir->d;
	int err;

	if (d->checked)
		return 0;
	if (fstat(d->fd, &d->st) < 0)
		return -errno;
	if (d->st.st_nlink == 0)
		return report_gone(dir);
	err = revalidate_flag(fs, dir, &d->st);
	/* A change behind our back in the tick of our own last change, or
	 * between it and its restamp, leaves the mtime stamp equal: the notice
	 * reader's word is taken instead — unless the stamp was read with the
	 * entries under multigrain ctimes, which no later change can leave
	 * equal: the word is then a late one of what the rebuild read (a
	 * lookup can overtake the reader; tests/fs/indexstamp.sh). */
	if (d->index && atomic_exchange(&d->entries_behind, false) &&
	    !(fs->fine_ctime && dirindex_stamp_read(d->index)))
		dirindex_stale(d->index);
	if (err == 0 && d->index)
		err = dirindex_refresh(d->index, &fs->names, dir_rule(fs, dir), d->fd,
				       dir == fs->nodes.root, &d->st);
	d->checked = err == 0;
	return err;
}

/*
 * Whether the mount mnt_id is a FUSE filesystem of another user than the
 * daemon's (its user_id), from /proc/self/mountinfo.  Fails closed.
 */
static bool foreign_fuse(const struct cfs *fs, uint64_t mnt_id)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, want[40], *sep;
	size_t cap = 0;
	bool foreign = true;
	unsigned long long id;

	if (!f)
		return true;
	snprintf(want, sizeof(want), ",user_id=%u,", (unsigned)fs->euid);
	while (getline(&line, &cap, f) > 0) {
		if (sscanf(line, "%llu ", &id) != 1 || id != mnt_id)
			continue;
		sep = strstr(line, " - ");
		if (sep && strncmp(sep + 3, "fuse", 4) == 0) {
			/* the superblock's options, last: ",rw,user_id=N,...," */
			char *opts = strrchr(sep, ' ');
			size_t n = strcspn(opts + 1, "\n");
			char *wrapped = malloc(n + 3);

			if (wrapped) {
				snprintf(wrapped, n + 3, ",%.*s,", (int)n, opts + 1);
				foreign = !strstr(wrapped, want);
				free(wrapped);
			}
		} else {
			foreign = false;
		}
		break;
	}
	free(line);
	fclose(f);
	return foreign;
}

/*
 * The attributes of the entry name of the directory dfd, as fstatat would
 * give them — but never by entering a FUSE filesystem another user mounted
 * on it (issue 24): such a filesystem can leave every call unanswered and
 * hold the worker making it for as long as its owner likes.  statx with
 * AT_STATX_DONT_SYNC answers from what the kernel has (FUSE sends nothing)
 * and says whether the entry is a mount root; a foreign FUSE root is
 * EACCES.  On a local backing filesystem that answer is the attributes;
 * elsewhere (a network filesystem may hold old ones) they are read again.
 */
static int entry_stat(const struct cfs *fs, int dfd, const char *name, struct stat *st)
{
	struct statx x;

	if (statx(dfd, name, AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC,
		  STATX_BASIC_STATS | STATX_MNT_ID, &x) < 0)
		return -errno;
	if ((x.stx_attributes_mask & x.stx_attributes & STATX_ATTR_MOUNT_ROOT) &&
	    (!(x.stx_mask & STATX_MNT_ID) || foreign_fuse(fs, x.stx_mnt_id)))
		return -EACCES;
	if (fs->flush_writers)
		return fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
	stat_from_statx(&x, st);
	return 0;
}

/*
 * Finds the stored name for name in dir (caller holds dir's lock).  A
 * current index knows every entry, so it answers alone — unless several
 * stored names match (made behind our back), when the exact bytes win, as
 * Linux's generic_ci_match has it.  Without an index the exact bytes are
 * tried first, and the index is built only for a name they miss.  *have_st
 * tells whether st was filled with the stored entry's attributes on the
 * way.  Returns 0 with stored filled, -ENOENT, -EINVAL or -ENAMETOOLONG for
 * a name the directory cannot hold (names_check_lookup), or another -errno.
 */
static int resolve(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *name,
		   char *stored, struct stat *st, bool *have_st)
{
	struct cfs_dir *d = dir->d;
	enum cfs_rule rule;
	bool several;
	int err = check_dir(fs, dir);

	*have_st = false;
	if (err < 0)
		return err;
	rule = dir_rule(fs, dir);
	err = names_check_lookup(&fs->names, rule, name);
	if (err < 0)
		return err;
	if (dir_hides(fs, dir, name->s))
		return -ENOENT;
	if (rule != CFS_EXACT && d->index && !d->flag_unknown) {
		err = dirindex_find(d->index, &fs->names, rule, name, stored, &several);
		if (err == 0 && several && strcmp(stored, name->s) != 0 &&
		    entry_stat(fs, d->fd, name->s, st) == 0) {
			strcpy(stored, name->s);
			*have_st = true;
		}
		return err;
	}
	err = entry_stat(fs, d->fd, name->s, st);
	if (err == 0) {
		strcpy(stored, name->s);
		*have_st = true;
		return 0;
	}
	if (err != -ENOENT)
		return err;
	/* The exact name is the answer under either rule; a miss is not:
	 * a fold-equal name may exist, which the daemon cannot list. */
	if (d->flag_unknown)
		return -EACCES;
	if (rule == CFS_EXACT)
		return -ENOENT;
	err = build_index(fs, dir, rule, &d->st);
	if (err < 0)
		return err;
	return dirindex_find(d->index, &fs->names, rule, name, stored, &several);
}

int dir_resolve(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *name, char *stored)
{
	struct stat st;
	bool have_st;

	return resolve(fs, dir, name, stored, &st, &have_st);
}

/* dir_resolve, and the stored entry's attributes in st. */
int dir_resolve_stat(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *name,
		     char *stored, struct stat *st)
{
	bool have_st;
	int err = resolve(fs, dir, name, stored, st, &have_st);

	if (err == 0 && !have_st)
		err = entry_stat(fs, dir->d->fd, stored, st);
	return err;
}

/*
 * Statistics of the directory's index (dir's lock not held), built if
 * needed: the text of the index xattr (ops_file.c).  Returns its length, -ENODATA for a
 * directory whose rule needs no index, or another -errno.
 */
int dir_index_stats(struct cfs *fs, struct cfs_inode *dir, char *buf, size_t len)
{
	enum cfs_rule rule;
	int err = dir_lock(fs, dir);

	if (err < 0)
		return err;
	err = check_dir(fs, dir);
	rule = dir_rule(fs, dir);
	if (err == 0 && rule == CFS_EXACT)
		err = -ENODATA;
	if (err == 0)
		err = build_index(fs, dir, rule, &dir->d->st);
	if (err == 0)
		err = dirindex_stats(dir->d->index, buf, len);
	dir_unlock(fs, dir);
	return err;
}

/* After name was created in dir through the mount (dir's lock held). */
void dir_added(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *name)
{
	if (dir->d->index)
		dirindex_add(dir->d->index, &fs->names, dir_rule(fs, dir), name);
	dir->d->changed = true;
}

/* After name was removed from dir through the mount (dir's lock held). */
void dir_removed(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *name)
{
	if (dir->d->index)
		dirindex_remove(dir->d->index, &fs->names, dir_rule(fs, dir), name);
	dir->d->changed = true;
}

/*
 * After the daemon changed dir's entries without changing their names
 * (RENAME_EXCHANGE, a rename replacing an entry; dir's lock held).
 */
void dir_touched(struct cfs_inode *dir)
{
	dir->d->changed = true;
}

/*
 * utimensat on a directory through the mount: its mtime moves, but its
 * entries do not, so an index that was current stays current (dir's lock
 * not held).  The flag is revalidated first, as by a lookup, so that the
 * restamp cannot hide a change made to it behind our back.
 */
int dir_set_times(struct cfs *fs, struct cfs_inode *dir, const struct timespec ts[2])
{
	char path[32];
	struct stat st;
	bool current;
	int err = dir_lock(fs, dir);

	if (err < 0)
		return err;
	err = dir_check_flag(fs, dir);
	current = err == 0 && dir->d->index && fstat(dir->d->fd, &st) == 0 &&
		  dirindex_current(dir->d->index, &st);
	fd_procpath(dir->d->fd, path);
	if (err == 0 && utimensat(AT_FDCWD, path, ts, 0) < 0)
		err = -errno;
	if (err == 0 && current)
		restamp(dir);
	dir_unlock(fs, dir);
	return err;
}

/* 1 if dir has no entries but ".", ".." and our hidden files, 0 if it has. */
int dir_is_empty(const struct cfs *fs, const struct cfs_inode *dir)
{
	DIR *dp = fd_opendir(dir->d->fd);
	struct dirent *d;
	int empty = 1;

	if (!dp)
		return -errno;
	while (empty && (d = readdir(dp)) != NULL)
		if (strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0 &&
		    !dir_hides(fs, dir, d->d_name))
			empty = 0;
	closedir(dp);
	return empty;
}

/*
 * Whether a refused chattr +F on dir may be logged now: once a minute per
 * directory, and once a second in all (a directory the kernel forgets
 * comes back with a fresh record), since any user may repeat the ioctl as
 * fast as it likes and the log is everyone's (dir's lock held).
 */
static bool refusal_loggable(struct cfs_inode *dir)
{
	static _Atomic time_t last;
	struct timespec now;
	time_t was;

	clock_gettime(CLOCK_MONOTONIC, &now);
	now.tv_sec += 60;  /* never 0, and a fresh record may log at once */
	if (dir->d->refusal_logged && now.tv_sec - dir->d->refusal_logged < 60)
		return false;
	was = atomic_load(&last);
	if (was == now.tv_sec || !atomic_compare_exchange_strong(&last, &was, now.tv_sec))
		return false;
	dir->d->refusal_logged = now.tv_sec;
	return true;
}

/*
 * -o casefold_nonempty: whether the non-empty directory dir may become +F
 * (dir's lock held, which keeps out every creation and rename through the
 * mount until the flag is stored): 0 when no two of its names are equal
 * under folding and every name can be folded, else -ENOTEMPTY, as ext4,
 * with one line logged (at most once a minute per directory) that names
 * the first finding and says what to do.
 */
int dir_may_casefold(struct cfs *fs, struct cfs_inode *dir)
{
	struct cfs_dirindex *idx = dirindex_new(&dir->d->lock);
	char proc[32], path[PATH_MAX];
	size_t found = 0;
	struct stat st;
	ssize_t n;
	int err;

	if (!idx)
		return -ENOMEM;
	dirindex_quiet(idx);
	err = fstat(dir->d->fd, &st) < 0 ? -errno : 0;
	if (err == 0)
		err = dirindex_refresh(idx, &fs->names, names_rule(&fs->names, true), dir->d->fd,
				       dir == fs->nodes.root, &st);
	if (err == 0)
		found = dirindex_findings(idx);
	if (err == 0 && found > 0 && refusal_loggable(dir)) {
		fd_procpath(dir->d->fd, proc);
		n = readlink(proc, path, sizeof(path) - 1);
		path[n > 0 ? n : 0] = '\0';
		fuse_log(FUSE_LOG_WARNING, "casefoldfs: chattr +F refused on the non-empty "
			 "directory %s (backing inode %lu): %zu of its names are equal under folding "
			 "to another or cannot be folded (%s); list them with `casefold audit %s`, "
			 "rename one of each pair and retry, or make a whole tree case-insensitive "
			 "with `casefold convert` (said at most once a minute)\n",
			 n > 0 ? path : "?", (unsigned long)dir->ino, found,
			 dirindex_first(idx) ? dirindex_first(idx) : "?", n > 0 ? path : "DIR");
	}
	dirindex_free(idx);
	return err < 0 ? err : found > 0 ? -ENOTEMPTY : 0;
}

/*
 * Namespace operations: every request that names an entry of a directory.
 * Each one holds the directory's lock from resolving the name to changing
 * the backing directory, so two fold-equal creations end with one entry.
 * What the kernel may cache of the answers is dcache.c's business.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "common/caller.h"
#include "common/util.h"
#include "tree/dcache.h"
#include "tree/dir.h"
#include "tree/echo.h"
#include "tree/flagstore.h"
#include "tree/ops.h"
#include "tree/watch.h"

/*
 * The stored name as a request's name value: the given one itself when the
 * bytes are the same (its keys already computed), else a new one.
 */
static struct cfs_name stored_name(const struct cfs_name *given, const char *stored)
{
	return strcmp(given->s, stored) == 0 ? *given : names_name(stored);
}

/*
 * -o case_rename: the kernel never sends a rename whose source and target
 * are one inode (vfs_rename returns 0 first), so a spelling other than the
 * stored one of a non-directory in a non-exact directory is answered as
 * another kernel inode of the same node (an alias id, chosen by the
 * spelling), as hard links are on FUSE filesystems that do not unify them:
 * rename(2) from one spelling to another then reaches do_rename.
 */
static bool respelled(const struct cfs *fs, struct cfs_inode *dir, const struct cfs_name *given,
		      const char *stored, const struct cfs_inode *in)
{
	return fs->case_rename && !S_ISDIR(in->type) && dir_rule(fs, dir) != CFS_EXACT &&
	       strcmp(given->s, stored) != 0;
}

/* Fills e's reply fields for the node in, reached in dir as given. */
static void fill_entry(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *given,
		       const char *stored, struct cfs_inode *in, struct fk_entry_param *e)
{
	const char *spelling = NULL;

	if (watch_wanted(fs, in)) {
		/* Its entries may be cached only once their changes are watched. */
		int fd = locator_pin(&fs->nodes, in);

		if (fd >= 0) {
			watch_dir(fs, in, fd);
			locator_unpin(&fs->nodes, in, fd);
		}
	}
	watch_found(fs, dir, in);
	e->attr_timeout = dcache_attr(fs, in, &e->attr);
	if (respelled(fs, dir, given, stored, in)) {
		spelling = given->s;
		/* Notices invalidate the node's own id, not its aliases. */
		e->attr_timeout = fs->timeout;
	}
	ids_entry(&fs->nodes, in, spelling, &e->ino, &e->generation);
	e->entry_timeout = dcache_positive(fs, dir, given, stored);
}

/*
 * Fills e for the stored name in dir, asked for as given, whose attributes
 * are st, and takes one lookup reference.
 */
static int make_entry(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *given,
		      const char *stored, const struct stat *st, struct fk_entry_param *e)
{
	struct cfs_inode *in;
	int err;

	memset(e, 0, sizeof(*e));
	e->attr = *st;
	err = inode_lookup(&fs->nodes, dir, dir->d->fd, stored, &e->attr, &in);
	if (err == 0)
		fill_entry(fs, dir, given, stored, in, e);
	return err;
}

/*
 * READDIRPLUS's entry for the name stored in dir (locked): what a LOOKUP
 * of that very name answers, with its lookup reference, so that the
 * kernel makes the dentry a walk asks for next.  -errno for a name that
 * gets no node (gone meanwhile, a foreign FUSE root, one the rule refuses
 * to look up): the listing gives it as READDIR would.
 */
int entry_listed(struct cfs *fs, struct cfs_inode *dir, const char *name,
		 struct fk_entry_param *e)
{
	struct cfs_name n = names_name(name);
	char stored[CFS_NAME_MAX + 1];
	struct stat st;
	int err = dir_resolve_stat(fs, dir, &n, stored, &st);

	/* The exact bytes win over fold-equal names (resolve): a stored
	 * name found as another is one that went meanwhile. */
	if (err == 0 && strcmp(stored, name) != 0)
		err = -ENOENT;
	return err < 0 ? err : make_entry(fs, dir, &n, stored, &st, e);
}

/* Likewise for the object we just created as name, open as fd (consumed). */
static int make_entry_fd(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *name,
			 int fd, struct fk_entry_param *e)
{
	struct cfs_inode *in;
	int err;

	memset(e, 0, sizeof(*e));
	err = inode_lookup_fd(&fs->nodes, dir, name->s, fd, &e->attr, &in);
	if (err == 0)
		fill_entry(fs, dir, name, name->s, in, e);
	return err;
}

/*
 * LOOKUP of "." and "..", which only NFS export sends (fs/tree/CLIENTS.md, "NFS
 * export"; the kernel's path walk resolves both itself): "." on any node
 * id an NFS file handle holds, which the kernel may have forgotten and the
 * daemon freed, or an earlier daemon handed out (inode_lookup_id: the same
 * object or ESTALE), ".." on a directory the kernel holds.  The answer to "." is the
 * id asked, with that id's generation, or ESTALE.
 */
static int lookup_special(struct cfs *fs, fk_ino_t parent, bool dot,
			  struct fk_entry_param *e)
{
	struct cfs_inode *in, *dir;
	int fd, err;

	memset(e, 0, sizeof(*e));
	if (dot) {
		err = inode_lookup_id(&fs->nodes, parent, &in, &e->generation);
		if (err < 0)
			return err;
		fd = locator_pin(&fs->nodes, in);
		err = fd < 0 ? fd : fstat(fd, &e->attr) < 0 ? -errno : 0;
		if (fd >= 0)
			locator_unpin(&fs->nodes, in, fd);
		if (err < 0) {
			inode_forget_id(&fs->nodes, parent, 1);
			return err == -ENOENT ? -ESTALE : err;
		}
		e->ino = parent;
	} else {
		dir = ids_node(&fs->nodes, parent);
		err = dir_lock(fs, dir);
		if (err < 0)
			return err;
		err = inode_lookup_parent(&fs->nodes, dir, dir->d->fd, &e->attr, &in);
		dir_unlock(fs, dir);
		if (err < 0)
			return err;
		ids_entry(&fs->nodes, in, NULL, &e->ino, &e->generation);
	}
	e->attr_timeout = dcache_attr(fs, in, &e->attr);
	return 0;
}

void op_lookup(fk_req_t req, fk_ino_t parent, const char *name)
{
	struct cfs *fs = cfs_of(req);
	struct cfs_inode *dir;
	struct cfs_name n = names_name(name);
	char stored[CFS_NAME_MAX + 1];
	struct fk_entry_param e;
	struct stat st;
	int err;

	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		err = lookup_special(fs, parent, name[1] == '\0', &e);
		if (err < 0)
			fk_reply_err(req, -err);
		else
			fk_reply_entry(req, &e);
		return;
	}
	dir = ids_node(&fs->nodes, parent);
	err = dir_lock(fs, dir);
	if (err == 0) {
		err = dir_resolve_stat(fs, dir, &n, stored, &st);
		if (err == 0)
			err = make_entry(fs, dir, &n, stored, &st, &e);
		if (err == -ENOENT) {
			/* A negative entry (node 0) the kernel may cache. */
			memset(&e, 0, sizeof(e));
			e.entry_timeout = dcache_negative(fs, dir, &n);
			if (e.entry_timeout > 0)
				err = 0;
		}
		dir_unlock(fs, dir);
	}
	if (err < 0)
		fk_reply_err(req, -err);
	else
		fk_reply_entry(req, &e);
}

void op_forget(fk_req_t req, fk_ino_t ino, uint64_t nlookup)
{
	struct cfs *fs = cfs_of(req);

	inode_forget_id(&fs->nodes, ino, nlookup);
	fk_reply_none(req);
}

void op_forget_multi(fk_req_t req, size_t count, struct fk_forget_data *list)
{
	struct cfs *fs = cfs_of(req);

	for (size_t i = 0; i < count; i++)
		inode_forget_id(&fs->nodes, list[i].ino, list[i].nlookup);
	fk_reply_none(req);
}

/*
 * The check every creating operation makes first (dir lock held): 0 if name
 * may be created, -EEXIST with stored set if a matching entry exists.
 */
static int check_new_name(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *name,
			  char *stored)
{
	int err = dir_resolve(fs, dir, name, stored);

	if (err == 0)
		return -EEXIST;
	if (err != -ENOENT)
		return err;
	if (dir_hides(fs, dir, name->s))
		return -EPERM;
	return names_check_create(&fs->names, dir_rule(fs, dir), name);
}

/*
 * The daemon creates as root: hand the new object, open as fd, to the
 * caller — through the descriptor, never the name, which anyone who can
 * write the backing directory could have pointed elsewhere meanwhile.  The
 * group stays what the backing kernel chose in a set-gid directory (as
 * checked in this hold of dir's lock).  Returns 1 if the owner changed.
 */
static int give_to_caller(fk_req_t req, struct cfs_inode *dir, int fd)
{
	const struct fk_ctx *ctx = fk_req_ctx(req);
	struct cfs *fs = cfs_of(req);
	gid_t gid = ctx->gid;

	/* An unprivileged daemon cannot: entries stay its user's, as on any
	 * filesystem a user mounts. */
	if (!fs->can_chown)
		return 0;
	if (dir->d->st.st_mode & S_ISGID)
		gid = (gid_t)-1;
	if (ctx->uid == fs->euid && (gid == (gid_t)-1 || gid == fs->egid))
		return 0;
	if (fchownat(fd, "", ctx->uid, gid, AT_EMPTY_PATH) < 0)
		return -errno;
	return 1;
}

/* New subdirectories of a +F directory are +F: set before anyone sees it. */
static int inherit_flag(struct cfs_inode *dir, int fd)
{
	if (!dir->d->casefold)
		return 0;
	return flagstore_set(fd, true);
}

/* What a creating operation makes: a node, a directory, a symlink, a link. */
struct newnode {
	mode_t mode;
	dev_t rdev;
	const char *target;          /* symlink */
	int link_fd;                 /* hard link: the pinned target, else -1 */
	struct stat made;            /* the object made: identity checks */
	struct timespec before;      /* the clock just before it was made */
};

static int make_backing(struct cfs_inode *dir, const char *name, struct newnode *n)
{
	int dfd = dir->d->fd, r;
	char path[32];

	/* The coarse clock is what filesystems stamp inodes with. */
	clock_gettime(CLOCK_REALTIME_COARSE, &n->before);
	if (n->link_fd >= 0) {
		r = linkat(n->link_fd, "", dfd, name, AT_EMPTY_PATH);
		if (r < 0 && errno == ENOENT) {
			/* Without CAP_DAC_READ_SEARCH: the magic link works too. */
			fd_procpath(n->link_fd, path);
			r = linkat(AT_FDCWD, path, dfd, name, AT_SYMLINK_FOLLOW);
		}
	} else if (n->target) {
		r = symlinkat(n->target, dfd, name);
	} else if (S_ISDIR(n->mode)) {
		r = mkdirat(dfd, name, n->mode & 07777);
	} else {
		r = mknodat(dfd, name, n->mode, n->rdev);
	}
	return r < 0 ? -errno : 0;
}

static bool before_or_equal(const struct timespec *a, const struct statx_timestamp *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec <= (long)b->tv_nsec);
}

/*
 * Is the object fd is on the one we just made as n?  mkdirat, mknodat,
 * symlinkat and linkat give no descriptor, and between making the entry and
 * opening it a writer of the backing directory could have put another
 * object under the name: then it must not be chowned, flagged or answered.
 * A hard link is the target's inode.  Anything else we made is ours (the
 * daemon's uid), of the right type, has one name (a directory: no
 * subdirectory) and, where the filesystem records it, was born no earlier
 * than our call — which rules out an older object of ours renamed onto the
 * name.
 */
static bool is_made(int dfd, const char *name, struct newnode *n)
{
	int flags = AT_SYMLINK_NOFOLLOW | (*name ? 0 : AT_EMPTY_PATH);
	struct statx sx;

	if (statx(dfd, name, flags, STATX_BASIC_STATS | STATX_BTIME, &sx) < 0)
		return false;
	n->made.st_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	n->made.st_ino = sx.stx_ino;
	if (n->link_fd >= 0) {
		struct stat t;

		return fstat(n->link_fd, &t) == 0 && t.st_dev == n->made.st_dev &&
		       t.st_ino == n->made.st_ino;
	}
	if ((sx.stx_mode & S_IFMT) != (n->mode & S_IFMT) || sx.stx_uid != geteuid())
		return false;
	/* A new directory has no subdirectory: 2 links, or 1 where the
	 * filesystem does not count them (btrfs). */
	if (S_ISDIR(n->mode) ? sx.stx_nlink > 2 : sx.stx_nlink != 1)
		return false;
	return !(sx.stx_mask & STATX_BTIME) || before_or_equal(&n->before, &sx.stx_btime);
}

/*
 * Opens what we just made as name, O_PATH: the descriptor or -errno
 * (-EEXIST: the name now leads to another object, not to be touched).
 */
static int open_made(struct cfs_inode *dir, const char *name, struct newnode *n)
{
	int fd = openat(dir->d->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? -EEXIST : -errno;
	if (!is_made(fd, "", n)) {
		close(fd);
		return -EEXIST;
	}
	return fd;
}

/*
 * Undoes a creation that cannot be completed, so that the error we answer
 * leaves the tree as it was.  The name is removed only if it still leads to
 * the object made: the one seen through its descriptor (n->made), or, when
 * no descriptor could be had, one that passes is_made.  unlinkat takes only
 * a name, so a swap in the one system call between is not caught.
 */
static void unmake(struct cfs_inode *dir, const char *name, struct newnode *n, bool opened)
{
	struct stat st;

	if (!opened) {
		if (!is_made(dir->d->fd, name, n))
			return;
	} else if (fstatat(dir->d->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		   st.st_dev != n->made.st_dev || st.st_ino != n->made.st_ino) {
		return;
	}
	unlinkat(dir->d->fd, name, S_ISDIR(n->mode) && n->link_fd < 0 ? AT_REMOVEDIR : 0);
}

/*
 * The mode to create with.  The kernel leaves the caller's umask to us
 * (FUSE_DONT_MASK, main.c) because, as on Linux, it must not apply where
 * the parent directory has a default ACL: the backing kernel then derives
 * the permissions from that ACL and the mode.  Symlinks are always 0777.
 */
static mode_t creation_mode(fk_req_t req, struct cfs_inode *dir, mode_t mode)
{
	if (S_ISLNK(mode) || dir_default_acl(dir))
		return mode;
	return mode & ~fk_req_ctx(req)->umask;
}

/*
 * Makes name in dir as n says, hands it to the caller and fills e; on any
 * error the entry is gone again (dir's lock held).
 */
static int make_locked(fk_req_t req, struct cfs_inode *dir, struct cfs_name *name,
		       struct newnode *n, struct fk_entry_param *e)
{
	struct cfs *fs = cfs_of(req);
	struct echo_op op = ECHO_OP;
	char stored[CFS_NAME_MAX + 1];
	int err, fd;

	err = check_new_name(fs, dir, name, stored);
	if (err < 0)
		return err;
	n->mode = creation_mode(req, dir, n->mode);
	echo_expect(fs, &op, dir, IN_CREATE, name->s);
	err = make_backing(dir, name->s, n);
	echo_settle(&op, err == 0);
	if (err < 0)
		return err;
	fd = open_made(dir, name->s, n);
	if (fd < 0) {
		/* Out of descriptors, say: the entry must not stay behind. */
		if (fd != -EEXIST)
			unmake(dir, name->s, n, false);
		return fd;
	}
	err = n->link_fd >= 0 ? 0 : give_to_caller(req, dir, fd);
	if (err > 0)
		err = 0;
	if (err == 0 && S_ISDIR(n->mode) && n->link_fd < 0)
		err = inherit_flag(dir, fd);
	if (err == 0)
		err = make_entry_fd(fs, dir, name, fd, e);
	else
		close(fd);
	if (err < 0) {
		unmake(dir, name->s, n, true);
		return err;
	}
	dir_added(fs, dir, name);
	dcache_created(fs, dir, name);
	return 0;
}

/* Answers err if it is one: true when the request is done with. */
static bool answered(fk_req_t req, int err)
{
	if (err >= 0)
		return false;
	fk_reply_err(req, -err);
	return true;
}

static void make_node(fk_req_t req, fk_ino_t parent, const char *name,
		      struct newnode *n)
{
	struct cfs *fs = cfs_of(req);
	struct cfs_inode *dir = ids_node(&fs->nodes, parent);
	struct cfs_name nm = names_name(name);
	struct fk_entry_param e;
	int err;

	if (answered(req, dir_lock(fs, dir)))
		return;
	err = make_locked(req, dir, &nm, n, &e);
	/* The stamps before the reply (dir_settle); the reply before
	 * dir_unlock: the lock keeps the next request on dir behind it. */
	dir_settle(dir);
	if (err < 0)
		fk_reply_err(req, -err);
	else
		fk_reply_entry(req, &e);
	dir_unlock(fs, dir);
}

void op_mknod(fk_req_t req, fk_ino_t parent, const char *name, mode_t mode,
		     dev_t rdev)
{
	struct newnode n = { .mode = mode, .rdev = rdev, .link_fd = -1 };

	make_node(req, parent, name, &n);
}

void op_mkdir(fk_req_t req, fk_ino_t parent, const char *name, mode_t mode)
{
	struct newnode n = { .mode = S_IFDIR | mode, .link_fd = -1 };

	make_node(req, parent, name, &n);
}

void op_symlink(fk_req_t req, const char *target, fk_ino_t parent,
		       const char *name)
{
	struct newnode n = { .mode = S_IFLNK | 0777, .target = target, .link_fd = -1 };

	make_node(req, parent, name, &n);
}

void op_link(fk_req_t req, fk_ino_t ino, fk_ino_t newparent, const char *newname)
{
	struct cfs *fs = cfs_of(req);
	struct cfs_inode *in = ids_node(&fs->nodes, ino);
	struct newnode n = { .link_fd = locator_pin(&fs->nodes, in) };

	if (n.link_fd < 0) {
		fk_reply_err(req, -n.link_fd);
		return;
	}
	make_node(req, newparent, newname, &n);
	locator_unpin(&fs->nodes, in, n.link_fd);
}

/* The node of the file we just created as name, open as fd, as st says. */
static int entry_of_open(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *name,
			 int fd, const struct stat *st, struct fk_entry_param *e)
{
	struct cfs_inode *in;
	int err;

	memset(e, 0, sizeof(*e));
	e->attr = *st;
	err = inode_lookup_open(&fs->nodes, dir, name->s, fd, st, &in);
	if (err == 0)
		fill_entry(fs, dir, name, name->s, in, e);
	return err;
}

/*
 * O_CREAT reaches us only after a negative lookup, but a fold-equal name may
 * have appeared since.  Opening it here would open it as root, past the
 * checks the kernel makes on opening an existing file (modes, ACLs, O_TRUNC,
 * protected_regular in sticky directories).  ESTALE makes the kernel repeat
 * the path walk with revalidation (do_filp_open's LOOKUP_REVAL retry): its
 * lookup then finds the entry, and the kernel opens it as Linux opens any
 * existing file, checks included — O_EXCL gives EEXIST as before.  Returns
 * the open descriptor, or -errno with the tree as it was (dir's lock held).
 */
static int create_locked(fk_req_t req, struct cfs_inode *dir, struct cfs_name *name,
			 mode_t mode, const struct fk_file_info *fi,
			 struct fk_entry_param *e)
{
	struct cfs *fs = cfs_of(req);
	struct newnode n = { .mode = S_IFREG, .link_fd = -1 };
	struct echo_op op = ECHO_OP;
	char stored[CFS_NAME_MAX + 1];
	int err, fd;

	err = check_new_name(fs, dir, name, stored);
	if (err == -EEXIST)
		return fi->flags & O_EXCL ? -EEXIST : -ESTALE;
	if (err < 0)
		return err;
	echo_expect(fs, &op, dir, IN_CREATE, name->s);
	do
		fd = openat(dir->d->fd, name->s, fi->flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    creation_mode(req, dir, mode));
	while (fd < 0 && locator_shed(&fs->nodes, errno));
	echo_settle(&op, fd >= 0);
	if (fd < 0)
		return -errno;
	err = fstat(fd, &n.made) < 0 ? -errno : give_to_caller(req, dir, fd);
	if (err > 0)  /* chowned: the attributes moved */
		err = fstat(fd, &n.made) < 0 ? -errno : 0;
	if (err == 0)
		err = entry_of_open(fs, dir, name, fd, &n.made, e);
	if (err < 0) {
		unmake(dir, name->s, &n, true);
		close(fd);
		return err;
	}
	dir_added(fs, dir, name);
	dcache_created(fs, dir, name);
	return fd;
}

void op_create(fk_req_t req, fk_ino_t parent, const char *name, mode_t mode,
		      struct fk_file_info *fi)
{
	struct cfs *fs = cfs_of(req);
	struct cfs_inode *dir = ids_node(&fs->nodes, parent);
	struct cfs_name nm = names_name(name);
	struct fk_entry_param e;
	int fd;

	if (answered(req, dir_lock(fs, dir)))
		return;
	fd = create_locked(req, dir, &nm, mode, fi, &e);
	dir_settle(dir);
	if (fd < 0) {
		fk_reply_err(req, -fd);
	} else {
		bool kept = !fs->no_open;  /* file_created closes it otherwise */

		fi->fh = file_created(fs, ids_node(&fs->nodes, e.ino), fd, fi->flags);
		fi->noflush = file_noflush(fs, fi->flags);
		if (file_reply_open(req, fi, kept ? fd : -1, &e) != 0)
			file_closed(fs, ids_node(&fs->nodes, e.ino), fi->fh);
	}
	dir_unlock(fs, dir);  /* after the reply, as in make_node */
}

static void remove_entry(fk_req_t req, fk_ino_t parent, const char *name, int flags)
{
	struct cfs *fs = cfs_of(req);
	struct cfs_inode *dir = ids_node(&fs->nodes, parent);
	struct cfs_name n = names_name(name), sn;
	struct echo_op op = ECHO_OP;
	char stored[CFS_NAME_MAX + 1];
	int err;

	if (answered(req, dir_lock(fs, dir)))
		return;
	err = dir_resolve(fs, dir, &n, stored);
	if (err == 0) {
		locator_hold_name(&fs->nodes, dir->d->fd, stored);
		echo_expect(fs, &op, dir, IN_DELETE, stored);
		err = caller_unlinkat(req, dir->d->fd, &dir->d->st, stored, flags);
		echo_settle(&op, err == 0);
	}
	if (err == 0) {
		sn = stored_name(&n, stored);
		dir_removed(fs, dir, &sn);
		dcache_removed(fs, dir, &n, stored);
	}
	dir_settle(dir);
	fk_reply_err(req, -err);
	dir_unlock(fs, dir);  /* after the reply, as in make_node */
}

void op_unlink(fk_req_t req, fk_ino_t parent, const char *name)
{
	remove_entry(req, parent, name, 0);
}

void op_rmdir(fk_req_t req, fk_ino_t parent, const char *name)
{
	remove_entry(req, parent, name, AT_REMOVEDIR);
}

static bool same_object(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/*
 * -o case_rename: a rename within one non-exact directory from the stored
 * name to another spelling of it (what Windows programs do to fix a name's
 * case) changes the stored spelling: the backing entry is renamed to the
 * new spelling, which cannot replace anything (RENAME_NOREPLACE: had the
 * spelling been stored, it would have been the resolved target).  0, or
 * -errno with nothing changed (dirs' locks held).
 */
static bool respellable(const struct cfs *fs, struct cfs_inode *dir, struct cfs_inode *ndir,
			const char *from, const char *to, const struct cfs_name *newname,
			unsigned int flags)
{
	return fs->case_rename && dir == ndir && !(flags & RENAME_EXCHANGE) &&
	       dir_rule(fs, dir) != CFS_EXACT && strcmp(from, to) == 0 &&
	       strcmp(newname->s, from) != 0;
}

/* renameat2 as the caller, its events recorded as the daemon's own. */
static int rename_backing(fk_req_t req, struct cfs_inode *dir, const char *from,
			  struct cfs_inode *ndir, const char *to, unsigned int flags)
{
	struct cfs *fs = cfs_of(req);
	struct echo_op op = ECHO_OP;
	int err;

	echo_expect(fs, &op, dir, IN_MOVED_FROM, from);
	echo_expect(fs, &op, ndir, IN_MOVED_TO, to);
	if (flags & RENAME_EXCHANGE) {
		echo_expect(fs, &op, ndir, IN_MOVED_FROM, to);
		echo_expect(fs, &op, dir, IN_MOVED_TO, from);
	}
	err = caller_renameat2(req, dir->d->fd, &dir->d->st, from, ndir->d->fd, &ndir->d->st,
			       to, flags);
	echo_settle(&op, err == 0);
	return err;
}

static int respell(fk_req_t req, struct cfs_inode *dir, const char *from,
		   const struct cfs_name *newname)
{
	return rename_backing(req, dir, from, dir, newname->s, RENAME_NOREPLACE);
}

/*
 * Rename as ext4 with casefold does it: the target name resolves like any
 * lookup, so renaming a onto B while b exists replaces b and keeps the
 * stored name b; a rename onto the same object (Foo -> FOO, or a hard link
 * of itself) succeeds and changes nothing — except that with -o
 * case_rename, Foo -> FOO where both resolve to the one stored name Foo
 * stores FOO instead (respell).
 */
static int do_rename(fk_req_t req, struct cfs_inode *dir, struct cfs_name *name,
		     struct cfs_inode *ndir, struct cfs_name *newname, unsigned int flags)
{
	struct cfs *fs = cfs_of(req);
	char from[CFS_NAME_MAX + 1], to[CFS_NAME_MAX + 1];
	int dfd = dir->d->fd, ndfd = ndir->d->fd;
	struct cfs_name fromn, ton;
	struct stat sfrom, sto;
	bool replacing, track;
	int err;

	err = dir_resolve(fs, dir, name, from);
	if (err == 0)
		err = check_new_name(fs, ndir, newname, to);
	replacing = err == -EEXIST;
	if (err < 0 && !replacing)
		return err;
	/* The moved object's identity: to see a rename onto itself, and for a
	 * path locator to follow it (none can appear meanwhile: both
	 * directories are locked). */
	track = replacing || inode_any_path_nodes(&fs->nodes);
	if (track && fstatat(dfd, from, &sfrom, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (!replacing)
		strcpy(to, newname->s);
	else if (flags & RENAME_NOREPLACE)
		return -EEXIST;
	else if (fstatat(ndfd, to, &sto, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	else if (same_object(&sfrom, &sto)) {
		if (!respellable(fs, dir, ndir, from, to, newname, flags))
			goto done;
		err = respell(req, dir, from, newname);
		if (err < 0)
			return err;
		replacing = false;
		strcpy(to, newname->s);
		goto renamed;
	}
	if (replacing && !(flags & RENAME_EXCHANGE))
		locator_hold_name(&fs->nodes, ndfd, to);
	err = rename_backing(req, dir, from, ndir, to, flags);
	if (err < 0)
		return err;
renamed:
	if (track)
		inode_moved(&fs->nodes, &sfrom, ndir, to);
	fromn = stored_name(name, from);
	ton = stored_name(newname, to);
	/* Every name stays or goes as the index says: keep it current. */
	if (flags & RENAME_EXCHANGE) {
		if (track)
			inode_moved(&fs->nodes, &sto, dir, from);
		dir_touched(dir);
		dir_touched(ndir);
	} else {
		dir_removed(fs, dir, &fromn);
		if (!replacing)
			dir_added(fs, ndir, &ton);
		else if (ndir != dir)
			dir_touched(ndir);
	}
done:
	/* The kernel moves its dentry for name to newname, whatever we did. */
	dcache_removed(fs, dir, name, from);
	if (replacing) {
		dcache_removed(fs, ndir, newname, to);
	} else {
		ton = stored_name(newname, to);
		dcache_created(fs, ndir, &ton);
	}
	dcache_positive(fs, ndir, newname, to);
	return 0;
}

void op_rename(fk_req_t req, fk_ino_t parent, const char *name,
		      fk_ino_t newparent, const char *newname, unsigned int flags)
{
	struct cfs *fs = cfs_of(req);
	struct cfs_inode *dir = ids_node(&fs->nodes, parent);
	struct cfs_inode *ndir = ids_node(&fs->nodes, newparent);
	struct cfs_name n = names_name(name), nn = names_name(newname);
	int err;

	if (answered(req, dir_lock2(fs, dir, ndir)))
		return;
	err = do_rename(req, dir, &n, ndir, &nn, flags);
	dir_settle(dir);
	dir_settle(ndir);
	fk_reply_err(req, -err);
	dir_unlock2(fs, dir, ndir);  /* after the reply, as in make_node */
}

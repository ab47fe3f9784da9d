/*
 * Operations on one object, whatever it is called: attributes, file I/O,
 * extended attributes.  Names play no part here, so these are a plain
 * passthrough over the inode's O_PATH descriptor.  Objects are reopened
 * through /proc/self/fd/N, which names exactly the object the descriptor
 * holds, never a path that could have been swapped.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "common/caller.h"
#include "common/setid.h"
#include "common/util.h"
#include "common/xattrs.h"
#include "tree/dcache.h"
#include "tree/dir.h"
#include "tree/flagstore.h"
#include "tree/ops.h"
#include "tree/watch.h"

/*
 * fi->fh of a regular file: the backing descriptor plus one in the low 32
 * bits (0: none — a file the kernel opened without OPEN, fs->no_open), and
 * FH_WRITER when the open was counted in its node's writers (op_open,
 * file_created), so that op_release uncounts exactly those.
 */
#define FH_WRITER (UINT64_C(1) << 32)

static uint64_t fh_of(int fd, bool writer)
{
	return (uint64_t)(fd + 1) | (writer ? FH_WRITER : 0);
}

/* The open file's descriptor, or -1 if the kernel opened it without us. */
static int fh_fd(const struct fk_file_info *fi)
{
	return (int)(fi->fh & 0xffffffffu) - 1;
}

/*
 * A descriptor for I/O on in: the open file's own, or, for a file the
 * kernel opened without OPEN, a new one (*fresh set: close it when done).
 * Returns it or -errno.
 */
static int io_fd(struct cfs *fs, fk_ino_t ino, const struct fk_file_info *fi, int flags,
		 bool *fresh)
{
	int fd = fi ? fh_fd(fi) : -1;

	*fresh = fd < 0;
	if (fd >= 0)
		return fd;
	return locator_open(&fs->nodes, ids_node(&fs->nodes, ino), flags);
}

static void io_done(int fd, bool fresh)
{
	if (fresh)
		close(fd);
}

/* Clears kill of the set-ID bits of the file st describes: 0, or -errno
 * when a change that cannot clear them must not be made (common/setid.c). */
static int clear_setid(fk_req_t req, fk_ino_t ino, int fd, const struct stat *st, mode_t kill)
{
	struct cfs *fs = cfs_of(req);

	if (!kill)
		return 0;
	return setid_set_mode(fs->se, ino, fd, st->st_mode & 07777 & ~kill, fs->keeps_setid);
}

/*
 * Before a write, truncation or O_TRUNC open by a caller without
 * CAP_FSETID (kill_suidgid), or a fallocate by any caller (ask: the
 * request carries no flag, so the caller's capabilities are asked, once
 * the file is seen to have bits to lose): clears what ext4 would.  The
 * backing filesystem drops security.capability at the write itself.
 */
static int kill_setid(fk_req_t req, fk_ino_t ino, int fd, bool ask)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!(st.st_mode & (S_ISUID | S_ISGID)) || (ask && caller_capable(req, CAP_FSETID)))
		return 0;
	return clear_setid(req, ino, fd, &st, setid_at_write(req, &st));
}

/*
 * The set-ID bits a SETATTR clears (*kill; *st: the file before), which
 * may be refused (common/setid.c): 1 where the file has set-ID bits (*st
 * is then set), 0 where it has none or the SETATTR clears none, or -errno.
 */
static int setattr_setid(fk_req_t req, struct cfs_inode *in, int pfd, int valid,
			 struct stat *st, mode_t *kill)
{
	struct cfs *fs = cfs_of(req);
	char path[32];
	int err;

	*kill = 0;
	if (!S_ISREG(in->type) || !setid_setattr_clears(valid))
		return 0;
	if (fstat(pfd, st) < 0)
		return -errno;
	if (!(st->st_mode & (S_ISUID | S_ISGID)))
		return 0;
	fd_procpath(pfd, path);
	/* Without OPEN (fs->no_open) the writers are not counted. */
	err = setid_at_setattr(req, st, valid, path,
			       fs->no_open || inode_writing(&fs->nodes, in), kill);
	return err < 0 ? err : 1;
}

/* Attributes of in, whose object fd is on (O_PATH or not). */
static void reply_attr_fd(fk_req_t req, struct cfs_inode *in, int fd)
{
	struct stat st;

	if (fstatat(fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
		fk_reply_err(req, errno);
	else
		fk_reply_attr(req, &st, dcache_attr(cfs_of(req), in, &st));
}

/* Attributes of in: by its name where it has no descriptor cached (locator.c). */
static void reply_attr(fk_req_t req, struct cfs_inode *in)
{
	struct cfs *fs = cfs_of(req);
	struct stat st;
	int fd, err;

	if (locator_stat_unpinned(&fs->nodes, in, &st, &err)) {
		if (err < 0)
			fk_reply_err(req, -err);
		else
			fk_reply_attr(req, &st, dcache_attr(fs, in, &st));
		return;
	}
	fd = locator_pin(&fs->nodes, in);
	if (fd < 0) {
		fk_reply_err(req, -fd);
		return;
	}
	reply_attr_fd(req, in, fd);
	locator_unpin(&fs->nodes, in, fd);
}

/* An open regular file answers through its own descriptor: no pin. */
void op_getattr(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi)
{
	struct cfs_inode *in = ids_node(&cfs_of(req)->nodes, ino);

	if (fi && S_ISREG(in->type) && fh_fd(fi) >= 0)
		reply_attr_fd(req, in, fh_fd(fi));
	else
		reply_attr(req, in);
}

static struct timespec time_arg(const struct timespec *t, int valid, int set, int now)
{
	struct timespec ts = { .tv_nsec = UTIME_OMIT };

	if (valid & now)
		ts.tv_nsec = UTIME_NOW;
	else if (valid & set)
		ts = *t;
	return ts;
}

#define TIMES (FATTR_ATIME | FATTR_MTIME)

static void time_args(const struct stat *attr, int valid, struct timespec ts[2])
{
	ts[0] = time_arg(&attr->st_atim, valid, FATTR_ATIME, FATTR_ATIME_NOW);
	ts[1] = time_arg(&attr->st_mtim, valid, FATTR_MTIME, FATTR_MTIME_NOW);
}

/* pfd: the node's pinned descriptor; fd: an open one for regular files, or -1. */
static int set_attrs(int pfd, const struct stat *attr, int valid, int fd)
{
	char path[32];
	int r = 0;

	fd_procpath(pfd, path);
	if (valid & FATTR_MODE)
		r = fd >= 0 ? fchmod(fd, attr->st_mode) : chmod(path, attr->st_mode);
	if (r == 0 && (valid & (FATTR_UID | FATTR_GID)))
		r = fchownat(pfd, "",
			     valid & FATTR_UID ? attr->st_uid : (uid_t)-1,
			     valid & FATTR_GID ? attr->st_gid : (gid_t)-1,
			     AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
	if (r == 0 && (valid & FATTR_SIZE))
		r = fd >= 0 ? ftruncate(fd, attr->st_size) : truncate(path, attr->st_size);
	if (r == 0 && (valid & TIMES)) {
		struct timespec ts[2];

		time_args(attr, valid, ts);
		r = fd >= 0 ? futimens(fd, ts) : utimensat(AT_FDCWD, path, ts, 0);
	}
	return r < 0 ? -errno : 0;
}

/*
 * A directory's times are set under its lock, so that its index, which an
 * mtime of its own would otherwise mark stale, stays current (dir.c).
 */
static int set_node_attrs(struct cfs *fs, struct cfs_inode *in, int pfd,
			  const struct stat *attr, int valid, int fd)
{
	struct timespec ts[2];
	int err;

	if (!in->d || !(valid & TIMES))
		return set_attrs(pfd, attr, valid, fd);
	err = set_attrs(pfd, attr, valid & ~TIMES, fd);
	if (err < 0)
		return err;
	time_args(attr, valid, ts);
	return dir_set_times(fs, in, ts);
}

void op_setattr(fk_req_t req, fk_ino_t ino, struct stat *attr, int valid,
		       struct fk_file_info *fi)
{
	struct cfs *fs = cfs_of(req);
	struct cfs_inode *in = ids_node(&fs->nodes, ino);
	/* Only regular files have a descriptor in fh (directories: a handle). */
	int fd = fi && S_ISREG(in->type) ? fh_fd(fi) : -1;  /* -1: none */
	int pfd = locator_pin(&fs->nodes, in), err, chowning, setid = 0;
	struct stat st;
	mode_t kill = 0;

	if (pfd < 0) {
		fk_reply_err(req, -pfd);
		return;
	}
	/* truncate(2) by path: opened here, so that a lease on the file is
	 * waited for only within locator_open's bound (locator.c). */
	int own = fd < 0 && (valid & FATTR_SIZE) && S_ISREG(in->type) ?
		  locator_open(&fs->nodes, in, O_WRONLY) : -1;
	int io = own >= 0 ? own : fd;

	err = own < -1 ? own : 0;
	if (!err)
		err = setid = setattr_setid(req, in, pfd, valid, &st, &kill);
	/* Cleared before a truncation, after a chown: one the daemon may not
	 * make (a user's) then changes nothing. */
	chowning = valid & (FATTR_UID | FATTR_GID);
	if (err > 0 && !chowning)
		err = clear_setid(req, ino, pfd, &st, kill);
	if (err >= 0)
		err = set_node_attrs(fs, in, pfd, attr, valid, io);
	if (!err && setid > 0 && chowning)
		err = setid_settle(fs->se, ino, pfd, &st, kill, fs->keeps_setid);
	if (own >= 0)
		close(own);
	if (err < 0)
		fk_reply_err(req, -err);
	else
		reply_attr_fd(req, in, pfd);
	locator_unpin(&fs->nodes, in, pfd);
}

void op_readlink(fk_req_t req, fk_ino_t ino)
{
	struct cfs *fs = cfs_of(req);
	struct cfs_inode *in = ids_node(&fs->nodes, ino);
	char buf[PATH_MAX + 1];
	int fd = locator_pin(&fs->nodes, in);
	ssize_t n;

	if (fd < 0) {
		fk_reply_err(req, -fd);
		return;
	}
	n = readlinkat(fd, "", buf, sizeof(buf));
	locator_unpin(&fs->nodes, in, fd);
	if (n < 0)
		fk_reply_err(req, errno);
	else if (n > PATH_MAX)
		fk_reply_err(req, ENAMETOOLONG);
	else {
		buf[n] = '\0';
		fk_reply_readlink(req, buf);
	}
}

/* Whether an open can change the file's data or size. */
static bool for_writing(int flags)
{
	return (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC);
}

/*
 * Data coherence between opens (issue 13).  A read through the kernel's page
 * cache fills a whole page from one READ; when the reply is short the
 * kernel zero-fills the rest and trusts the file's size to say where the
 * data ends.  If another open truncates the file here (atomic O_TRUNC) after
 * the kernel took the size for that read, and writes again before the
 * reader copies the page out, the reader returns zeros the file never held:
 * fuse_short_read cannot shrink the size once the truncation or write has
 * moved attr_version, and the writer's data goes to another page.  No reply
 * of ours can repair a page the kernel has already filled, so a read-only
 * open made while the file is open for writing (counted per node) gets
 * FOPEN_DIRECT_IO: each read is one READ of the backing file, which holds
 * nothing or a whole write, as on ext4.  Writers keep the page cache: a
 * direct open cannot be mapped MAP_SHARED (libfuse 3.14 cannot negotiate
 * FUSE_DIRECT_IO_ALLOW_MMAP), and writable shared mappings are what
 * databases and linkers use.  So do opens made while no writer exists
 * (readahead, mmap), which therefore remain exposed if a writer comes later
 * (fs/tree/DESIGN.md, "File data").  The writer is counted before the backing
 * open truncates, so every open that looks at the count after the
 * truncation has begun is direct.
 */
void op_open(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi)
{
	struct cfs *fs = cfs_of(req);
	struct cfs_inode *in = ids_node(&fs->nodes, ino);
	bool writer = S_ISREG(in->type) && for_writing(fi->flags);
	int fd, err;

	if (fs->no_open) {
		/* The kernel opens by itself from now on (fs/tree/DESIGN.md, "File data"). */
		fk_reply_err(req, ENOSYS);
		return;
	}
	fi->direct_io = inode_writer_open(&fs->nodes, in, writer);
	/* Pages cached by earlier opens stay while a watch would tell of a
	 * change behind our back (and the kernel drops them for one made
	 * through the mount, or seen in new attributes). */
	fi->keep_cache = !fi->direct_io && watch_covers(fs, in);
	fi->noflush = file_noflush(fs, fi->flags);
	/* The kernel never opens symlinks here; O_NOFOLLOW would refuse the
	 * magic link locator_open goes through. */
	fd = locator_open(&fs->nodes, in, fi->flags & ~O_NOFOLLOW);
	if (fd < 0) {
		fk_reply_err(req, -fd);
		if (writer)
			inode_writer_close(&fs->nodes, in);
		return;
	}
	if (fi->kill_suidgid && (fi->flags & O_TRUNC) && (err = kill_setid(req, ino, fd, false)) < 0) {
		close(fd);
		fk_reply_err(req, -err);
		if (writer)
			inode_writer_close(&fs->nodes, in);
		return;
	}
	fi->fh = fh_of(fd, writer);
	if (file_reply_open(req, fi, fd, NULL) != 0)
		file_closed(fs, in, fi->fh);
}

/*
 * OPEN's or CREATE's reply (entry: CREATE's, else NULL) for the open file
 * fd, passed through where the session has passthrough
 * (fs/kernel/backing.c) and set-ID bits allow (common/setid.c): the
 * backing file is registered, if the reply does it, without CAP_FSETID.
 */
int file_reply_open(fk_req_t req, struct fk_file_info *fi, int fd,
		    const struct fk_entry_param *entry)
{
	struct caps_sets saved;
	bool cut;
	int r;

	fi->backing_fd = fd >= 0 && setid_passes_through(fd) ? fd : -1;
	cut = fi->backing_fd >= 0 && cfs_of(req)->keeps_setid && setid_backing_begin(&saved);
	r = entry ? fk_reply_create(req, entry, fi) : fk_reply_open(req, fi);
	if (cut)
		setid_backing_end(&saved);
	return r;
}

/*
 * FLUSH exists to report write errors at close (the daemon keeps no POSIX
 * locks, and writes through to the backing file): a read-only open has
 * none to report, and neither has a writer on a filesystem that reports
 * them at each write (backing_local) — so its close costs no request: one
 * of the five of every file Wine opens, one of the four of every creation.
 */
bool file_noflush(const struct cfs *fs, int flags)
{
	return (flags & O_ACCMODE) == O_RDONLY || !fs->flush_writers;
}

/* fi->fh for a file op_create just made and opened as fd (consumed). */
uint64_t file_created(struct cfs *fs, struct cfs_inode *in, int fd, int flags)
{
	bool writer = for_writing(flags);

	/* Without OPEN the kernel sends no RELEASE either, even for files it
	 * created: such a file keeps no descriptor of ours (io_fd). */
	if (fs->no_open) {
		close(fd);
		return 0;
	}
	if (writer)
		inode_writer_open(&fs->nodes, in, true);
	return fh_of(fd, writer);
}

void op_read(fk_req_t req, fk_ino_t ino, size_t size, off_t off,
		    struct fk_file_info *fi)
{
	bool fresh;
	int fd = io_fd(cfs_of(req), ino, fi, O_RDONLY, &fresh);

	if (fd < 0) {
		fk_reply_err(req, -fd);
		return;
	}
	fk_reply_fd(req, fd, off, size);
	io_done(fd, fresh);
}

void op_write(fk_req_t req, fk_ino_t ino, const char *buf, size_t size, off_t off,
	      struct fk_file_info *fi)
{
	struct cfs *fs = cfs_of(req);
	bool fresh;
	int fd = io_fd(fs, ino, fi, O_WRONLY, &fresh), err;

	if (fd < 0) {
		fk_reply_err(req, -fd);
		return;
	}
	if (fi->kill_suidgid && (err = kill_setid(req, ino, fd, false)) < 0)
		fk_reply_err(req, -err);
	else
		fk_reply_pwrite(req, fd, buf, size, off);
	io_done(fd, fresh);
}

/*
 * The caller's close().  Closing a duplicate runs the backing filesystem's
 * own flush (NFS writes back there and reports its errors); but a duplicate
 * is a new descriptor, and a close must not fail because other users keep
 * the daemon at its descriptor limit.  Then fdatasync, which needs none,
 * reports the same write-back errors (at the cost of waiting for them).
 */
void op_flush(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi)
{
	int fd, err = 0;

	(void)ino;
	/* Files opened without OPEN exist only where no FLUSH is needed: ENOSYS
	 * tells the kernel never to send one again. */
	if (fh_fd(fi) < 0) {
		fk_reply_err(req, ENOSYS);
		return;
	}
	fd = dup(fh_fd(fi));
	if (fd >= 0)
		err = close(fd) < 0 ? errno : 0;
	else if (errno == EMFILE || errno == ENFILE)
		err = fdatasync(fh_fd(fi)) < 0 ? errno : 0;
	else
		err = errno;
	/* EINVAL: a file that cannot be synced (a pipe, say) has nothing to report. */
	fk_reply_err(req, err == EINVAL || err == EROFS ? 0 : err);
}

/* Closes the open file fh of in, uncounting a writer. */
void file_closed(struct cfs *fs, struct cfs_inode *in, uint64_t fh)
{
	int fd = (int)(fh & 0xffffffffu) - 1;

	if (fd >= 0)
		close(fd);
	if (fh & FH_WRITER)
		inode_writer_close(&fs->nodes, in);
}

void op_release(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi)
{
	struct cfs *fs = cfs_of(req);

	file_closed(fs, ids_node(&fs->nodes, ino), fi->fh);
	fk_reply_err(req, 0);
}

void op_fsync(fk_req_t req, fk_ino_t ino, int datasync, struct fk_file_info *fi)
{
	bool fresh;
	int fd = io_fd(cfs_of(req), ino, fi, O_RDONLY, &fresh), err;

	if (fd < 0) {
		fk_reply_err(req, -fd);
		return;
	}
	err = (datasync ? fdatasync(fd) : fsync(fd)) < 0 ? errno : 0;
	io_done(fd, fresh);
	fk_reply_err(req, err);
}

void op_fallocate(fk_req_t req, fk_ino_t ino, int mode, off_t off, off_t len,
			 struct fk_file_info *fi)
{
	bool fresh;
	int fd = io_fd(cfs_of(req), ino, fi, O_WRONLY, &fresh), err;

	if (fd < 0) {
		fk_reply_err(req, -fd);
		return;
	}
	/* ext4 clears set-ID bits at fallocate too; the kernel sends no flag. */
	err = -kill_setid(req, ino, fd, true);
	if (!err)
		err = fallocate(fd, mode, off, len) < 0 ? errno : 0;
	io_done(fd, fresh);
	fk_reply_err(req, err);
}

/*
 * Wine asks for every file it opens.  A node with a file handle is on the
 * root's mount (no other gets handles), so the root's descriptor, always
 * open, answers for it: no reopen.
 */
void op_statfs(fk_req_t req, fk_ino_t ino)
{
	struct cfs *fs = cfs_of(req);
	struct cfs_inode *in = ids_node(&fs->nodes, ino);
	int fd, r;
	struct statvfs sv;

	if (in->handle_len)
		in = fs->nodes.root;
	fd = locator_pin(&fs->nodes, in);

	if (fd < 0) {
		fk_reply_err(req, -fd);
		return;
	}
	r = fstatvfs(fd, &sv);
	locator_unpin(&fs->nodes, in, fd);
	if (r < 0) {
		fk_reply_err(req, errno);
		return;
	}
	sv.f_namemax = CFS_NAME_MAX;
	fk_reply_statfs(req, &sv);
}

/*
 * Pins in and names its object in path, for the calls that take no
 * descriptor; returns the descriptor to unpin, or -errno.
 */
static int pin_path(struct cfs *fs, struct cfs_inode *in, char path[static 32])
{
	int fd = locator_pin(&fs->nodes, in);

	if (fd >= 0)
		fd_procpath(fd, path);
	return fd;
}

/* Our bookkeeping xattrs do not exist as far as users can tell. */
static bool ours(const char *name)
{
	return flagstore_hidden(name);
}

void op_setxattr(fk_req_t req, fk_ino_t ino, const char *name,
			const char *value, size_t size, int flags)
{
	struct cfs *fs = cfs_of(req);
	struct cfs_inode *in = ids_node(&fs->nodes, ino);
	char path[32];
	int fd, err;

	if (ours(name)) {
		fk_reply_err(req, EPERM);
		return;
	}
	fd = pin_path(fs, in, path);
	if (fd < 0) {
		fk_reply_err(req, -fd);
		return;
	}
	err = setxattr(path, name, value, size, flags) < 0 ? errno : 0;
	locator_unpin(&fs->nodes, in, fd);
	fk_reply_err(req, err);
}

void op_removexattr(fk_req_t req, fk_ino_t ino, const char *name)
{
	struct cfs *fs = cfs_of(req);
	struct cfs_inode *in = ids_node(&fs->nodes, ino);
	char path[32];
	int fd, err;

	if (ours(name)) {
		fk_reply_err(req, ENODATA);
		return;
	}
	fd = pin_path(fs, in, path);
	if (fd < 0) {
		fk_reply_err(req, -fd);
		return;
	}
	err = removexattr(path, name) < 0 ? errno : 0;
	locator_unpin(&fs->nodes, in, fd);
	fk_reply_err(req, err);
}

/*
 * The daemon's figures, as read-only xattrs under the store's prefix: for
 * a trusted store root's diagnostics (the kernel lets only CAP_SYS_ADMIN
 * read trusted.* names); for a user store those of whoever may read the
 * object, as an unprivileged daemon's user could not read trusted.* ones.
 */
/* The node table's figures and the cache mode: the text of the stats xattr. */
static int cache_stats(struct cfs *fs, char *buf, size_t len)
{
	int n = inode_stats(&fs->nodes, buf, len), m;

	if (n < 0)
		return n;
	m = snprintf(buf + n, len - (size_t)n, " cache %s timeout %g opens %s ",
		     watch_name(fs->watch), fs->timeout, fs->no_open ? "kernel" : "daemon");
	if (m < 0 || (size_t)m >= len - (size_t)n)
		return -ERANGE;
	n += m;
	/* What the kernel and the daemon settled at INIT (fs/kernel/session.c). */
	m = fk_session_describe(fs->se, buf + n, len - (size_t)n);
	return m < 0 ? m : n + m;
}

static void reply_stats(fk_req_t req, struct cfs_inode *in, const char *name,
			size_t size)
{
	struct cfs *fs = cfs_of(req);
	char text[1024];
	int n = -ENODATA;

	if (flagstore_is(name, "index") && S_ISDIR(in->type))
		n = dir_index_stats(fs, in, text, sizeof(text));
	else if (flagstore_is(name, "stats") && in == fs->nodes.root)
		n = cache_stats(fs, text, sizeof(text));
	xattrs_reply(req, size, text, n);
}

void op_getxattr(fk_req_t req, fk_ino_t ino, const char *name, size_t size)
{
	struct cfs *fs = cfs_of(req);
	struct cfs_inode *in = ids_node(&fs->nodes, ino);
	char path[32], *buf = NULL;
	int fd, err;
	ssize_t n;

	if (ours(name)) {
		reply_stats(req, in, name, size);
		return;
	}
	if (size && !(buf = malloc(size))) {
		fk_reply_err(req, ENOMEM);
		return;
	}
	fd = pin_path(fs, in, path);
	if (fd < 0) {
		free(buf);
		fk_reply_err(req, -fd);
		return;
	}
	n = getxattr(path, name, buf, size);
	err = errno;
	locator_unpin(&fs->nodes, in, fd);
	xattrs_reply(req, size, buf, n < 0 ? -err : n);
	free(buf);
}

void op_listxattr(fk_req_t req, fk_ino_t ino, size_t size)
{
	struct cfs *fs = cfs_of(req);
	struct cfs_inode *in = ids_node(&fs->nodes, ino);
	char path[32], *list = NULL;
	int fd = pin_path(fs, in, path);
	ssize_t n;

	if (fd < 0) {
		fk_reply_err(req, -fd);
		return;
	}
	n = xattrs_list(req, path, ours, &list);
	locator_unpin(&fs->nodes, in, fd);
	xattrs_reply(req, size, list, n);
	free(list);
}

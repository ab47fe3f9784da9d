/*
 * The sources of change notices (watch.h).  Two kinds:
 *
 *  fanotify  one mark on the whole backing filesystem, reporting directory
 *            handles and names (FAN_REPORT_DFID_NAME, Linux 5.9+) and the
 *            changed object's handle (FAN_REPORT_FID, TARGET_FID): every
 *            change to every object of the tree, whoever makes it, with the
 *            pid of the process that made it.  Needs CAP_SYS_ADMIN.
 *  inotify   a watch per directory, added when the daemon first answers
 *            for it (dir_lock, a listing, a directory it hands out), kept
 *            until the directory goes or the daemon exits.  What any user
 *            may use; each mount takes at most a quarter of the owner's
 *            fs.inotify.max_user_watches (watch_limit), beyond which (and
 *            where the daemon may not read a directory) directories go
 *            unwatched, their answers falling back to the unwatched timeout
 *            (watch_covers).
 *
 * Objects on another filesystem below the backing root are outside a
 * fanotify mark: they are never covered.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"
#include "tree/watch.h"

/* The changes that matter: entries, attributes (xattrs, the flag), data. */
#define FAN_MASK (FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO | FAN_ATTRIB | \
		  FAN_MODIFY | FAN_ONDIR)
#define IN_MASK (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | \
		 IN_MODIFY | IN_ONLYDIR | IN_EXCL_UNLINK)

/* inotify: which directory a watch descriptor is on (an open hash). */
struct wd_slot {
	int wd;                 /* 0: empty (inotify's are positive) */
	dev_t dev;
	ino_t ino;
};

struct cfs_watcher {
	int fd;                 /* the fanotify or inotify instance */
	int mount_fd;           /* fanotify: the root, for open_by_handle_at */
	dev_t dev;              /* fanotify: the marked filesystem */
	_Atomic bool full;      /* inotify: out of watches (logged once) */
	pthread_mutex_t lock;   /* inotify: the map and every dir's wd */
	struct wd_slot *map;
	size_t cap, used;
	size_t limit;           /* inotify: watches this mount may take */
};

const char *watch_name(enum cfs_watch w)
{
	switch (w) {
	case CFS_WATCH_FANOTIFY:
		return "fanotify";
	case CFS_WATCH_INOTIFY:
		return "inotify";
	case CFS_WATCH_NONE:
	case CFS_WATCH_AUTO:
		break;
	}
	return "timeout";
}

static int open_fanotify(struct cfs_watcher *w, int rootfd)
{
	char path[32];
	struct stat st;

	/* The kernel's default queue (16,384 events, about 2 MB): the reader
	 * drains it without waiting on anything (notice.c), and an overflow
	 * expires everything, so its memory is bounded whatever a user does. */
	w->fd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC |
			      FAN_REPORT_DFID_NAME | FAN_REPORT_FID | FAN_REPORT_TARGET_FID,
			      O_RDONLY | O_LARGEFILE);
	if (w->fd < 0)
		return -errno;
	/* fanotify_mark and open_by_handle_at take no O_PATH descriptor. */
	fd_procpath(rootfd, path);
	if (fanotify_mark(w->fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_MASK, AT_FDCWD,
			  path) < 0 ||
	    (w->mount_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    fstat(rootfd, &st) < 0)
		return -errno;
	w->dev = st.st_dev;
	return 0;
}

/*
 * The watches one mount may take: a quarter of the user's
 * fs.inotify.max_user_watches, which the daemon's owner shares with every
 * program it runs.  Any user of an allow_other mount can make directories
 * for the daemon to watch; beyond this, they go unwatched (the timeout)
 * and the owner keeps three quarters of its watches.
 */
static size_t watch_limit(void)
{
	unsigned long max = 0;
	FILE *f = fopen("/proc/sys/fs/inotify/max_user_watches", "re");

	if (f) {
		if (fscanf(f, "%lu", &max) != 1)
			max = 0;
		fclose(f);
	}
	return max ? max / 4 : 2048;
}

static int open_inotify(struct cfs_watcher *w)
{
	w->fd = inotify_init1(IN_CLOEXEC);
	if (w->fd < 0)
		return -errno;
	w->limit = watch_limit();
	w->cap = 1024;
	w->map = calloc(w->cap, sizeof(*w->map));
	return w->map ? 0 : -ENOMEM;
}

static void free_watcher(struct cfs_watcher *w)
{
	if (w->fd >= 0)
		close(w->fd);
	if (w->mount_fd >= 0)
		close(w->mount_fd);
	free(w->map);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

/* Tries one kind; 0 with fs->watcher set, or -errno. */
static int try_open(struct cfs *fs, enum cfs_watch kind, int rootfd)
{
	struct cfs_watcher *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return -ENOMEM;
	w->fd = w->mount_fd = -1;
	pthread_mutex_init(&w->lock, NULL);
	err = kind == CFS_WATCH_FANOTIFY ? open_fanotify(w, rootfd) : open_inotify(w);
	if (err < 0) {
		free_watcher(w);
		return err;
	}
	fs->watcher = w;
	fs->watch = kind;
	return 0;
}

/*
 * Opens the source asked for (CFS_WATCH_AUTO: fanotify, else inotify, else
 * none).  Returns 0, or -errno with msg saying why the kind asked for by
 * name is not available (auto never fails: it falls back to timeouts).
 */
int watch_open(struct cfs *fs, enum cfs_watch want, int rootfd, char *msg, size_t len)
{
	int err;

	fs->watch = CFS_WATCH_NONE;
	fs->watcher = NULL;
	if (want == CFS_WATCH_NONE)
		return 0;
	if (want == CFS_WATCH_AUTO) {
		if (try_open(fs, CFS_WATCH_FANOTIFY, rootfd) == 0)
			return 0;
		try_open(fs, CFS_WATCH_INOTIFY, rootfd);
		return 0;
	}
	err = try_open(fs, want, rootfd);
	if (err < 0)
		snprintf(msg, len, "cache=%s: %s%s", watch_name(want), strerror(-err),
			 want == CFS_WATCH_FANOTIFY && err == -EPERM ? " (needs root)" : "");
	return err;
}

void watch_close(struct cfs *fs)
{
	if (fs->watcher)
		free_watcher(fs->watcher);
	fs->watcher = NULL;
}

int watch_fd(const struct cfs *fs)
{
	return fs->watcher ? fs->watcher->fd : -1;
}

int watch_mount_fd(const struct cfs *fs)
{
	return fs->watcher ? fs->watcher->mount_fd : -1;
}

/* Whether a change behind our back to in (its attributes, its data, its
 * entries if a directory) will be noticed. */
bool watch_covers(const struct cfs *fs, const struct cfs_inode *in)
{
	const struct cfs_watcher *w = fs->watcher;

	switch (fs->watch) {
	case CFS_WATCH_FANOTIFY:
		return in->dev == w->dev;
	case CFS_WATCH_INOTIFY:
		/* A directory's entries and mtime only by its own watch; a
		 * file's attributes and data by its parent's, the one the daemon
		 * last found it in (watch_found). */
		return in->d ? in->d->wd >= 0 : in->covered;
	case CFS_WATCH_NONE:
	case CFS_WATCH_AUTO:
		break;
	}
	return false;
}

static struct wd_slot *slot_of(struct cfs_watcher *w, int wd)
{
	size_t i = (size_t)wd * 0x9e3779b97f4a7c15u >> 7 & (w->cap - 1);

	while (w->map[i].wd && w->map[i].wd != wd)
		i = (i + 1) & (w->cap - 1);
	return &w->map[i];
}

/* Doubles the map when it is half full; false if out of memory. */
static bool map_room(struct cfs_watcher *w)
{
	struct wd_slot *old = w->map;
	size_t cap = w->cap;

	if (2 * (w->used + 1) <= w->cap)
		return true;
	w->map = calloc(2 * cap, sizeof(*w->map));
	if (!w->map) {
		w->map = old;
		return false;
	}
	w->cap = 2 * cap;
	for (size_t i = 0; i < cap; i++)
		if (old[i].wd)
			*slot_of(w, old[i].wd) = old[i];
	free(old);
	return true;
}

/* inotify: in was just found in dir: its changes show through dir's watch. */
void watch_found(struct cfs *fs, struct cfs_inode *dir, struct cfs_inode *in)
{
	if (fs->watch == CFS_WATCH_INOTIFY && !in->d)
		in->covered = dir->d->wd >= 0;
}

/*
 * inotify: watches dir (its descriptor pinned, as dir_lock or a listing
 * has it) if it is not watched yet.  A directory that cannot be watched
 * (no read permission, or the user's watch limit, said once) stays
 * unwatched: its entries, and the files found in it, take the unwatched
 * timeout.
 */
/* Whether dir is a directory still to be watched (inotify): no descriptor
 * is worth pinning otherwise. */
bool watch_wanted(const struct cfs *fs, const struct cfs_inode *dir)
{
	return fs->watch == CFS_WATCH_INOTIFY && dir->d && dir->d->wd < 0;
}

void watch_dir(struct cfs *fs, struct cfs_inode *dir, int fd)
{
	struct cfs_watcher *w = fs->watcher;
	struct wd_slot *s;
	char path[32];
	int wd;

	if (!watch_wanted(fs, dir))
		return;
	fd_procpath(fd, path);
	pthread_mutex_lock(&w->lock);
	if (dir->d->wd < 0) {
		if (w->used >= w->limit) {
			wd = -1;
			errno = ENOSPC;  /* this mount's share of the user's watches */
		} else {
			wd = inotify_add_watch(w->fd, path, IN_MASK);
		}
		if (wd < 0 || !map_room(w)) {
			if ((wd >= 0 || errno != EACCES) && !atomic_exchange(&w->full, true))
				fuse_log(FUSE_LOG_WARNING, "casefoldfs: cannot watch more directories "
					 "(%s; this mount takes at most %zu watches): changes made behind "
					 "our back in the others show only after the timeout\n",
					 wd < 0 ? strerror(errno) : "out of memory", w->limit);
			if (wd >= 0)
				inotify_rm_watch(w->fd, wd);
		} else {
			s = slot_of(w, wd);
			if (!s->wd)
				w->used++;
			*s = (struct wd_slot){ .wd = wd, .dev = dir->dev, .ino = dir->ino };
			dir->d->wd = wd;
		}
	}
	pthread_mutex_unlock(&w->lock);
}

/* inotify: the directory a watch is on; false if unknown. */
bool watch_dir_of(struct cfs *fs, int wd, dev_t *dev, ino_t *ino)
{
	struct cfs_watcher *w = fs->watcher;
	struct wd_slot *s;
	bool found;

	pthread_mutex_lock(&w->lock);
	s = slot_of(w, wd);
	found = s->wd == wd;
	if (found) {
		*dev = s->dev;
		*ino = s->ino;
	}
	pthread_mutex_unlock(&w->lock);
	return found;
}

/*
 * inotify: the kernel dropped a watch (its directory is gone).  The slot
 * is emptied by moving the rest of its run back (linear probing).
 */
void watch_dir_gone(struct cfs *fs, int wd)
{
	struct cfs_watcher *w = fs->watcher;
	struct wd_slot *s, moved;

	pthread_mutex_lock(&w->lock);
	s = slot_of(w, wd);
	if (s->wd == wd) {
		s->wd = 0;
		w->used--;
		for (size_t i = (size_t)(s - w->map + 1) & (w->cap - 1); w->map[i].wd;
		     i = (i + 1) & (w->cap - 1)) {
			moved = w->map[i];
			w->map[i].wd = 0;
			*slot_of(w, moved.wd) = moved;
		}
	}
	pthread_mutex_unlock(&w->lock);
}

/*
 * Turning change notices into invalidations (fs/README.md, "Kernel
 * caches").  One thread, outside any request: it may send notifications
 * that take the kernel's inode locks (notify_inval_entry), which a request
 * thread must never do while the kernel waits for its reply.  It holds no
 * lock of ours while it talks to the kernel.
 *
 * For a change to the entries of directory D (a name created, removed or
 * renamed): the kernel forgets the entry of that exact name and D's
 * attributes and listing; if D's rule is not exact and the daemon handed
 * out other spellings or misses there in this epoch, every dentry of the
 * mount expires (dcache_behind).  For a change to an object's attributes:
 * its attributes; to its data: its attributes and cached pages.  A
 * directory's attributes include its casefold flag: if it handed out other
 * spellings or misses, every dentry expires (dcache_rule_behind).  When notices were lost (the queue overflowed), everything the
 * kernel caches expires.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tree/dcache.h"
#include "tree/echo.h"
#include "tree/notice.h"
#include "tree/watch.h"

static struct {
	pthread_t thread;
	int stop[2];            /* a pipe: closing the write end stops the thread */
	bool running;
	pid_t pid;              /* ours, as fanotify reports it */
} notice = { .stop = { -1, -1 } };

static void entry_changed(struct cfs *fs, struct cfs_inode *dir, const char *name)
{
	fk_ino_t id = inode_id(&fs->nodes, dir);
	struct cfs_name n = names_name(name);

	if (!dir->d)
		return;
	pthread_mutex_lock(&dir->d->lock);
	dcache_behind(fs, dir, &n);
	pthread_mutex_unlock(&dir->d->lock);
	fk_notify_inval_entry(fs->se, id, name, strlen(name));
	fk_notify_inval_inode(fs->se, id, 0, 0);
}

static void object_changed(struct cfs *fs, struct cfs_inode *in, bool data, bool attrib)
{
	if (in->d && attrib) {
		/* Maybe its flag: dentries handed out under the old rule. */
		pthread_mutex_lock(&in->d->lock);
		dcache_rule_behind(fs, in);
		pthread_mutex_unlock(&in->d->lock);
	}
	fk_notify_inval_inode(fs->se, inode_id(&fs->nodes, in), data ? 0 : -1, 0);
}

static void everything_changed(struct cfs *fs)
{
	fk_ino_t *ids;
	size_t n = inode_ids(&fs->nodes, &ids);

	fuse_log(FUSE_LOG_WARNING, "casefoldfs: change notices were lost: the kernel forgets "
		 "everything it cached of this mount\n");
	dcache_expire_all(fs);
	for (size_t i = 0; i < n; i++)
		fk_notify_inval_inode(fs->se, ids[i], 0, 0);
	free(ids);
}

/*
 * fanotify: the node of a reported file handle (pinned), or NULL.  Nodes
 * with a handle are found by it, without a system call (most events of a
 * filesystem are not ours); only while nodes with path locators exist is
 * an unknown handle opened to learn its (st_dev, st_ino).
 */
static struct cfs_inode *node_of_handle(struct cfs *fs, struct file_handle *fh)
{
	struct cfs_inode *in = inode_find_handle(&fs->nodes, fh);
	struct stat st;
	bool ok;
	int fd;

	if (in || !inode_any_path_nodes(&fs->nodes))
		return in;
	fd = open_by_handle_at(watch_mount_fd(fs), fh, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return NULL;  /* gone already, or not ours */
	ok = fstat(fd, &st) == 0;
	close(fd);
	return ok ? inode_find(&fs->nodes, st.st_dev, st.st_ino) : NULL;
}

#define FAN_ENTRY (FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO)

static void fanotify_event(struct cfs *fs, const struct fanotify_event_metadata *m)
{
	const char *p = (const char *)(m + 1), *end = (const char *)m + m->event_len;
	struct cfs_inode *in;

	if (m->mask & FAN_Q_OVERFLOW) {
		everything_changed(fs);
		return;
	}
	/* What the daemon did through the mount the kernel already knows. */
	if (m->pid == notice.pid)
		return;
	while (p + sizeof(struct fanotify_event_info_header) <= end) {
		const struct fanotify_event_info_header *h = (const void *)p;
		const struct fanotify_event_info_fid *fid = (const void *)p;
		struct file_handle *fh = (struct file_handle *)fid->handle;

		if (h->len == 0 || p + h->len > end)
			break;
		if (h->info_type == FAN_EVENT_INFO_TYPE_DFID_NAME) {
			const char *name = (const char *)fh->f_handle + fh->handle_bytes;

			/* An event on a directory itself names it "." (no FID follows). */
			in = node_of_handle(fs, fh);
			if (in && strcmp(name, ".") == 0)
				object_changed(fs, in, m->mask & FAN_MODIFY, m->mask & FAN_ATTRIB);
			else if (in && (m->mask & FAN_ENTRY))
				entry_changed(fs, in, name);
			if (in)
				inode_put(&fs->nodes, in);
		} else if (h->info_type == FAN_EVENT_INFO_TYPE_FID) {
			if ((in = node_of_handle(fs, fh))) {
				object_changed(fs, in, m->mask & FAN_MODIFY, m->mask & FAN_ATTRIB);
				inode_put(&fs->nodes, in);
			}
		}
		p += h->len;
	}
}

/* inotify: name's node in the directory dir (pinned), or NULL. */
static struct cfs_inode *node_in(struct cfs *fs, struct cfs_inode *dir, const char *name)
{
	struct cfs_inode *in = NULL;
	struct stat st;
	int fd = inode_pin(&fs->nodes, dir);

	if (fd < 0)
		return NULL;
	if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		in = inode_find(&fs->nodes, st.st_dev, st.st_ino);
	inode_unpin(&fs->nodes, dir, fd);
	return in;
}

#define IN_ENTRY (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)

static void inotify_event(struct cfs *fs, const struct inotify_event *e)
{
	struct cfs_inode *dir, *in;
	dev_t dev;
	ino_t ino;

	if (e->mask & IN_Q_OVERFLOW) {
		echo_forget(0);
		everything_changed(fs);
		return;
	}
	if (e->mask & IN_IGNORED) {
		echo_forget(e->wd);
		watch_dir_gone(fs, e->wd);
		return;
	}
	/* What the daemon did itself the kernel already knows (echo.c). */
	if ((e->mask & IN_ENTRY) && e->len && echo_ours(e->wd, e->mask & IN_ENTRY, e->name))
		return;
	if (!watch_dir_of(fs, e->wd, &dev, &ino) || !(dir = inode_find(&fs->nodes, dev, ino)))
		return;
	if (e->mask & IN_ENTRY) {
		entry_changed(fs, dir, e->name);
	} else if (e->len == 0) {
		object_changed(fs, dir, e->mask & IN_MODIFY, e->mask & IN_ATTRIB);
	} else if ((in = node_in(fs, dir, e->name))) {
		/* inotify names no writer: a file open for writing through the
		 * mount is taken to be written through it (what the kernel knows),
		 * not to drop its pages at every WRITE of ours. */
		bool data = (e->mask & IN_MODIFY) && !inode_writing(&fs->nodes, in);

		object_changed(fs, in, data, e->mask & IN_ATTRIB);
		inode_put(&fs->nodes, in);
	}
	inode_put(&fs->nodes, dir);
}

static void dispatch(struct cfs *fs, const char *buf, ssize_t n)
{
	if (fs->watch == CFS_WATCH_FANOTIFY) {
		/* Events follow each other unaligned (a name's length decides):
		 * each is copied whole to an aligned place before it is read. */
		static union {
			struct fanotify_event_metadata m;
			char bytes[8192];
		} ev;
		struct fanotify_event_metadata m;

		for (const char *p = buf; p + sizeof(m) <= buf + n; p += m.event_len) {
			memcpy(&m, p, sizeof(m));
			if (m.event_len < sizeof(m) || m.event_len > sizeof(ev) ||
			    p + m.event_len > buf + n)
				break;
			memcpy(&ev, p, m.event_len);
			if (m.vers == FANOTIFY_METADATA_VERSION)
				fanotify_event(fs, &ev.m);
		}
		return;
	}
	for (const char *p = buf; p + sizeof(struct inotify_event) <= buf + n;) {
		const struct inotify_event *e = (const void *)p;

		inotify_event(fs, e);
		p += sizeof(*e) + e->len;
	}
}

static void *run(void *arg)
{
	struct cfs *fs = arg;
	static char buf[64 * 1024] __attribute__((aligned(8)));
	struct pollfd pfd[2] = {
		{ .fd = watch_fd(fs), .events = POLLIN },
		{ .fd = notice.stop[0], .events = POLLIN },
	};

	for (;;) {
		ssize_t n;

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents)
			break;
		n = read(pfd[0].fd, buf, sizeof(buf));
		if (n > 0)
			dispatch(fs, buf, n);
		else if (n < 0 && errno != EINTR && errno != EAGAIN)
			break;
	}
	return NULL;
}

/* Starts the thread once the session exists (fs->se); 0 or -errno. */
int notice_start(struct cfs *fs)
{
	int err;

	if (!fs->watcher)
		return 0;
	notice.pid = getpid();
	if (pipe2(notice.stop, O_CLOEXEC) < 0)
		return -errno;
	err = pthread_create(&notice.thread, NULL, run, fs);
	if (err) {
		close(notice.stop[0]);
		close(notice.stop[1]);
		return -err;
	}
	notice.running = true;
	return 0;
}

void notice_stop(struct cfs *fs)
{
	(void)fs;
	if (!notice.running)
		return;
	close(notice.stop[1]);
	pthread_join(notice.thread, NULL);
	close(notice.stop[0]);
	notice.running = false;
}

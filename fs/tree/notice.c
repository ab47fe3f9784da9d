/*
 * Turning change notices into invalidations (fs/tree/DESIGN.md, "Kernel
 * caches").  Three threads, outside any request, holding no lock of ours
 * while they talk to the kernel:
 *
 *  - the reader drains the notification source as fast as it can (the
 *    kernel's queue of events stays short) and never waits for a lookup:
 *    it takes a directory's lock only if it is free, sends only what the
 *    kernel answers without a lock of its own (attributes: inval_inode
 *    without pages; the dentry epoch) and queues the rest;
 *  - the entry invalidator sends fk_notify_inval_entry, which takes the
 *    directory's inode lock in the kernel and so waits for every lookup in
 *    that directory (a user can keep one busy for minutes);
 *  - the data invalidator drops pages (inval_inode with pages).
 *
 * Both queues are bounded.  An entry queued longer than ENTRY_DEADLINE_MS
 * without the queue draining (its thread stuck behind a lookup, or a
 * backlog) is expired with the epoch instead, which is a lock-free bump
 * in the kernel: the queue is emptied and every dentry of the mount
 * expires, so a change shows within that deadline whatever a user does.
 * An overflowing entry queue does the same; an overflowing data queue
 * drops every node's pages.  Without the epoch (-o noepoch, old kernels)
 * the entry queue is only bounded, not timed.
 *
 * For a change to the entries of directory D (a name created, removed or
 * renamed): the kernel forgets the entry of that exact name and D's
 * attributes (and so its listing, checked against D's mtime); if D's rule
 * is not exact and the daemon handed out other spellings or misses there
 * in this epoch, every dentry of the mount expires (dcache_behind).  For a
 * change to an object's attributes: its attributes; to its data: its
 * attributes and cached pages.  A directory's attributes include its
 * casefold flag: if the flag is not the one the daemon last read and D
 * handed out other spellings or misses, every dentry expires
 * (dcache_rule_behind).  When D's lock is busy (a lookup building its
 * index), the epoch is bumped instead of asking D's record.  When
 * notices were lost (the kernel's queue overflowed), everything the kernel
 * caches expires.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"
#include "tree/dcache.h"
#include "tree/echo.h"
#include "tree/flagstore.h"
#include "tree/locator.h"
#include "tree/notice.h"
#include "tree/watch.h"

/* How long an entry invalidation may wait before the epoch stands in. */
#define ENTRY_DEADLINE_MS 20
/*
 * How long the reader lets events gather after a short read of events
 * that were none of the tree's.  A mark on a whole filesystem (fanotify)
 * reports every write to it, whoever makes it, most of them outside the
 * tree or our own, each alone when they come one at a time: the reader
 * would wake, and switch, once per write on the machine.  After such a
 * batch it waits this long, so that it wakes at most 500 times a second
 * for them.  A batch that changed something of the tree is followed at
 * once: the next change behind our back may be its sequel, and a lookup
 * that reads the directory before the reader has marked it stale would
 * read it again after (tests/fs/indexstamp.sh counts the rebuilds).
 */
#define BATCH_MS 2
/* Invalidations waiting, per queue. */
#define QUEUE_MAX 1024

struct item {
	fk_ino_t id;
	char name[CFS_NAME_MAX + 1];  /* entries only */
};

/* A bounded FIFO of invalidations and the thread that sends them. */
struct queue {
	struct item *items;
	size_t head, count;
	bool overflowed;         /* items were dropped: the fallback is due */
	pthread_cond_t wake;
	pthread_t thread;
};

static struct {
	pthread_t reader;
	int stop[2];            /* a pipe: closing the write end stops the reader */
	bool running, stopping;
	pid_t pid;              /* ours, as fanotify reports it */
	pthread_mutex_t lock;   /* both queues and the fields below */
	struct queue entries, data;
	int64_t waiting_since;  /* ms: the oldest entry not yet sent or expired; 0 */
	bool bump;              /* the reader's batch must end with an epoch bump */
	bool ours;              /* the reader's batch changed something of the tree */
} notice = { .stop = { -1, -1 }, .lock = PTHREAD_MUTEX_INITIALIZER };

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Queues an invalidation (reader; notice.lock held); false if full. */
static bool push(struct queue *q, fk_ino_t id, const char *name)
{
	struct item *last = q->count ? &q->items[(q->head + q->count - 1) % QUEUE_MAX] : NULL;
	struct item *it;

	if (last && last->id == id && strcmp(last->name, name) == 0)
		return true;  /* the same again: one invalidation does for both */
	if (q->count == QUEUE_MAX) {
		q->count = 0;
		q->overflowed = true;
		pthread_cond_signal(&q->wake);
		return false;
	}
	it = &q->items[(q->head + q->count++) % QUEUE_MAX];
	it->id = id;
	snprintf(it->name, sizeof(it->name), "%s", name);
	pthread_cond_signal(&q->wake);
	return true;
}

/* The reader's side of an entry change: queued, the deadline started. */
static void queue_entry(fk_ino_t dir, const char *name)
{
	pthread_mutex_lock(&notice.lock);
	if (!push(&notice.entries, dir, name))
		notice.bump = true;  /* what was queued expires with the epoch */
	else if (!notice.waiting_since)
		notice.waiting_since = now_ms();
	pthread_mutex_unlock(&notice.lock);
}

static void queue_data(fk_ino_t id)
{
	pthread_mutex_lock(&notice.lock);
	push(&notice.data, id, "");
	pthread_mutex_unlock(&notice.lock);
}

/*
 * Reader: entries queued longer than the deadline are expired with the
 * epoch (their thread is stuck, or behind); the milliseconds until the
 * next check, or -1.  Only the reader queues entries: none can come in
 * between the check and the bump.
 */
static int expire_late(struct cfs *fs)
{
	int64_t since, late;

	pthread_mutex_lock(&notice.lock);
	since = notice.waiting_since;
	pthread_mutex_unlock(&notice.lock);
	if (!since)
		return -1;
	late = now_ms() - since;
	if (late < ENTRY_DEADLINE_MS)
		return (int)(ENTRY_DEADLINE_MS - late) + 1;
	if (!dcache_expire_all(fs))
		return -1;  /* no epoch: the queue is only bounded */
	pthread_mutex_lock(&notice.lock);
	notice.entries.count = 0;
	notice.waiting_since = 0;
	pthread_mutex_unlock(&notice.lock);
	return -1;
}

/* Every node's pages (the data queue overflowed). */
static void all_data_changed(struct cfs *fs)
{
	fk_ino_t *ids;
	size_t n = inode_ids(&fs->nodes, &ids);

	for (size_t i = 0; i < n; i++)
		fk_notify_inval_inode(fs->se, ids[i], 0, 0);
	free(ids);
}

/* The loop of the entry and data invalidators. */
static void serve(struct cfs *fs, struct queue *q)
{
	struct item it;
	bool all;

	pthread_mutex_lock(&notice.lock);
	for (;;) {
		while (!q->count && !q->overflowed && !notice.stopping)
			pthread_cond_wait(&q->wake, &notice.lock);
		if (notice.stopping)
			break;
		all = q->overflowed;
		q->overflowed = false;
		if (!all) {
			it = q->items[q->head];
			q->head = (q->head + 1) % QUEUE_MAX;
			q->count--;
		}
		pthread_mutex_unlock(&notice.lock);
		if (q == &notice.entries && !all)
			fk_notify_inval_entry(fs->se, it.id, it.name, strlen(it.name));
		else if (q == &notice.data)
			all ? all_data_changed(fs) : (void)fk_notify_inval_inode(fs->se, it.id, 0, 0);
		pthread_mutex_lock(&notice.lock);
		if (q == &notice.entries && !q->count)
			notice.waiting_since = 0;
	}
	pthread_mutex_unlock(&notice.lock);
}

static struct cfs *served;

static void *entries_thread(void *arg)
{
	(void)arg;
	serve(served, &notice.entries);
	return NULL;
}

static void *data_thread(void *arg)
{
	(void)arg;
	serve(served, &notice.data);
	return NULL;
}

/* Runs f on dir's record if its lock is free; else the epoch is bumped. */
static void with_record(struct cfs *fs, struct cfs_inode *dir, void (*f)(struct cfs *fs,
			struct cfs_inode *dir, struct cfs_name *n), struct cfs_name *n)
{
	if (pthread_mutex_trylock(&dir->d->lock) != 0) {
		notice.bump = true;  /* a lookup holds it: maybe for minutes */
		return;
	}
	f(fs, dir, n);
	pthread_mutex_unlock(&dir->d->lock);
}

static void behind(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *n)
{
	dcache_behind(fs, dir, n);
}

static void rule_behind(struct cfs *fs, struct cfs_inode *dir, struct cfs_name *n)
{
	(void)n;
	dcache_rule_behind(fs, dir);
}

static void entry_changed(struct cfs *fs, struct cfs_inode *dir, const char *name)
{
	fk_ino_t id = ids_value(&fs->nodes, dir);
	struct cfs_name n = names_name(name);

	if (!dir->d)
		return;
	notice.ours = true;
	atomic_store(&dir->d->entries_behind, true);
	with_record(fs, dir, behind, &n);
	fk_notify_inval_inode(fs->se, id, -1, 0);
	queue_entry(id, name);
}

/*
 * Whether the flag of directory dir in the backing tree is other than the
 * one its dentries were handed out under (the last the daemon read, which
 * expired those of the rule before when it changed: dir.c,
 * revalidate_flag).  Most attribute changes to a directory are not of its
 * flag: times, modes, the flag the daemon itself gives each new
 * subdirectory (inotify reports the daemon's own changes too).  Read
 * without dir's lock, through a pinned descriptor: a flag that cannot be
 * read counts as changed.
 */
static bool flag_moved(struct cfs *fs, struct cfs_inode *dir)
{
	int fd = locator_pin(&fs->nodes, dir);
	bool on;
	int err;

	if (fd < 0)
		return true;
	err = flagstore_get(fd, &on);
	locator_unpin(&fs->nodes, dir, fd);
	/* Unreadable to the daemon is off to it (inode_load_flag). */
	return (err < 0 && err != -EACCES) || on != atomic_load(&dir->d->casefold);
}

/*
 * Whether a change to in's attributes alone is one the kernel was answered
 * since (dcache_told), st: in's attributes now, or NULL.
 */
static bool already_told(struct cfs *fs, struct cfs_inode *in, const struct stat *st)
{
	struct stat now;
	int fd;
	bool told;

	if (!fs->fine_ctime)
		return false;
	if (st)
		return dcache_told(fs, in, st);
	fd = locator_pin(&fs->nodes, in);
	if (fd < 0)
		return false;
	told = fstat(fd, &now) == 0 && dcache_told(fs, in, &now);
	locator_unpin(&fs->nodes, in, fd);
	return told;
}

/* in's data or attributes changed (st: its attributes now, or NULL). */
static void object_changed(struct cfs *fs, struct cfs_inode *in, bool data, bool attrib,
			   const struct stat *st)
{
	fk_ino_t id = ids_value(&fs->nodes, in);

	/* Maybe a directory's flag: dentries handed out under the old rule. */
	if (in->d && attrib && flag_moved(fs, in)) {
		notice.ours = true;
		with_record(fs, in, rule_behind, NULL);
	}
	if (!data && already_told(fs, in, st))
		return;
	notice.ours = true;
	fk_notify_inval_inode(fs->se, id, -1, 0);
	if (data)
		queue_data(id);
}

static void everything_changed(struct cfs *fs)
{
	fk_ino_t *ids;
	size_t n = inode_ids(&fs->nodes, &ids);

	fuse_log(FUSE_LOG_WARNING, "casefoldfs: change notices were lost: the kernel forgets "
		 "everything it cached of this mount\n");
	notice.ours = true;
	notice.bump = true;
	for (size_t i = 0; i < n; i++)
		fk_notify_inval_inode(fs->se, ids[i], -1, 0);
	free(ids);
	pthread_mutex_lock(&notice.lock);
	notice.data.overflowed = true;
	pthread_cond_signal(&notice.data.wake);
	pthread_mutex_unlock(&notice.lock);
}

/*
 * fanotify: the node of a reported file handle (pinned), or NULL.  Nodes
 * with a handle are found by it, without a system call (most events of a
 * filesystem are not ours); only while nodes with path locators exist is
 * an unknown handle opened to learn its (st_dev, st_ino).
 */
static struct cfs_inode *node_of_handle(struct cfs *fs, struct file_handle *fh)
{
	struct cfs_inode *in = handles_find(&fs->nodes, fh);
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

/*
 * Whether a change to in's data alone is a write through the mount: in is
 * open for writing through it, and with passthrough the client's own
 * process writes the backing file, so the notice names that process, not
 * the daemon.  The kernel knows of such a write already (it updates the
 * size and expires the times itself); invalidating would only make it ask
 * again for attributes, and drop pages, at every write.  A write by
 * another process to a file open for writing through the mount then
 * shows when the file's attributes time out (DCACHE_FILE_TTL), as inotify
 * names no writer at all.
 */
static bool written_through(struct cfs *fs, struct cfs_inode *in, bool data, bool attrib)
{
	return data && !attrib && inode_writing(&fs->nodes, in);
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
				object_changed(fs, in, m->mask & FAN_MODIFY, m->mask & FAN_ATTRIB, NULL);
			else if (in && (m->mask & FAN_ENTRY))
				entry_changed(fs, in, name);
			if (in)
				inode_put(&fs->nodes, in);
		} else if (h->info_type == FAN_EVENT_INFO_TYPE_FID) {
			if ((in = node_of_handle(fs, fh))) {
				if (!written_through(fs, in, m->mask & FAN_MODIFY, m->mask & FAN_ATTRIB))
					object_changed(fs, in, m->mask & FAN_MODIFY, m->mask & FAN_ATTRIB, NULL);
				inode_put(&fs->nodes, in);
			}
		}
		p += h->len;
	}
}

/* inotify: name's node in the directory dir (pinned), or NULL; fills st. */
static struct cfs_inode *node_in(struct cfs *fs, struct cfs_inode *dir, const char *name,
				 struct stat *st)
{
	struct cfs_inode *in = NULL;
	int fd = locator_pin(&fs->nodes, dir);

	if (fd < 0)
		return NULL;
	if (fstatat(fd, name, st, AT_SYMLINK_NOFOLLOW) == 0)
		in = inode_find(&fs->nodes, st->st_dev, st->st_ino);
	locator_unpin(&fs->nodes, dir, fd);
	return in;
}

#define IN_ENTRY (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)

static void inotify_event(struct cfs *fs, const struct inotify_event *e)
{
	struct cfs_inode *dir, *in;
	struct stat st;
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
		object_changed(fs, dir, e->mask & IN_MODIFY, e->mask & IN_ATTRIB, NULL);
	} else if ((in = node_in(fs, dir, e->name, &st))) {
		/* inotify names no writer at all (written_through). */
		if (!written_through(fs, in, e->mask & IN_MODIFY, e->mask & IN_ATTRIB))
			object_changed(fs, in, e->mask & IN_MODIFY, e->mask & IN_ATTRIB, &st);
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

/* Ends a batch of events: one epoch bump for all that asked for one. */
static void end_batch(struct cfs *fs)
{
	if (notice.bump)
		dcache_expire_all(fs);
	notice.bump = false;
}

static void *run(void *arg)
{
	struct cfs *fs = arg;
	static char buf[64 * 1024] __attribute__((aligned(8)));
	struct pollfd pfd[2] = {
		{ .fd = watch_fd(fs), .events = POLLIN },
		{ .fd = notice.stop[0], .events = POLLIN },
	};
	int wait = -1;

	for (;;) {
		ssize_t n;
		int r = poll(pfd, 2, wait);

		if (r < 0 && errno != EINTR)
			break;
		if (r > 0 && pfd[1].revents)
			break;
		if (r > 0 && pfd[0].revents) {
			n = read(pfd[0].fd, buf, sizeof(buf));
			if (n > 0)
				dispatch(fs, buf, n);
			else if (n < 0 && errno != EINTR && errno != EAGAIN)
				break;
			/* The events of the next moment, read as one batch. */
			if (n > 0 && n < (ssize_t)sizeof(buf) / 2 && !notice.ours)
				nanosleep(&(struct timespec){ .tv_nsec = BATCH_MS * 1000000L }, NULL);
			notice.ours = false;
		}
		wait = expire_late(fs);
		end_batch(fs);
	}
	return NULL;
}

static int start_queue(struct queue *q, void *(*thread)(void *))
{
	int err;

	q->items = calloc(QUEUE_MAX, sizeof(*q->items));
	if (!q->items)
		return ENOMEM;
	pthread_cond_init(&q->wake, NULL);
	err = pthread_create(&q->thread, NULL, thread, NULL);
	if (err) {
		pthread_cond_destroy(&q->wake);
		free(q->items);
		q->items = NULL;
	}
	return err;
}

static void stop_queue(struct queue *q)
{
	if (!q->items)
		return;
	pthread_mutex_lock(&notice.lock);
	notice.stopping = true;
	pthread_cond_signal(&q->wake);
	pthread_mutex_unlock(&notice.lock);
	pthread_join(q->thread, NULL);
	pthread_cond_destroy(&q->wake);
	free(q->items);
	q->items = NULL;
}

/* Starts the threads once the session exists (fs->se); 0 or -errno. */
int notice_start(struct cfs *fs)
{
	int err;

	if (!fs->watcher)
		return 0;
	notice.pid = getpid();
	notice.stopping = false;
	served = fs;
	if (pipe2(notice.stop, O_CLOEXEC) < 0)
		return -errno;
	err = start_queue(&notice.entries, entries_thread);
	if (!err && (err = start_queue(&notice.data, data_thread)))
		stop_queue(&notice.entries);
	if (!err && (err = pthread_create(&notice.reader, NULL, run, fs))) {
		stop_queue(&notice.entries);
		stop_queue(&notice.data);
	}
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
	pthread_join(notice.reader, NULL);
	close(notice.stop[0]);
	stop_queue(&notice.entries);
	stop_queue(&notice.data);
	notice.running = false;
}

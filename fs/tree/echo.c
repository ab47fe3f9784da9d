/*
 * The daemon's own entry changes, told apart from changes behind its back
 * (echo.h).  Before an operation's system call, the request thread records
 * the events it will cause (directory watch, event, name); after it, it
 * settles them: kept if the call succeeded, dropped if it failed.  The
 * watcher's thread skips an event that matches a kept record, consuming
 * it, oldest first.  An event that matches a record still pending waits
 * for the call's outcome: the events of one directory come in the order
 * of the changes, so whether the matching event is ours or a change made
 * by someone else in that very instant, the events that follow it (one of
 * them the other change's) still invalidate, after both changes.
 *
 * Two events of one kind on one name need a change between them that
 * makes the second possible (a name is created once until it is removed,
 * a MOVED_TO carries its own cookie), so inotify never merges our event
 * with another: each record meets its own event.  A record whose event
 * never comes (the queue overflowed, the watch went) is dropped then, and
 * any record is ignored after ECHO_LIFE: a late event of ours then only
 * costs the kernel an entry.  When the table is full an operation goes
 * unrecorded and its event invalidates, as any change behind our back.
 */
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "tree/echo.h"
#include "tree/node.h"

#define ECHO_SLOTS 256
#define ECHO_LIFE 2  /* seconds */

enum echo_state { ECHO_FREE, ECHO_PENDING, ECHO_DONE };

struct echo_slot {
	enum echo_state state;
	int wd;                 /* -1: forgotten, matches nothing */
	uint32_t mask;          /* one of IN_CREATE, IN_DELETE, IN_MOVED_* */
	uint64_t seq;           /* order of recording: oldest matches first */
	time_t when;            /* settled at (monotonic seconds) */
	char name[NAME_MAX + 1];
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t settled;
	uint64_t seq;
	struct echo_slot slot[ECHO_SLOTS];
} echo = { .lock = PTHREAD_MUTEX_INITIALIZER, .settled = PTHREAD_COND_INITIALIZER };

static time_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return ts.tv_sec;
}

static bool expired(const struct echo_slot *s, time_t t)
{
	return s->state == ECHO_DONE && t - s->when > ECHO_LIFE;
}

/* Records that mask on name in dir is coming (dir's lock held), in op. */
void echo_expect(struct cfs *fs, struct echo_op *op, struct cfs_inode *dir, uint32_t mask,
		 const char *name)
{
	size_t len = strlen(name);
	time_t t = now();
	int i, k;

	if (fs->watch != CFS_WATCH_INOTIFY || !dir->d || dir->d->wd < 0 || len > NAME_MAX)
		return;
	for (k = 0; k < 4 && op->slot[k] >= 0; k++)
		;
	if (k == 4)
		return;
	pthread_mutex_lock(&echo.lock);
	for (i = 0; i < ECHO_SLOTS; i++) {
		struct echo_slot *s = &echo.slot[i];

		if (s->state == ECHO_FREE || expired(s, t)) {
			*s = (struct echo_slot){ .state = ECHO_PENDING, .wd = dir->d->wd,
						 .mask = mask, .seq = ++echo.seq };
			memcpy(s->name, name, len + 1);
			op->slot[k] = i;
			break;
		}
	}
	pthread_mutex_unlock(&echo.lock);
}

/* The operation's system call is over: done, its events are coming. */
void echo_settle(struct echo_op *op, bool done)
{
	time_t t = now();

	pthread_mutex_lock(&echo.lock);
	for (int k = 0; k < 4 && op->slot[k] >= 0; k++) {
		struct echo_slot *s = &echo.slot[op->slot[k]];

		s->state = done ? ECHO_DONE : ECHO_FREE;
		s->when = t;
		op->slot[k] = -1;
	}
	pthread_cond_broadcast(&echo.settled);
	pthread_mutex_unlock(&echo.lock);
}

/* The watcher's thread: whether an entry event is the daemon's own. */
bool echo_ours(int wd, uint32_t mask, const char *name)
{
	struct echo_slot *oldest;
	bool ours = false;
	time_t t;

	pthread_mutex_lock(&echo.lock);
	for (;;) {
		t = now();
		oldest = NULL;
		for (int i = 0; i < ECHO_SLOTS; i++) {
			struct echo_slot *s = &echo.slot[i];

			if (s->state != ECHO_FREE && !expired(s, t) && s->wd == wd &&
			    s->mask == mask && strcmp(s->name, name) == 0 &&
			    (!oldest || s->seq < oldest->seq))
				oldest = s;
		}
		if (!oldest || oldest->state == ECHO_DONE)
			break;
		pthread_cond_wait(&echo.settled, &echo.lock);
	}
	if (oldest) {
		oldest->state = ECHO_FREE;
		ours = true;
	}
	pthread_mutex_unlock(&echo.lock);
	return ours;
}

/* The events of watch wd (0: of every watch) will not come. */
void echo_forget(int wd)
{
	pthread_mutex_lock(&echo.lock);
	for (int i = 0; i < ECHO_SLOTS; i++)
		if (wd == 0 || echo.slot[i].wd == wd)
			echo.slot[i].wd = -1;
	pthread_mutex_unlock(&echo.lock);
}

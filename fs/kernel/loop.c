/*
 * The request loop: workers, each on its own clone of the session's
 * /dev/fuse descriptor (FUSE_DEV_IOC_CLONE), each reading one request into
 * its own buffer and answering it before reading the next.  The kernel
 * queues requests for the whole session and hands each to one reader; a
 * reply must go back by the descriptor the request came by, which each
 * worker's own makes trivially so.
 *
 * The pool grows as libfuse's did: one worker at first, another whenever
 * the last idle one takes a request, up to max_threads (handlers may block
 * on the backing filesystem, fs/THREAT-MODEL.md).  Workers never
 * exit before the session ends.
 *
 * The main thread answers INIT, then waits for a signal: SIGINT, SIGTERM
 * or SIGHUP from outside, SIGUSR1 from a worker that saw the session end
 * (ENODEV: unmounted); once a second meanwhile it looks at what each
 * worker is answering (watchdog.c).  It then runs the session's ending
 * hook while the workers still answer (fk.h, fk_options), and cancels the
 * workers, which accept cancellation only while waiting in read; one that
 * does not come back within STOP_GRACE_S is left behind (se->stuck).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "kernel/dispatch.h"
#include "kernel/handshake.h"
#include "kernel/internal.h"
#include "kernel/session.h"
#include "kernel/uring.h"
#include "kernel/watchdog.h"

struct fk_worker {
	struct fk_session *se;
	int fd;
	bool own_fd;               /* a clone, closed with the worker */
	char *buf;
	struct fk_busy busy;       /* the request it answers (watchdog.c) */
	pthread_t thread;
	struct fk_worker *next;
};

/* A descriptor of the session for a new worker: a clone, else the session's own. */
static int worker_fd(struct fk_session *se, bool *own)
{
	uint32_t master = (uint32_t)se->fd;
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);

	*own = false;
	if (fd < 0)
		return se->fd;
	if (ioctl(fd, FUSE_DEV_IOC_CLONE, &master) < 0) {
		close(fd);
		return se->fd;
	}
	*own = true;
	return fd;
}

static void spawn(struct fk_session *se);

static void *work(void *arg)
{
	struct fk_worker *w = arg;
	struct fk_session *se = w->se;
	ssize_t n;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	atomic_store(&w->busy.tid, (pid_t)gettid());
	for (;;) {
		atomic_fetch_add(&se->idle, 1);
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
		n = read(w->fd, w->buf, se->bufsize);
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		if (atomic_fetch_sub(&se->idle, 1) == 1 && n > 0)
			spawn(se);
		if (n > 0) {
			fk_busy_begin(&w->busy, w->buf, (size_t)n);
			fk_dispatch(se, w->fd, w->buf, (size_t)n, w->buf, se->bufsize, NULL);
			fk_busy_end(&w->busy);
			continue;
		}
		/* EINTR, EAGAIN: nothing; ENOENT: interrupted before we read it. */
		if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == ENOENT))
			continue;
		if (n < 0 && errno != ENODEV)
			fprintf(stderr, "casefoldfs: reading /dev/fuse: %s\n", strerror(errno));
		fk_session_end(se);
		return NULL;
	}
}

/* One more worker, if the pool may grow; a failure only leaves it as it is. */
static void spawn(struct fk_session *se)
{
	struct fk_worker *w;

	pthread_mutex_lock(&se->lock);
	if (se->nworkers >= se->opt.max_threads || atomic_load(&se->ended))
		goto out;
	w = calloc(1, sizeof(*w));
	if (!w)
		goto out;
	w->se = se;
	w->buf = malloc(se->bufsize);
	w->fd = se->nworkers == 0 ? se->fd : worker_fd(se, &w->own_fd);
	if (!w->buf || pthread_create(&w->thread, NULL, work, w) != 0) {
		if (w->own_fd)
			close(w->fd);
		free(w->buf);
		free(w);
		goto out;
	}
	w->next = se->workers;
	se->workers = w;
	se->nworkers++;
out:
	pthread_mutex_unlock(&se->lock);
}

/* INIT, read on the session's descriptor before any worker runs: 0 when
 * answered, 1 when unmounted before it came, -1 after saying why not. */
static int serve_init(struct fk_session *se)
{
	char *buf = malloc(se->bufsize);
	int r = -1;
	ssize_t n;

	if (!buf)
		fprintf(stderr, "casefoldfs: %s\n", strerror(ENOMEM));
	while (buf) {
		n = read(se->fd, buf, se->bufsize);
		if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == ENOENT))
			continue;
		/* A mount unmounted at once (fusermount3 -u right after the
		 * mount) ends before the kernel sends INIT: a clean end. */
		if (n < 0 && errno == ENODEV) {
			r = 1;
			break;
		}
		if (n <= 0) {
			fprintf(stderr, "casefoldfs: reading /dev/fuse: %s\n",
				n < 0 ? strerror(errno) : "nothing to read");
			break;
		}
		r = fk_handshake(se, buf, (size_t)n);
		if (r <= 0)
			break;
	}
	free(buf);
	return r;
}

static void ending(struct fk_session *se)
{
	if (se->opt.ending)
		se->opt.ending(se->opt.ending_arg);
}

/* The watchdog's look at every worker (watchdog.c), from the main thread. */
static void watch_workers(struct fk_session *se)
{
	uint64_t now = fk_now_ms();

	pthread_mutex_lock(&se->lock);
	for (struct fk_worker *w = se->workers; w; w = w->next)
		fk_watch(se, &w->busy, w->fd, now);
	pthread_mutex_unlock(&se->lock);
}

/*
 * A worker has STOP_GRACE_S to leave its handler once cancelled; one still
 * in it (a system call on a hung backing mount) is left, and counted in
 * se->stuck: the daemon then ends without it (main.c), and the kernel
 * fails what it was answering when /dev/fuse closes.
 */
#define STOP_GRACE_S 2

/* Ends and joins the workers, which accept cancellation only while waiting in read. */
static void stop_workers(struct fk_session *se)
{
	struct fk_worker *w;
	struct timespec deadline;

	/* No worker joins the pool once ended is set (spawn checks it under the lock). */
	atomic_store(&se->ended, 1);
	pthread_mutex_lock(&se->lock);
	w = se->workers;
	se->workers = NULL;
	pthread_mutex_unlock(&se->lock);
	for (struct fk_worker *c = w; c; c = c->next)
		pthread_cancel(c->thread);
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += STOP_GRACE_S;
	while (w) {
		struct fk_worker *next = w->next;

		if (pthread_timedjoin_np(w->thread, NULL, &deadline) != 0) {
			fprintf(stderr, "casefoldfs: ending with a worker still in %s of node %llu\n",
				fk_opname(atomic_load(&w->busy.opcode)),
				(unsigned long long)atomic_load(&w->busy.nodeid));
			se->stuck++;
			w = next;
			continue;
		}
		if (w->own_fd)
			close(w->fd);
		free(w->buf);
		free(w);
		w = next;
	}
}

int fk_session_loop(struct fk_session *se)
{
	sigset_t stop;
	int sig = 0, r;

	se->main_thread = pthread_self();  /* after fuse_daemonize's fork */
	r = serve_init(se);
	if (r == 0) {
		spawn(se);
		if (se->nworkers == 0) {
			fprintf(stderr, "casefoldfs: cannot start a worker thread\n");
			r = -1;
		}
	}
	/* The queues once INIT is answered: the kernel takes no registration before. */
	if (r == 0 && fk_uring_start(se) < 0)
		r = -1;
	if (r != 0) {
		ending(se);
		stop_workers(se);
		fk_uring_stop(se);
		return r < 0 ? 1 : 0;
	}
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigaddset(&stop, SIGUSR1);
	/* Once a second without a signal, the watchdog's look. */
	for (;;) {
		sig = sigtimedwait(&stop, NULL, &(struct timespec){ .tv_sec = 1 });
		if (sig < 0)
			watch_workers(se);
		else if (sig != SIGUSR1 || atomic_load(&se->ended))
			break;
	}
	ending(se);
	stop_workers(se);
	/* The queues last: they answer requests too while the workers stop. */
	fk_uring_stop(se);
	return 0;
}

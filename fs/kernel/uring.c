/*
 * FUSE over io_uring (Linux 6.14+, where root set the fuse module's
 * enable_uring): requests come as completions of commands on /dev/fuse
 * instead of by read(2), and each answer goes back with the command that
 * fetches the next request (COMMIT_AND_FETCH): one system call a request
 * instead of a read and a write (fs/kernel/DESIGN.md, "FUSE over io_uring").
 *
 * The kernel keeps a queue per possible CPU and puts a request on the
 * queue of the CPU its caller runs on; it switches to the rings only once
 * every queue has an entry registered, and until then (and for FORGET,
 * INTERRUPT and what a notice asks back, always) requests still come by
 * read(2) to the workers of loop.c.  A queue may have many entries, each
 * registered by any ring: a request goes to the entry of its queue that
 * became free last, else waits on the queue until an entry of that queue
 * commits its answer.  Here each entry has a thread of its own with its own
 * ring (pinned to the queue's CPU where it may be), and a thread serves
 * one request at a time, as a worker does: a handler that blocks holds its
 * entry only, and the queue's other entries answer the other callers.
 *
 * The entries are all registered at the start, not grown as loop.c's pool
 * grows: the kernel gives an entry registered later nothing already
 * waiting on its queue (only a commit fetches from there), so a request
 * queued while every entry was busy would wait behind a blocked handler
 * however many entries joined since.  fk_uring_entries says how many.
 *
 * The rings are made at INIT, before the answer takes FUSE_OVER_IO_URING:
 * once taken, the kernel holds every request until the queues are all
 * registered, so what can fail in the daemon fails before.  A registration
 * the kernel refuses turns io_uring off for the mount (the kernel then
 * serves by read(2), stats "io_uring off:refused").
 */
#include <errno.h>
#include <liburing.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include "kernel/dispatch.h"
#include "kernel/internal.h"
#include "kernel/uring.h"

/* What a completion is for: the entry's command, or the stop signal. */
enum { DATA_ENTRY = 1, DATA_STOP = 2 };

/* One entry of a queue and the thread that serves it, with its ring. */
struct fk_server {
	struct fk_session *se;
	unsigned qid;
	struct io_uring ring;
	bool ring_made, started;
	struct fk_ring_ent ent;
	struct iovec iov[2];       /* REGISTER's: the header, the payload */
	char *buf;                 /* the request put back together for fk_dispatch */
	pthread_t thread;
};

struct fk_uring {
	unsigned nqueues;
	unsigned per_queue;        /* entries (servers) a queue has */
	int stop_fd;               /* an eventfd every ring polls; written at the end */
	atomic_uint registered;    /* entries whose registration the kernel took */
	atomic_int refused;        /* the kernel refused one: its -errno */
	atomic_ulong served;       /* requests that came by the rings */
	struct fk_server s[];      /* server i serves queue i % nqueues */
};

/*
 * The kernel's queue count, num_possible_cpus(): the CPUs listed in
 * /sys/devices/system/cpu/possible ("0-3", "0,2-5").  0 if unreadable.
 */
static unsigned possible_cpus(void)
{
	char text[256], *p = text, *end;
	unsigned long lo, hi, n = 0;
	FILE *f = fopen("/sys/devices/system/cpu/possible", "re");

	if (!f)
		return 0;
	if (!fgets(text, sizeof(text), f))
		text[0] = '\0';
	fclose(f);
	while (*p >= '0' && *p <= '9') {
		lo = hi = strtoul(p, &end, 10);
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		if (hi < lo || hi > 65535)
			return 0;
		n += hi - lo + 1;
		p = *end == ',' ? end + 1 : end;
	}
	return n > 65535 ? 0 : (unsigned)n;
}

/*
 * A queue's share of max_threads, two at least, so that the lease waits
 * main.c allows (half a queue) never take a queue's every entry; one for a
 * single-threaded daemon (-s).  Each entry's ring is a descriptor: all of
 * them together take an eighth of RLIMIT_NOFILE at most, the rest is the
 * files' (at a limit below 16 a CPU, a queue has one entry).
 */
unsigned fk_uring_entries(const struct fk_options *opt)
{
	unsigned n = possible_cpus(), per;
	struct rlimit rl;

	if (n == 0)
		return 0;
	if (opt->max_threads <= 1)
		return 1;
	per = opt->max_threads / n < 2 ? 2 : opt->max_threads / n;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur / 8 / n < per)
		per = rl.rlim_cur / 8 / n < 1 ? 1 : (unsigned)(rl.rlim_cur / 8 / n);
	return per;
}

/* A request's payload as the kernel sizes it: the largest of max_write and max_pages. */
static size_t payload_size(const struct fk_conn *conn)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size = conn->max_write;

	if ((size_t)conn->max_pages * page > size)
		size = (size_t)conn->max_pages * page;
	return size < 8192 ? 8192 : size;
}

static void free_uring(struct fk_uring *u)
{
	for (unsigned i = 0; i < u->nqueues * u->per_queue; i++) {
		if (u->s[i].ring_made)
			io_uring_queue_exit(&u->s[i].ring);
		free(u->s[i].ent.payload);
		free(u->s[i].buf);
	}
	if (u->stop_fd >= 0)
		close(u->stop_fd);
	free(u);
}

/* Server s's buffers and ring; 0 or -errno. */
static int make_server(struct fk_session *se, struct fk_server *s, unsigned qid, size_t size)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SQE128 };
	int r;

	s->se = se;
	s->qid = qid;
	s->ent.payload_size = size;
	s->ent.payload = malloc(size);
	s->buf = malloc(sizeof(struct fuse_in_header) + FK_URING_OP_IN_SZ + size);
	if (!s->ent.payload || !s->buf)
		return -ENOMEM;
	/* Two commands in flight at most: the entry's and the stop poll. */
	r = io_uring_queue_init_params(4, &s->ring, &p);
	s->ring_made = r == 0;
	s->iov[0] = (struct iovec){ &s->ent.head, sizeof(s->ent.head) };
	s->iov[1] = (struct iovec){ s->ent.payload, size };
	return r;
}

int fk_uring_prepare(struct fk_session *se)
{
	unsigned n = possible_cpus(), per = fk_uring_entries(&se->opt), made = 0;
	size_t size = payload_size(&se->conn);
	struct fk_uring *u;
	int r = 0;

	if (n == 0 || per == 0)
		return -ENOENT;
	u = calloc(1, sizeof(*u) + (size_t)n * per * sizeof(u->s[0]));
	if (!u)
		return -ENOMEM;
	u->nqueues = n;
	u->per_queue = per;
	u->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (u->stop_fd < 0)
		r = -errno;
	/*
	 * A round of servers at a time, one a queue: a round that cannot be
	 * made leaves the queues the rounds before it (none: not taken).
	 */
	while (r == 0 && made < per) {
		for (unsigned q = 0; q < n && r == 0; q++)
			r = make_server(se, &u->s[made * n + q], q, size);
		if (r == 0)
			made++;
	}
	if (r < 0 && made > 0) {
		for (unsigned i = made * n; i < per * n; i++) {
			if (u->s[i].ring_made)
				io_uring_queue_exit(&u->s[i].ring);
			free(u->s[i].ent.payload);
			free(u->s[i].buf);
		}
		u->per_queue = made;
		r = 0;
	}
	if (r < 0) {
		free_uring(u);
		return r;
	}
	se->uring = u;
	return 0;
}

/*
 * The entry's command: REGISTER, or COMMIT_AND_FETCH of the answered
 * request; false if the ring has no room, which one command of the entry's
 * and the stop poll in a ring of four never leave it.
 */
static bool put_command(struct fk_server *s, uint32_t op, uint64_t commit_id)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&s->ring);
	/* The whole 80-byte command area of an SQE128, zero past the argument. */
	struct {
		struct fk_uring_cmd_req req;
		char rest[80 - sizeof(struct fk_uring_cmd_req)];
	} cmd = { .req = { .commit_id = commit_id, .qid = (uint16_t)s->qid } };

	if (!sqe)
		return false;
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = s->se->fd;
	sqe->cmd_op = op;
	sqe->addr = (uint64_t)(uintptr_t)s->iov;
	sqe->len = 2;
	sqe->user_data = DATA_ENTRY;
	memcpy(sqe->cmd, &cmd, sizeof(cmd));
	return true;
}

/*
 * The request in the entry, put back together as read(2) gives it (the
 * header, the opcode's structure, the payload) and dispatched; its answer
 * committed with the next fetch (false: no room for the command).  The
 * payload is free once copied: READ's data goes straight into it.
 */
static bool serve(struct fk_server *s)
{
	struct fk_ring_ent *e = &s->ent;
	struct fuse_in_header ih;
	uint64_t commit_id = e->head.ent.commit_id;
	size_t payload = e->head.ent.payload_sz, oplen = 0;
	bool sane;

	memcpy(&ih, e->head.in_out, sizeof(ih));
	sane = payload <= e->payload_size && ih.len >= sizeof(ih) + payload;
	if (sane)
		oplen = ih.len - sizeof(ih) - payload;
	e->replied = false;
	if (sane && oplen <= FK_URING_OP_IN_SZ) {
		memcpy(s->buf, &ih, sizeof(ih));
		memcpy(s->buf + sizeof(ih), e->head.op_in, oplen);
		memcpy(s->buf + sizeof(ih) + oplen, e->payload, payload);
		atomic_fetch_add(&s->se->uring->served, 1);
		fk_dispatch(s->se, s->se->fd, s->buf, ih.len, e->payload, e->payload_size, e);
	}
	/* Every request the kernel sends this way waits for an answer. */
	if (!e->replied) {
		struct fuse_out_header oh = { .len = sizeof(oh), .error = -EIO, .unique = ih.unique };

		memcpy(e->head.in_out, &oh, sizeof(oh));
		e->head.ent.payload_sz = 0;
	}
	return put_command(s, FK_URING_CMD_COMMIT_AND_FETCH, commit_id);
}

/* Near its queue's callers, if the CPU is there to pin to. */
static void pin(unsigned cpu)
{
	cpu_set_t set;

	if (cpu >= CPU_SETSIZE)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	(void)sched_setaffinity(0, sizeof(set), &set);
}

/*
 * An entry that cannot go on may leave the kernel holding requests of its
 * queue for good (those it had, those only its commit would fetch): the
 * session ends (the daemon exits, the mount's callers get ENOTCONN) rather
 * than hang them.
 */
static void *server_failed(struct fk_server *s, int err)
{
	fprintf(stderr, "casefoldfs: io_uring queue %u: %s; ending\n", s->qid, strerror(-err));
	fk_session_end(s->se);
	return NULL;
}

static void *serve_entry(void *arg)
{
	struct fk_server *s = arg;
	struct fk_uring *u = s->se->uring;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&s->ring);
	struct io_uring_cqe *cqe;
	bool fetched = false;      /* a request came: the registration was taken */
	int r = -EBUSY;

	pin(s->qid);
	if (sqe) {
		io_uring_prep_poll_add(sqe, u->stop_fd, POLLIN);
		sqe->user_data = DATA_STOP;
	}
	if (sqe && put_command(s, FK_URING_CMD_REGISTER, 0))
		do
			r = io_uring_submit(&s->ring);
		while (r == -EINTR);
	if (r < 0)
		return server_failed(s, r);
	/* A refused command completes at once; a taken one waits for a request. */
	if (io_uring_peek_cqe(&s->ring, &cqe) != 0 || cqe->res >= 0)
		atomic_fetch_add(&u->registered, 1);
	for (;;) {
		do
			r = io_uring_wait_cqe(&s->ring, &cqe);
		while (r == -EINTR);
		if (r < 0)
			return server_failed(s, r);
		if (cqe->user_data == DATA_STOP)
			return NULL;
		r = cqe->res;
		io_uring_cqe_seen(&s->ring, cqe);
		/* ENOTCONN: unmounted or aborted, which the workers see too. */
		if (r == -ENOTCONN)
			return NULL;
		/*
		 * A refused registration turned io_uring off for the mount: the
		 * workers serve everything (stats off:refused).
		 */
		if (r < 0 && !fetched) {
			atomic_store(&u->refused, r);
			return NULL;
		}
		if (r < 0)
			return server_failed(s, r);
		fetched = true;
		if (!serve(s))
			return server_failed(s, -EBUSY);
		/* The answer and the wait for the next request: one system call. */
		do
			r = io_uring_submit_and_wait(&s->ring, 1);
		while (r == -EINTR);
		if (r < 0)
			return server_failed(s, r);
	}
}

int fk_uring_start(struct fk_session *se)
{
	struct fk_uring *u = se->uring;

	for (unsigned i = 0; u && i < u->nqueues * u->per_queue; i++) {
		if (pthread_create(&u->s[i].thread, NULL, serve_entry, &u->s[i]) != 0) {
			fprintf(stderr, "casefoldfs: cannot start a thread for io_uring queue %u\n",
				u->s[i].qid);
			return -1;
		}
		u->s[i].started = true;
	}
	return 0;
}

void fk_uring_stop(struct fk_session *se)
{
	struct fk_uring *u = se->uring;
	uint64_t one = 1;

	if (!u)
		return;
	if (write(u->stop_fd, &one, sizeof(one)) != (ssize_t)sizeof(one))
		fprintf(stderr, "casefoldfs: stopping the io_uring queues: %s\n", strerror(errno));
	for (unsigned i = 0; i < u->nqueues * u->per_queue; i++)
		if (u->s[i].started)
			pthread_join(u->s[i].thread, NULL);
	se->uring = NULL;
	free_uring(u);
}

int fk_uring_describe(const struct fk_session *se, char *buf, size_t len)
{
	const struct fk_uring *u = se->uring;
	int refused;

	if (!u)
		return snprintf(buf, len, "io_uring %s", se->uring_note);
	refused = atomic_load(&u->refused);
	if (refused)
		return snprintf(buf, len, "io_uring off:refused uring_served %lu",
				atomic_load(&u->served));
	return snprintf(buf, len, "io_uring %s uring_queues %u uring_entries %u uring_served %lu",
			atomic_load(&u->registered) == u->nqueues * u->per_queue ? "on" : "starting",
			u->nqueues, u->per_queue, atomic_load(&u->served));
}

/*
 * FUSE over io_uring (Linux 6.14+, where root set the fuse module's
 * enable_uring): requests come as completions of commands on /dev/fuse
 * instead of by read(2), and each answer goes back with the command that
 * fetches the next request (COMMIT_AND_FETCH): one system call a request
 * instead of a read and a write (fs/README.md, "The request loop").
 *
 * The kernel keeps a queue per possible CPU and puts a request on the
 * queue of the CPU its caller runs on; it switches to the rings only once
 * every queue has an entry registered, and until then (and for FORGET,
 * INTERRUPT and what a notice asks back, always) requests still come by
 * read(2) to the workers of loop.c.  Here each queue has one thread, pinned
 * to its CPU where it may be, with its own ring and one entry: the header
 * and payload buffers the kernel writes each request into and reads the
 * answer from.  A thread serves one request at a time, as a worker does;
 * what is queued on its CPU meanwhile waits for it.
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
#include <unistd.h>

#include "kernel/session.h"

/* What a completion is for: the entry's command, or the stop signal. */
enum { DATA_ENTRY = 1, DATA_STOP = 2 };

struct fk_queue {
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
	int stop_fd;               /* an eventfd every ring polls; written at the end */
	atomic_uint registered;    /* queues whose registration the kernel took */
	atomic_int refused;        /* the kernel refused one: its -errno */
	atomic_ulong served;       /* requests that came by the rings */
	struct fk_queue q[];
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
	for (unsigned i = 0; i < u->nqueues; i++) {
		if (u->q[i].ring_made)
			io_uring_queue_exit(&u->q[i].ring);
		free(u->q[i].ent.payload);
		free(u->q[i].buf);
	}
	if (u->stop_fd >= 0)
		close(u->stop_fd);
	free(u);
}

int fk_uring_prepare(struct fk_session *se)
{
	unsigned n = possible_cpus();
	size_t size = payload_size(&se->conn);
	struct fk_uring *u;
	int r = 0;

	if (n == 0)
		return -ENOENT;
	u = calloc(1, sizeof(*u) + n * sizeof(u->q[0]));
	if (!u)
		return -ENOMEM;
	u->nqueues = n;
	u->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (u->stop_fd < 0)
		r = -errno;
	for (unsigned i = 0; i < n && r == 0; i++) {
		struct fk_queue *q = &u->q[i];
		struct io_uring_params p = { .flags = IORING_SETUP_SQE128 };

		q->se = se;
		q->qid = i;
		q->ent.payload_size = size;
		q->ent.payload = malloc(size);
		q->buf = malloc(sizeof(struct fuse_in_header) + FK_URING_OP_IN_SZ + size);
		if (!q->ent.payload || !q->buf) {
			r = -ENOMEM;
			break;
		}
		/* Two commands in flight at most: the entry's and the stop poll. */
		r = io_uring_queue_init_params(4, &q->ring, &p);
		q->ring_made = r == 0;
		q->iov[0] = (struct iovec){ &q->ent.head, sizeof(q->ent.head) };
		q->iov[1] = (struct iovec){ q->ent.payload, size };
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
static bool put_command(struct fk_queue *q, uint32_t op, uint64_t commit_id)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&q->ring);
	/* The whole 80-byte command area of an SQE128, zero past the argument. */
	struct {
		struct fk_uring_cmd_req req;
		char rest[80 - sizeof(struct fk_uring_cmd_req)];
	} cmd = { .req = { .commit_id = commit_id, .qid = (uint16_t)q->qid } };

	if (!sqe)
		return false;
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = q->se->fd;
	sqe->cmd_op = op;
	sqe->addr = (uint64_t)(uintptr_t)q->iov;
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
static bool serve(struct fk_queue *q)
{
	struct fk_ring_ent *e = &q->ent;
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
		memcpy(q->buf, &ih, sizeof(ih));
		memcpy(q->buf + sizeof(ih), e->head.op_in, oplen);
		memcpy(q->buf + sizeof(ih) + oplen, e->payload, payload);
		atomic_fetch_add(&q->se->uring->served, 1);
		fk_dispatch(q->se, q->se->fd, q->buf, ih.len, e->payload, e->payload_size, NULL, e);
	}
	/* Every request the kernel sends this way waits for an answer. */
	if (!e->replied) {
		struct fuse_out_header oh = { .len = sizeof(oh), .error = -EIO, .unique = ih.unique };

		memcpy(e->head.in_out, &oh, sizeof(oh));
		e->head.ent.payload_sz = 0;
	}
	return put_command(q, FK_URING_CMD_COMMIT_AND_FETCH, commit_id);
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
 * A queue that cannot go on leaves the kernel holding its CPU's requests
 * for good: the session ends (the daemon exits, the mount's callers get
 * ENOTCONN) rather than hang them.
 */
static void *queue_failed(struct fk_queue *q, int err)
{
	fprintf(stderr, "casefoldfs: io_uring queue %u: %s; ending\n", q->qid, strerror(-err));
	fk_session_end(q->se);
	return NULL;
}

static void *serve_queue(void *arg)
{
	struct fk_queue *q = arg;
	struct fk_uring *u = q->se->uring;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&q->ring);
	struct io_uring_cqe *cqe;
	bool fetched = false;      /* a request came: the registration was taken */
	int r = -EBUSY;

	pin(q->qid);
	if (sqe) {
		io_uring_prep_poll_add(sqe, u->stop_fd, POLLIN);
		sqe->user_data = DATA_STOP;
	}
	if (sqe && put_command(q, FK_URING_CMD_REGISTER, 0))
		do
			r = io_uring_submit(&q->ring);
		while (r == -EINTR);
	if (r < 0)
		return queue_failed(q, r);
	/* A refused command completes at once; a taken one waits for a request. */
	if (io_uring_peek_cqe(&q->ring, &cqe) != 0 || cqe->res >= 0)
		atomic_fetch_add(&u->registered, 1);
	for (;;) {
		do
			r = io_uring_wait_cqe(&q->ring, &cqe);
		while (r == -EINTR);
		if (r < 0)
			return queue_failed(q, r);
		if (cqe->user_data == DATA_STOP)
			return NULL;
		r = cqe->res;
		io_uring_cqe_seen(&q->ring, cqe);
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
			return queue_failed(q, r);
		fetched = true;
		if (!serve(q))
			return queue_failed(q, -EBUSY);
		/* The answer and the wait for the next request: one system call. */
		do
			r = io_uring_submit_and_wait(&q->ring, 1);
		while (r == -EINTR);
		if (r < 0)
			return queue_failed(q, r);
	}
}

int fk_uring_start(struct fk_session *se)
{
	struct fk_uring *u = se->uring;

	for (unsigned i = 0; u && i < u->nqueues; i++) {
		if (pthread_create(&u->q[i].thread, NULL, serve_queue, &u->q[i]) != 0) {
			fprintf(stderr, "casefoldfs: cannot start io_uring queue %u's thread\n", i);
			return -1;
		}
		u->q[i].started = true;
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
	for (unsigned i = 0; i < u->nqueues; i++)
		if (u->q[i].started)
			pthread_join(u->q[i].thread, NULL);
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
	return snprintf(buf, len, "io_uring %s uring_queues %u uring_served %lu",
			atomic_load(&u->registered) == u->nqueues ? "on" : "starting",
			u->nqueues, atomic_load(&u->served));
}

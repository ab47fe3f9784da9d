/*
 * fs/kernel's own: the session's insides, the request as the replies see
 * it, an io_uring entry.  No other wing includes this (tests/house/layers.sh):
 * they see an opaque session and the calls of fk.h's companions.
 */
#ifndef FK_INTERNAL_H
#define FK_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "kernel/fk.h"

/*
 * The largest request is a WRITE of max_write bytes after its headers;
 * max_pages pages of 4 KiB, as libfuse 3.14 asks, so that both loops move
 * the same amount per request (handshake.c asks it, session.c sizes the
 * workers' buffers by it).
 */
#define FK_MAX_PAGES 256

struct fk_worker;
struct fk_uring;
struct fk_backing;

struct fk_session {
	int fd;                    /* /dev/fuse as mounted: INIT, notices, first worker */
	const struct fk_ops *ops;
	void *data;
	struct fk_options opt;
	size_t bufsize;            /* a request's largest: max_write plus headers */

	/* Settled at INIT (handshake.c), read-only after. */
	struct fk_conn conn;
	unsigned request_timeout;  /* granted, seconds */
	unsigned max_stack_depth;
	char passthrough_note[16]; /* off:why, when passthrough is off */
	struct fk_uring *uring;    /* the queues (uring.c), NULL when not taken */
	char uring_note[24];       /* off:why, when io_uring is not taken */

	/* The workers (loop.c), under lock. */
	pthread_mutex_t lock;
	struct fk_worker *workers;
	unsigned nworkers;
	atomic_uint idle;          /* workers waiting in read */
	pthread_t main_thread;
	atomic_int ended;          /* the kernel ended the session (or it failed) */
	unsigned stuck;            /* workers left in a handler at the end */

	/* Passthrough's open-files records (backing.c), under backing_lock. */
	pthread_mutex_t backing_lock;
	struct fk_backing *backings[256];
	atomic_ulong backing_opened, backing_refused;
};

/* An io_uring entry (uring.c): where the kernel writes a request and reads its answer. */
struct fk_ring_ent {
	struct fk_uring_req_header head;
	char *payload;
	size_t payload_size;
	bool replied;              /* the handler answered (reply.c) */
};

/* The request as a handler's calls see it. */
struct fk_req {
	struct fk_session *se;
	int fd;                    /* replies go back the way the request came */
	uint64_t unique;
	uint64_t nodeid;
	uint32_t opcode;
	struct fk_ctx ctx;
	char *scratch;             /* for READ's data: the worker's buffer, free once
				      decoded, or the io_uring entry's payload */
	size_t scratch_size;
	struct fk_ring_ent *ring;  /* came by io_uring: answered in its entry (uring.c) */
};

/* ended.c: from any thread, the session is over (unmounted, or cannot go on). */
void fk_session_end(struct fk_session *se);

#endif /* FK_INTERNAL_H */

/*
 * The session: one mount's connection to the kernel, as main.c runs it.
 * Internal to fs/kernel except for the calls main.c makes.
 */
#ifndef FK_SESSION_H
#define FK_SESSION_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/uio.h>

#include "kernel/fk.h"

/* What the command line asks of the loop. */
struct fk_options {
	unsigned max_threads;      /* workers at most; 1: a single thread */
	bool passthrough;          /* offer FUSE_PASSTHROUGH (needs CAP_SYS_ADMIN) */
	bool uring;                /* take FUSE_OVER_IO_URING where offered */
	unsigned request_timeout;  /* seconds, 0: none asked */
	bool debug;                /* -d: every request on stderr, as libfuse logged it */
	/*
	 * Take FUSE_HANDLE_KILLPRIV_V2: the handlers clear set-user-ID and
	 * set-group-ID bits where a request's kill_suidgid (or SETATTR's
	 * FATTR_KILL_SUIDGID) says so, and the kernel stops asking for
	 * security.capability before every write (fs/common/DESIGN.md, "Set-ID bits").
	 */
	bool killpriv;
	/*
	 * Called on the main thread once the session is to end, while the
	 * workers still answer (NULL: nothing).  What sends notifications
	 * outside requests must stop here, not after the workers: a
	 * notify_inval_entry waits for the directory's lock, which a LOOKUP
	 * still queued in the kernel holds, and only a worker can answer it.
	 */
	void (*ending)(void *arg);
	void *ending_arg;
};

struct fk_worker;
struct fk_uring;

/* One open-files record per node with a backing file (backing.c). */
struct fk_backing {
	uint64_t nodeid;
	int id;                    /* the kernel's backing id; 0: opens without one */
	unsigned opens;
	struct fk_backing *next;
};

struct fk_session {
	int fd;                    /* /dev/fuse as mounted: INIT, notices, first worker */
	const struct fk_ops *ops;
	void *data;
	struct fk_options opt;
	size_t bufsize;            /* a request's largest: max_write plus headers */

	/* Settled at INIT, read-only after. */
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
	unsigned stuck;            /* workers left in a handler at the end: the
				      session must not be freed (main.c exits) */

	/* Passthrough's backing files (backing.c), under backing_lock. */
	pthread_mutex_t backing_lock;
	struct fk_backing *backings[256];
	atomic_ulong backing_opened, backing_refused;
};

/*
 * What a worker is answering, for the watchdog (watchdog.c): set by the
 * worker around each request, read by the main thread.
 */
struct fk_busy {
	_Atomic uint64_t since;    /* CLOCK_MONOTONIC ms the request came; 0: idle */
	_Atomic uint64_t unique, nodeid;
	_Atomic uint32_t opcode;
	_Atomic pid_t tid;         /* the worker's thread, for /proc */
	uint64_t seen;             /* the main thread's: the request it last saw */
	bool reported, answered;   /* ... and what it did about it */
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

/* session.c */
struct fk_session *fk_session_new(int fd, const struct fk_ops *ops, void *data,
				  const struct fk_options *opt);
void fk_session_destroy(struct fk_session *se);
/* Answers INIT from the buffer; 0, or -1 when the kernel cannot be served. */
int fk_session_init(struct fk_session *se, const char *buf, size_t len);

/* loop.c: serves requests until unmounted or signalled; 0 or 1 (the exit status). */
int fk_session_loop(struct fk_session *se);
/* ended.c: from any thread, the session is over (unmounted, or cannot go on). */
void fk_session_end(struct fk_session *se);

/*
 * dispatch.c: one request from the buffer, answered through fd, or into
 * the io_uring entry ring when not NULL (scratch: where a READ's data may
 * go, free once the request is decoded).
 */
void fk_dispatch(struct fk_session *se, int fd, char *buf, size_t len, char *scratch,
		 size_t scratch_size, struct fk_ring_ent *ring);

/*
 * watchdog.c: fk_busy_begin/end around each request a worker answers;
 * fk_watch, from the main thread once a second, logs a request busy for
 * seconds (once) and answers EIO for one busy half the request_timeout.
 */
uint64_t fk_now_ms(void);
void fk_busy_begin(struct fk_busy *b, const char *buf, size_t len);
void fk_busy_end(struct fk_busy *b);
void fk_watch(struct fk_session *se, struct fk_busy *b, int fd, uint64_t now);
/* dispatch.c: an opcode's name, for the logs. */
const char *fk_opname(uint32_t opcode);

/* reply.c */
int fk_send(int fd, uint64_t unique, int error, const struct iovec *iov, int count);

/*
 * uring.c: FUSE over io_uring.  fk_uring_prepare makes the queues' rings
 * at INIT, before the answer takes FUSE_OVER_IO_URING (0, or -errno: not
 * taken); fk_uring_start runs a thread per entry once INIT is answered,
 * which registers its entry and serves what comes by it (0, or -1 after
 * saying why: the kernel then waits for registrations that never come,
 * the session must end); fk_uring_stop ends and joins them.
 * fk_uring_entries: how many entries each queue would have (0: none can).
 */
unsigned fk_uring_entries(const struct fk_options *opt);
int fk_uring_prepare(struct fk_session *se);
int fk_uring_start(struct fk_session *se);
void fk_uring_stop(struct fk_session *se);
/* "io_uring on uring_queues N uring_entries E uring_served M", or off and why. */
int fk_uring_describe(const struct fk_session *se, char *buf, size_t len);

/* backing.c: passthrough for an open's reply, and its end at RELEASE. */
int fk_backing_attach(struct fk_req *req, uint64_t nodeid, const struct fk_file_info *fi,
		      uint32_t *open_flags);
void fk_backing_undo(struct fk_session *se, uint64_t nodeid);
void fk_backing_release(struct fk_session *se, uint64_t nodeid);

#endif /* FK_SESSION_H */

/*
 * The watchdog (watchdog.c): fk_busy_begin/end around each request a
 * worker answers; fk_watch, from the main thread once a second, logs a
 * request busy for seconds (once) and answers EIO for one busy half the
 * request_timeout.
 */
#ifndef FK_WATCHDOG_H
#define FK_WATCHDOG_H

#include "kernel/internal.h"

/* What a worker is answering: set by the worker around each request, read by the main thread. */
struct fk_busy {
	_Atomic uint64_t since;    /* CLOCK_MONOTONIC ms the request came; 0: idle */
	_Atomic uint64_t unique, nodeid;
	_Atomic uint32_t opcode;
	_Atomic pid_t tid;         /* the worker's thread, for /proc */
	uint64_t seen;             /* the main thread's: the request it last saw */
	bool reported, answered;   /* ... and what it did about it */
};

uint64_t fk_now_ms(void);
void fk_busy_begin(struct fk_busy *b, const char *buf, size_t len);
void fk_busy_end(struct fk_busy *b);
void fk_watch(struct fk_session *se, struct fk_busy *b, int fd, uint64_t now);

#endif /* FK_WATCHDOG_H */

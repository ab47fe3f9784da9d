/*
 * FUSE over io_uring (uring.c).  fk_uring_entries: how many entries each
 * queue would have (0: none can), which main.c also sizes its lease
 * waiters by.  The rest is fs/kernel's: fk_uring_prepare makes the queues'
 * rings at INIT, before the answer takes FUSE_OVER_IO_URING (0, or -errno:
 * not taken); fk_uring_start runs a thread per entry once INIT is answered,
 * which registers its entry and serves what comes by it (0, or -1 after
 * saying why: the kernel then waits for registrations that never come, the
 * session must end); fk_uring_stop ends and joins them.
 */
#ifndef FK_URING_H
#define FK_URING_H

#include <stddef.h>

#include "kernel/fk.h"

unsigned fk_uring_entries(const struct fk_options *opt);
int fk_uring_prepare(struct fk_session *se);
int fk_uring_start(struct fk_session *se);
void fk_uring_stop(struct fk_session *se);
/* "io_uring on uring_queues N uring_entries E uring_served M", or off and why. */
int fk_uring_describe(const struct fk_session *se, char *buf, size_t len);

#endif /* FK_URING_H */

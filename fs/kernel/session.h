/*
 * A session: one mount's connection to the kernel, as main.c (and
 * bench/fsnull.c) run it, opaque outside fs/kernel (its insides are
 * internal.h's).
 */
#ifndef FK_SESSION_H
#define FK_SESSION_H

#include "kernel/fk.h"

/* session.c: made on the mounted /dev/fuse descriptor fd, for the mode's ops and data. */
struct fk_session *fk_session_new(int fd, const struct fk_ops *ops, void *data,
				  const struct fk_options *opt);
void fk_session_destroy(struct fk_session *se);
/*
 * Workers left in a handler when the loop ended: then the session (and the
 * mode's data) must not be freed, the daemon exits instead (main.c).
 */
unsigned fk_session_stuck(const struct fk_session *se);
/* What INIT settled, as "name value" pairs, for the stats xattr. */
int fk_session_describe(const struct fk_session *se, char *buf, size_t len);

/* loop.c: serves requests until unmounted or signalled; 0 or 1 (the exit status). */
int fk_session_loop(struct fk_session *se);

#endif /* FK_SESSION_H */

/* INIT (handshake.c), answered by the main thread before any worker starts. */
#ifndef FK_HANDSHAKE_H
#define FK_HANDSHAKE_H

#include "kernel/internal.h"

/*
 * Answers the kernel's first request, INIT, from the buffer: 0 when
 * answered, 1 when the kernel proposed a newer major (ours went back: INIT
 * comes again), -1 when the kernel cannot be served (said why).
 */
int fk_handshake(struct fk_session *se, const char *buf, size_t len);

#endif /* FK_HANDSHAKE_H */

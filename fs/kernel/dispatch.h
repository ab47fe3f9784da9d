/* The protocol's table (dispatch.c): every request after INIT, however it came. */
#ifndef FK_DISPATCH_H
#define FK_DISPATCH_H

#include "kernel/internal.h"

/*
 * One request from the buffer, answered through fd, or into the io_uring
 * entry ring when not NULL (scratch: where a READ's data may go, free once
 * the request is decoded).
 */
void fk_dispatch(struct fk_session *se, int fd, char *buf, size_t len, char *scratch,
		 size_t scratch_size, struct fk_ring_ent *ring);
/* An opcode's name, for the logs. */
const char *fk_opname(uint32_t opcode);

#endif /* FK_DISPATCH_H */

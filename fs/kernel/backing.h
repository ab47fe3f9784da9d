/* Passthrough's open-files records (backing.c): an open's reply, and its end. */
#ifndef FK_BACKING_H
#define FK_BACKING_H

#include "kernel/internal.h"

int fk_backing_attach(struct fk_req *req, uint64_t nodeid, const struct fk_file_info *fi,
		      uint32_t *open_flags);
void fk_backing_undo(struct fk_session *se, uint64_t nodeid);
void fk_backing_release(struct fk_session *se, uint64_t nodeid);
/* Frees every record, as a session's end does (the kernel closed the ids with /dev/fuse). */
void fk_backing_forget_all(struct fk_session *se);

#endif /* FK_BACKING_H */

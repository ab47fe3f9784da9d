/*
 * A mode of the daemon as main.c runs it: what its wing set up (a tree,
 * tree/tree_mount.h; an overlay view, view/view_mount.h) and the points of the
 * session's life that concern it.
 */
#ifndef CFS_MODE_H
#define CFS_MODE_H

#include <stdbool.h>

#include "kernel/fk.h"

struct cfs_mode {
	const struct fk_ops *ops;
	void *data;                 /* the handlers' (fk_req_userdata) */
	const char *fsname;         /* what the mount table shows as its source */
	bool passthrough;           /* its files may be handed to the kernel */
	bool killpriv;              /* its handlers clear set-ID bits (fk_options.killpriv) */
	/* The session exists (before the daemon detaches). */
	void (*attach)(void *data, struct fk_session *se);
	/* After detaching, before the loop: threads of its own; NULL: none. */
	void (*start)(void *data);
	/* The loop is ending, while the workers still answer (the session's
	 * ending hook, kernel/fk.h fk_options); NULL: nothing to stop. */
	void (*stop)(void *data);
	/* After unmounting: everything the setup made. */
	void (*destroy)(void *data);
};

#endif /* CFS_MODE_H */

/*
 * The daemon's own changes to directory entries, recognised when inotify
 * reports them back (fs/tree/DESIGN.md, "Kernel caches").  fanotify names the
 * process behind each event and the daemon skips its own there; inotify
 * names none, so without this a user's daemon would take every entry it
 * made, removed or moved as a change behind its back and make the kernel
 * forget what it had just been told.
 */
#ifndef CFS_ECHO_H
#define CFS_ECHO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/inotify.h>

#include "tree/cfs.h"

/* The changes of one entry operation: up to two (dir, name) pairs moved
 * out of and into (a rename exchange: both ways). */
#define ECHO_OP { { -1, -1, -1, -1 } }

struct echo_op {
	int slot[4];
};

void echo_expect(struct cfs *fs, struct echo_op *op, struct cfs_inode *dir, uint32_t mask,
		 const char *name);
void echo_settle(struct echo_op *op, bool done);
bool echo_ours(int wd, uint32_t mask, const char *name);
void echo_forget(int wd);

#endif /* CFS_ECHO_H */

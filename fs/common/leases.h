/*
 * How many workers may wait for a lease break (issue 24): an open of a
 * file another process holds a lease on waits until the holder gives it
 * up, or for lease-break-time (45 s) if it never does, and a user can take
 * leases on its own files and open them in parallel until every worker
 * waits.  So every open is tried with O_NONBLOCK first (a conflict fails
 * at once with EWOULDBLOCK, having started the break), and only a quarter
 * of the pool may then wait with a blocking open, as on ext4; beyond that
 * the open answers EWOULDBLOCK, as to a caller who asked for O_NONBLOCK.
 * Shared by a tree's nodes (locator.c) and a view's (view.c).
 */
#ifndef CFS_LEASES_H
#define CFS_LEASES_H

#include <stdbool.h>

void lease_set_waiters(unsigned max);
bool lease_wait_begin(void);
void lease_wait_end(void);

#endif /* CFS_LEASES_H */

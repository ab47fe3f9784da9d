/*
 * The watcher's threads: read the change notices watch.c opened and turn
 * each into the kernel invalidations it calls for (notice.c).
 */
#ifndef CFS_NOTICE_H
#define CFS_NOTICE_H

#include "tree/cfs.h"

int notice_start(struct cfs *fs);
void notice_stop(struct cfs *fs);

#endif /* CFS_NOTICE_H */

/*
 * The FUSE API the handlers use: fs/kernel's request, replies and notices,
 * and libfuse's log (which main.c points at syslog once detached).
 */
#ifndef CFS_LOWLEVEL_H
#define CFS_LOWLEVEL_H

#include <fuse_log.h>

#include "kernel/fk.h"

#endif /* CFS_LOWLEVEL_H */

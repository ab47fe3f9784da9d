/*
 * The FUSE API the handlers use: fs/kernel's request, replies and notices,
 * the session's description (the stats xattr), and libfuse's log (which
 * main.c points at syslog once detached).
 */
#ifndef CFS_LOWLEVEL_H
#define CFS_LOWLEVEL_H

#include <fuse_log.h>

#include "kernel/fk.h"
#include "kernel/notify.h"
#include "kernel/reply.h"
#include "kernel/session.h"

#endif /* CFS_LOWLEVEL_H */

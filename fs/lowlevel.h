/* libfuse's low-level API, at the version every file of casefoldfs uses. */
#ifndef CFS_LOWLEVEL_H
#define CFS_LOWLEVEL_H

#define FUSE_USE_VERSION FUSE_MAKE_VERSION(3, 12)
#include <fuse_lowlevel.h>

#endif /* CFS_LOWLEVEL_H */

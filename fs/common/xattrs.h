/*
 * Extended attributes as both kinds of mount show them (xattrs.c): a name
 * list without the daemon's own names nor those the caller may not see,
 * and the rule of a GETXATTR or LISTXATTR reply.
 */
#ifndef CFS_XATTRS_H
#define CFS_XATTRS_H

#include <stdbool.h>
#include <sys/types.h>

#include "common/lowlevel.h"

ssize_t xattrs_list(fk_req_t req, const char *path, bool (*hidden)(const char *name),
		    char **out);
void xattrs_reply(fk_req_t req, size_t size, const char *buf, ssize_t n);

#endif /* CFS_XATTRS_H */

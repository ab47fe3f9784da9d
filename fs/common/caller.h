/*
 * Who is asking: the caller's capabilities and identity, for the checks
 * the kernel leaves to the filesystem (caller.c).
 */
#ifndef CFS_CALLER_H
#define CFS_CALLER_H

#include <stdbool.h>
#include <sys/stat.h>

#include "common/caps.h"
#include "common/lowlevel.h"

/* This thread's capabilities, saved while cut to a caller's. */
struct caller_caps {
	struct caps_sets sets;
	bool changed;
};

bool caller_capable(fk_req_t req, int cap);
bool caller_in_group(fk_req_t req, gid_t gid);
int caller_caps_begin(fk_req_t req, struct caller_caps *saved);
void caller_caps_end(struct caller_caps *saved);
int caller_ioctl_owner(fk_req_t req, int fd, unsigned long cmd, void *arg);
int caller_unlinkat(fk_req_t req, int dfd, const struct stat *dst, const char *name,
		    int flags);
int caller_renameat2(fk_req_t req, int dfd, const struct stat *dst, const char *from,
		     int ndfd, const struct stat *ndst, const char *to, unsigned int flags);

#endif /* CFS_CALLER_H */

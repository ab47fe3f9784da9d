/*
 * The caller's supplementary groups, which FUSE does not carry: read from
 * /proc as the request's thread has them, as libfuse did.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/internal.h"
#include "kernel/reply.h"

int fk_req_getgroups(fk_req_t req, int size, gid_t list[])
{
	char path[64], buf[16384], *p, *end;
	ssize_t n;
	int fd, count = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)req->ctx.pid,
		 (int)req->ctx.pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	p = strstr(buf, "\nGroups:");
	if (!p)
		return -EIO;
	p += sizeof("\nGroups:") - 1;
	for (;;) {
		unsigned long g = strtoul(p, &end, 10);

		if (end == p)
			break;
		if (count < size)
			list[count] = (gid_t)g;
		count++;
		p = end;
	}
	return count;
}

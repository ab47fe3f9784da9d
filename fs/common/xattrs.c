/* Extended attributes as a mount shows them. */
#include <errno.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#include "common/caller.h"
#include "common/xattrs.h"

/*
 * Whether the caller of req may see the name: a trusted.* name only with
 * CAP_SYS_ADMIN, as ext4 lists them (the daemon reads them all, as root).
 * *asked caches the answer, which costs a read of /proc, for one list.
 */
static bool visible(fk_req_t req, const char *name, int *asked)
{
	if (strncmp(name, "trusted.", 8) != 0)
		return true;
	if (*asked < 0)
		*asked = caller_capable(req, CAP_SYS_ADMIN);
	return *asked;
}

/*
 * Reads path's whole name list, dropping the names hidden() claims and
 * those the caller of req may not see; returns its length (*out
 * allocated) or -errno.
 */
ssize_t xattrs_list(fk_req_t req, const char *path, bool (*hidden)(const char *name),
		    char **out)
{
	ssize_t n, kept = 0;
	int asked = -1;
	char *buf;

	for (;;) {
		n = listxattr(path, NULL, 0);
		if (n < 0)
			return -errno;
		buf = malloc((size_t)n + 1);
		if (!buf)
			return -ENOMEM;
		n = listxattr(path, buf, (size_t)n);
		if (n >= 0)
			break;
		free(buf);
		if (errno != ERANGE)  /* ERANGE: the list grew meanwhile */
			return -errno;
	}
	for (char *p = buf; p < buf + n; p += strlen(p) + 1) {
		size_t len = strlen(p) + 1;

		if (!hidden(p) && visible(req, p, &asked)) {
			memmove(buf + kept, p, len);
			kept += (ssize_t)len;
		}
	}
	*out = buf;
	return kept;
}

/* n bytes of buf (or -errno): the size alone when the caller asked for it. */
void xattrs_reply(fk_req_t req, size_t size, const char *buf, ssize_t n)
{
	if (n < 0)
		fk_reply_err(req, (int)-n);
	else if (size == 0)
		fk_reply_xattr(req, (size_t)n);
	else if ((size_t)n > size)
		fk_reply_err(req, ERANGE);
	else
		fk_reply_buf(req, buf, (size_t)n);
}

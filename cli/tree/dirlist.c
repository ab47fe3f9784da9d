/* Reading a whole directory into a sorted listing. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tree/dirlist.h"

int cli_open_dir(int dirfd, const char *name, int flags)
{
	int fd = openat(dirfd, name, flags | O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOATIME);

	/* O_NOATIME is refused on other users' directories unless root. */
	if (fd < 0 && errno == EPERM)
		fd = openat(dirfd, name, flags | O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd;
}

int cli_dirlist_add(struct cli_dirlist *l, const char *name, size_t len,
		    unsigned char type)
{
	if (l->n == l->ecap) {
		size_t cap = l->ecap ? 2 * l->ecap : 64;
		struct cli_entry *e = realloc(l->e, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		l->e = e;
		l->ecap = cap;
	}
	if (l->cap - l->used < len + 1) {
		size_t cap = l->cap ? 2 * l->cap : 4096;
		char *a;

		while (cap - l->used < len + 1)
			cap *= 2;
		a = realloc(l->arena, cap);
		if (!a)
			return -ENOMEM;
		l->arena = a;
		l->cap = cap;
	}
	memcpy(l->arena + l->used, name, len);
	l->arena[l->used + len] = '\0';
	l->e[l->n++] = (struct cli_entry){ l->used, (uint32_t)len, type };
	l->used += len + 1;
	return 0;
}

static int by_name(const void *a, const void *b, void *arena)
{
	const struct cli_entry *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp((char *)arena + x->off, (char *)arena + y->off, n);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

int cli_dirlist_read(struct cli_dirlist *l, int dirfd)
{
	/* A descriptor of our own: fdopendir takes it and moves its offset. */
	int fd = cli_open_dir(dirfd, ".", 0);
	struct dirent *d;
	DIR *dp;
	int err = 0;

	l->n = l->used = 0;
	if (fd < 0)
		return -errno;
	dp = fdopendir(fd);
	if (!dp) {
		err = -errno;
		close(fd);
		return err;
	}
	for (;;) {
		errno = 0;
		d = readdir(dp);
		if (!d) {
			err = -errno;
			break;
		}
		if (d->d_name[0] == '.' && (!d->d_name[1] ||
					    (d->d_name[1] == '.' && !d->d_name[2])))
			continue;
		err = cli_dirlist_add(l, d->d_name, strlen(d->d_name), d->d_type);
		if (err)
			break;
	}
	closedir(dp);
	if (!err && l->n > 1)
		qsort_r(l->e, l->n, sizeof(*l->e), by_name, l->arena);
	return err;
}

void cli_dirlist_free(struct cli_dirlist *l)
{
	free(l->arena);
	free(l->e);
	*l = (struct cli_dirlist){ 0 };
}

/* The tree walk.  Each level holds one descriptor and its subdirectories' names. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "tree/walk.h"

/* The directories on the way down, for --follow's loop check. */
struct frame {
	dev_t dev;
	ino_t ino;
	const struct frame *up;
};

/* The path being visited, grown as the walk descends. */
struct path {
	char *s;
	size_t len, cap;
};

static int path_push(struct path *p, const char *name)
{
	size_t n = strlen(name), need = p->len + n + 2;

	if (need > p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 256;
		char *s;

		while (cap < need)
			cap *= 2;
		s = realloc(p->s, cap);
		if (!s)
			return -ENOMEM;
		p->s = s;
		p->cap = cap;
	}
	if (p->len && p->s[p->len - 1] != '/')
		p->s[p->len++] = '/';
	memcpy(p->s + p->len, name, n + 1);
	p->len += n;
	return 0;
}

void cli_walk_raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static bool on_branch(const struct frame *f, const struct stat *st)
{
	for (; f; f = f->up)
		if (f->dev == st->st_dev && f->ino == st->st_ino)
			return true;
	return false;
}

/*
 * Should the walk enter entry i of dirfd?  Returns 1 with *st filled, 0 if
 * not a directory (or left out), or -errno.
 */
static int enter(struct cli_walk *w, int dirfd, const struct frame *here,
		 const struct cli_dirlist *l, size_t i, const char *path, struct stat *st)
{
	const char *name = cli_dirlist_name(l, i);
	unsigned char type = l->e[i].type;
	struct statx stx;
	int flags = AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT;

	if (type != DT_DIR && type != DT_UNKNOWN && !(type == DT_LNK && w->follow))
		return 0;
	if (statx(dirfd, name, flags, STATX_TYPE | STATX_INO, &stx) < 0)
		return -errno;
	if (S_ISLNK(stx.stx_mode) && w->follow) {
		flags &= ~AT_SYMLINK_NOFOLLOW;
		if (statx(dirfd, name, flags, STATX_TYPE | STATX_INO, &stx) < 0)
			return errno == ENOENT || errno == ELOOP ? 0 : -errno; /* dangling */
	}
	if (!S_ISDIR(stx.stx_mode))
		return 0;
	st->st_dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	st->st_ino = stx.stx_ino;
	/* A bind mount of the same filesystem has the same st_dev: ask statx. */
	if (!w->cross_mounts && (st->st_dev != here->dev ||
				 (stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT &&
				  stx.stx_attributes & STATX_ATTR_MOUNT_ROOT))) {
		if (w->skipped)
			w->skipped(w->ctx, path, "mount point");
		return 0;
	}
	if (w->follow && on_branch(here, st)) {
		if (w->skipped)
			w->skipped(w->ctx, path, "symlink loop");
		return 0;
	}
	return 1;
}

static int walk_dir(struct cli_walk *w, int fd, const struct frame *here, struct path *p)
{
	struct cli_dirlist l = { 0 }, subdirs = { 0 };
	size_t len = p->len;
	int err = cli_dirlist_read(&l, fd);

	if (err) {
		w->error(w->ctx, p->s, err);
		cli_dirlist_free(&l);
		return 0;
	}
	w->directories++;
	w->entries += l.n;
	if (w->progress)
		cli_progress_update(w->progress, w->entries, p->s);
	err = w->visit(w->ctx, p->s, fd, &l);
	for (size_t i = 0; !err && i < l.n; i++) {
		struct stat st;
		int r;

		if ((err = path_push(p, cli_dirlist_name(&l, i))) != 0)
			break;
		r = enter(w, fd, here, &l, i, p->s, &st);
		if (r < 0)
			w->error(w->ctx, p->s, r);
		else if (r > 0)
			err = cli_dirlist_add(&subdirs, cli_dirlist_name(&l, i), l.e[i].len, DT_DIR);
		p->len = len;
		p->s[len] = '\0';
	}
	/* Only the subdirectories' names stay while we descend. */
	cli_dirlist_free(&l);
	for (size_t i = 0; !err && i < subdirs.n; i++) {
		const char *name = cli_dirlist_name(&subdirs, i);
		int sub = cli_open_dir(fd, name, w->follow ? 0 : O_NOFOLLOW);
		struct stat st;

		if ((err = path_push(p, name)) != 0)
			break;
		if (sub < 0 || fstat(sub, &st) < 0) {
			w->error(w->ctx, p->s, -errno);
		} else {
			struct frame f = { st.st_dev, st.st_ino, here };

			err = walk_dir(w, sub, &f, p);
		}
		if (sub >= 0)
			close(sub);
		p->len = len;
		p->s[len] = '\0';
	}
	cli_dirlist_free(&subdirs);
	return err;
}

int cli_walk(struct cli_walk *w, const char *root)
{
	struct path p = { 0 };
	struct stat st;
	int fd = cli_open_dir(AT_FDCWD, root, 0), err;

	if (fd < 0 || fstat(fd, &st) < 0) {
		err = -errno;
		w->error(w->ctx, root, err);
		if (fd >= 0)
			close(fd);
		return err;
	}
	err = path_push(&p, root);
	if (!err) {
		struct frame f = { st.st_dev, st.st_ino, NULL };

		err = walk_dir(w, fd, &f, &p);
	}
	close(fd);
	free(p.s);
	return err;
}

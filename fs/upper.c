/*
 * What the view writes in the upper tree.  Every new object — a created
 * file, a copy of a lower one, a whiteout — is made whole in the work
 * directory (on the upper tree's filesystem) and then renamed into place,
 * so that a daemon killed at any moment leaves the upper tree as it was
 * before the change or as it is after it, never half a copy; the work
 * directory is emptied at the next mount (layers.c).  A rename over a
 * whiteout replaces it in the same step; a directory replaces one by
 * exchanging places with it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "util.h"
#include "view.h"

/* A fresh name in the work directory. */
int upper_temp(char name[static 32])
{
	return layer_tempname(name);
}

/* New objects belong to whoever made them, where the daemon may say so. */
int upper_own(struct view *v, const char *tmp, uid_t uid, gid_t gid)
{
	if (!v->can_chown)
		return 0;
	return fchownat(v->layers.workfd, tmp, uid, gid, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

/* dir's directory in the upper tree, O_PATH (the caller closes it). */
int upper_open(struct view *v, struct view_node *dir)
{
	char path[PATH_MAX];
	int r = view_path(v, dir, 0, path, sizeof(path));

	return r < 0 ? r : layer_open(&v->layers, 0, path, O_PATH | O_DIRECTORY, 0);
}

/* The nearest ancestor-or-self of n (a directory) the upper tree lacks,
 * whose parent it has; NULL if it has n. */
static struct view_node *first_missing(struct view *v, struct view_node *n)
{
	struct view_node *missing = NULL;

	pthread_mutex_lock(&v->lock);
	for (; n != v->root; n = n->parent)
		if (n->d->parts[0].layer != 0)
			missing = n;
	pthread_mutex_unlock(&v->lock);
	return missing;
}

/* Copies n's attributes (from st) onto tmp in the work directory. */
static int copy_attrs(struct view *v, const char *tmp, const struct stat *st)
{
	int w = v->layers.workfd;
	struct timespec ts[2] = { st->st_atim, st->st_mtim };

	if (v->can_chown && fchownat(w, tmp, st->st_uid, st->st_gid, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (!S_ISLNK(st->st_mode) && fchmodat(w, tmp, st->st_mode & 07777, 0) < 0)
		return -errno;
	return utimensat(w, tmp, ts, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

/* Moves the finished tmp to name in n's parent and records the copy. */
static int raise_node(struct view *v, struct view_node *n, const char *tmp, bool isdir)
{
	struct view_node *p = n->parent;
	int pfd = upper_open(v, p), r;

	if (pfd < 0)
		return pfd;
	r = renameat2(v->layers.workfd, tmp, pfd, n->name, RENAME_NOREPLACE) < 0 ? -errno : 0;
	close(pfd);
	if (r < 0)
		return r;
	pthread_mutex_lock(&v->lock);
	if (isdir) {
		struct view_part *np = realloc(n->d->parts, (n->d->nparts + 1) * sizeof(*np));
		char *name = strdup(n->name);

		if (np && name) {
			memmove(np + 1, np, n->d->nparts * sizeof(*np));
			np[0] = (struct view_part){ .layer = 0, .name = name };
			n->d->parts = np;
			n->d->nparts++;
		} else {
			free(name);
			if (np)
				n->d->parts = np;
			r = -ENOMEM;
		}
	}
	if (r == 0) {
		n->layer = 0;
		if (!n->gone && p->d->index)
			merge_raise(p->d->index, n->idx);
	}
	pthread_mutex_unlock(&v->lock);
	return r;
}

/* Gives directory n, whose parent the upper tree has, its upper copy. */
static int copy_dir(struct view *v, struct view_node *n)
{
	struct view_node *p = n->parent;
	char tmp[32];
	struct stat st;
	int r;

	pthread_mutex_lock(&p->d->change);
	if (n->d->parts[0].layer == 0) {
		pthread_mutex_unlock(&p->d->change);
		return 0;
	}
	r = view_stat(v, n, &st);  /* mode, owner, times: what a copy keeps */
	upper_temp(tmp);
	if (r == 0 && mkdirat(v->layers.workfd, tmp, 0700) < 0)
		r = -errno;
	if (r == 0 && (r = copy_attrs(v, tmp, &st)) == 0)
		r = raise_node(v, n, tmp, true);
	if (r < 0)
		layer_clear_work(v->layers.workfd, tmp);
	pthread_mutex_unlock(&p->d->change);
	return r;
}

/*
 * Makes sure the upper tree has directory dir, copying up each ancestor it
 * lacks, top down (one change lock at a time: the parent's).
 */
int upper_dir(struct view *v, struct view_node *dir)
{
	struct view_node *n;
	int r;

	if (!v->layers.upper)
		return -EROFS;
	while ((n = first_missing(v, dir)))
		if ((r = copy_dir(v, n)) < 0)
			return r;
	return 0;
}

/* The bytes of src into dst, across filesystems if need be. */
static int copy_data(int src, int dst, off_t size)
{
	char buf[65536];
	off_t done = 0;
	ssize_t n;

	while (done < size) {
		n = copy_file_range(src, NULL, dst, NULL, (size_t)(size - done), 0);
		if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == EOPNOTSUPP ||
			      errno == ENOSYS))
			break;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;  /* shorter than it was: what there is */
		done += n;
	}
	while ((n = read(src, buf, sizeof(buf))) > 0)
		for (ssize_t w = 0, k; w < n; w += k)
			if ((k = write(dst, buf + w, (size_t)(n - w))) < 0)
				return -errno;
	return n < 0 ? -errno : 0;
}

/* The extended attributes a copy keeps: all but overlayfs's own. */
static void copy_xattrs(int src, int dst)
{
	char names[4096], value[4096];
	ssize_t len = flistxattr(src, names, sizeof(names));

	for (ssize_t i = 0; i < len; i += (ssize_t)strlen(names + i) + 1) {
		ssize_t vl;

		if (marker_is_ours(names + i))
			continue;
		vl = fgetxattr(src, names + i, value, sizeof(value));
		if (vl >= 0)
			fsetxattr(dst, names + i, value, (size_t)vl, 0);  /* best effort */
	}
}

/* Makes tmp, in the work directory, a copy of n's object (stat st). */
static int copy_object(struct view *v, struct view_node *n, const char *tmp,
		       const struct stat *st)
{
	int w = v->layers.workfd, src, dst, r;
	char target[PATH_MAX];
	ssize_t len;

	if (S_ISLNK(st->st_mode)) {
		src = view_open(v, n, O_PATH | O_NOFOLLOW);
		if (src < 0)
			return src;
		len = readlinkat(src, "", target, sizeof(target) - 1);
		close(src);
		if (len < 0)
			return -errno;
		target[len] = '\0';
		return symlinkat(target, w, tmp) < 0 ? -errno : 0;
	}
	if (!S_ISREG(st->st_mode))
		return mknodat(w, tmp, st->st_mode & S_IFMT, st->st_rdev) < 0 ? -errno : 0;
	src = view_open(v, n, O_RDONLY | O_NOFOLLOW);
	if (src < 0)
		return src;
	dst = openat(w, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	r = dst < 0 ? -errno : copy_data(src, dst, st->st_size);
	if (dst >= 0) {
		copy_xattrs(src, dst);
		close(dst);
	}
	close(src);
	return r;
}

/*
 * Copies the non-directory n up: its parent first, then the object, made
 * whole in the work directory and moved into place.
 */
int upper_copy(struct view *v, struct view_node *n)
{
	struct view_node *p;
	struct stat st;
	char tmp[32];
	int r;

	pthread_mutex_lock(&v->lock);
	p = n->parent;
	r = n->layer == 0 ? 1 : n->gone ? -ENOENT : 0;
	pthread_mutex_unlock(&v->lock);
	if (r != 0)
		return r < 0 ? r : 0;
	if ((r = upper_dir(v, p)) < 0)
		return r;
	pthread_mutex_lock(&p->d->change);
	if (n->layer == 0 || n->gone) {
		pthread_mutex_unlock(&p->d->change);
		return n->gone ? -ENOENT : 0;
	}
	r = view_stat(v, n, &st);
	upper_temp(tmp);
	if (r == 0)
		r = copy_object(v, n, tmp, &st);
	if (r == 0 && (r = copy_attrs(v, tmp, &st)) == 0)
		r = raise_node(v, n, tmp, false);
	if (r < 0)
		layer_clear_work(v->layers.workfd, tmp);
	pthread_mutex_unlock(&p->d->change);
	return r;
}

/*
 * Moves the finished tmp to name in dir's upper directory, over the
 * group's whiteout there (whiteout: its entry, or MERGE_NONE).  The
 * object takes the whiteout's place in one step (they trade places: a
 * directory cannot replace a file), and only then takes its own spelling,
 * so that a daemon killed in between leaves the object in place under the
 * whiteout's spelling — never the lower entry back, nor two names equal
 * under folding in one upper directory.  placed (CFS_NAME_MAX + 1 bytes)
 * receives the spelling the object has.  An aufs-style ".wh." whiteout is
 * not of the group's spellings: it is removed once the object is in.
 */
int upper_place(struct view *v, struct view_node *dir, const char *tmp, const char *name,
		uint32_t whiteout, char *placed)
{
	int w = v->layers.workfd, pfd = upper_open(v, dir), r;
	char old[CFS_NAME_MAX + 8] = "";

	if (pfd < 0)
		return pfd;
	pthread_mutex_lock(&v->lock);
	if (whiteout != MERGE_NONE && merge_entry(dir->d->index, whiteout)->layer == 0)
		merge_stored(dir->d->index, whiteout, old, sizeof(old));
	pthread_mutex_unlock(&v->lock);
	snprintf(placed, CFS_NAME_MAX + 1, "%s", name);
	if (!*old || marker_dotwh(old)) {
		r = renameat2(w, tmp, pfd, name, RENAME_NOREPLACE) < 0 ? -errno : 0;
		if (r == 0 && *old)
			unlinkat(pfd, old, 0);
	} else {
		r = renameat2(w, tmp, pfd, old, RENAME_EXCHANGE) < 0 ? -errno : 0;
		if (r == 0) {
			unlinkat(w, tmp, 0);  /* the whiteout, now in the work directory */
			if (strcmp(old, name) != 0 &&
			    renameat2(pfd, old, pfd, name, RENAME_NOREPLACE) < 0)
				snprintf(placed, CFS_NAME_MAX + 1, "%.*s", CFS_NAME_MAX, old);
		}
	}
	close(pfd);
	if (r == 0 && *old) {
		pthread_mutex_lock(&v->lock);
		merge_remove(dir->d->index, whiteout);
		pthread_mutex_unlock(&v->lock);
	}
	return r;
}

/*
 * Puts a whiteout at name in dir's upper directory: where nothing is, or in
 * one step over the upper object there (a directory, which can hold only
 * whiteouts then, trades places with it and is emptied in the work dir).
 */
int upper_whiteout(struct view *v, struct view_node *dir, const char *name,
		   enum upper_over over)
{
	int w = v->layers.workfd, pfd, r;
	char tmp[32];

	upper_temp(tmp);
	if ((r = marker_make_whiteout(w, tmp)) < 0)
		return r;
	pfd = upper_open(v, dir);
	if (pfd < 0) {
		unlinkat(w, tmp, 0);
		return pfd;
	}
	switch (over) {
	case UPPER_NEW:
		r = renameat2(w, tmp, pfd, name, RENAME_NOREPLACE);
		break;
	case UPPER_OVER_FILE:
		r = renameat(w, tmp, pfd, name);
		break;
	case UPPER_OVER_DIR:
		r = renameat2(w, tmp, pfd, name, RENAME_EXCHANGE);
		break;
	}
	r = r < 0 ? -errno : 0;
	close(pfd);
	if (r < 0 || over == UPPER_OVER_DIR)
		layer_clear_work(w, tmp);
	return r;
}

/*
 * Removes the upper object name of dir that covers nothing below.  A
 * directory may still hold whiteouts of what it once covered: it is moved
 * to the work directory and emptied there.
 */
int upper_discard(struct view *v, struct view_node *dir, const char *name, bool isdir)
{
	int pfd = upper_open(v, dir), r;
	char tmp[32];

	if (pfd < 0)
		return pfd;
	r = unlinkat(pfd, name, isdir ? AT_REMOVEDIR : 0) < 0 ? -errno : 0;
	if (r == -ENOTEMPTY || r == -EEXIST) {
		upper_temp(tmp);
		r = renameat(pfd, name, v->layers.workfd, tmp) < 0 ? -errno : 0;
		if (r == 0)
			r = layer_clear_work(v->layers.workfd, tmp);
	}
	close(pfd);
	return r;
}

/* Whether dir's upper directory name is opaque (nothing below shows in it). */
bool upper_opaque(struct view *v, struct view_node *dir, const char *name)
{
	int pfd = upper_open(v, dir), fd;
	bool opaque;

	if (pfd < 0)
		return false;
	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(pfd);
	if (fd < 0)
		return false;
	opaque = marker_opaque(fd);
	close(fd);
	return opaque;
}

/*
 * Opening the layers of an overlay view, refusing layer lists that cannot
 * work, and reaching an object inside one layer without leaving it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "view/layers.h"

static int say(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * The next layer of a lowerdir list, as overlayfs reads it: layers are
 * separated by ':', and "\:" and "\\" stand for ':' and '\' in a path.
 * Returns the path (allocated) and advances *list; NULL at the end.
 */
static char *next_layer(const char **list)
{
	const char *s = *list;
	char *out, *o;

	if (*s == '\0')
		return NULL;
	out = o = malloc(strlen(s) + 1);
	if (!out)
		return NULL;
	for (; *s && *s != ':'; s++) {
		if (*s == '\\' && (s[1] == ':' || s[1] == '\\'))
			s++;
		*o++ = *s;
	}
	*o = '\0';
	*list = *s ? s + 1 : s;
	return out;
}

/* Adds the directory at path (taking it) as the next layer. */
static int add_layer(struct layers *ls, char *path, char *err, size_t errlen)
{
	struct layer *l;
	struct stat st;
	unsigned i;
	int fd;

	if (ls->n == LAYERS_MAX) {
		free(path);
		return say(err, errlen, "more than %d layers", LAYERS_MAX);
	}
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		say(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(path);
		return -1;
	}
	l = &ls->l[ls->n++];
	*l = (struct layer){ .fd = fd, .dev = st.st_dev, .path = path };
	/* Filesystems numbered in order of appearance: inode numbers stay
	 * unique across layers on different filesystems (layer_ino). */
	for (i = 0; i + 1 < ls->n && ls->l[i].dev != st.st_dev; i++)
		;
	l->dev_index = i + 1 < ls->n ? ls->l[i].dev_index : ls->devs++;
	return 0;
}

/* Whether the directory a is b or lies inside it. */
static bool inside(const char *a, const char *b)
{
	size_t n = strlen(b);

	if (strcmp(b, "/") == 0)
		return true;
	return strncmp(a, b, n) == 0 && (a[n] == '/' || a[n] == '\0');
}

/*
 * Layers that contain one another, or the mount point, would show a layer
 * twice or through itself (a lookup into the mount point from inside the
 * daemon would wait on itself): refused, as overlayfs refuses overlapping
 * layers.
 */
static int check_overlap(struct layers *ls, const char *workdir, const char *mountpoint,
			 char *err, size_t errlen)
{
	char **real = calloc(ls->n + 2, sizeof(*real));
	unsigned n = ls->n, i, j;
	int r = 0;

	if (!real)
		return say(err, errlen, "out of memory");
	for (i = 0; i < ls->n; i++)
		real[i] = realpath(ls->l[i].path, NULL);
	/* The work directory is opened later: a missing one is named here. */
	if (workdir && !(real[n++] = realpath(workdir, NULL)))
		r = say(err, errlen, "workdir %s: %s (it must be an empty directory on "
			"upperdir's filesystem)", workdir, strerror(errno));
	if (r == 0 && !(real[n++] = realpath(mountpoint, NULL)))
		r = say(err, errlen, "mount point %s: %s", mountpoint, strerror(errno));
	for (i = 0; i < n && r == 0; i++) {
		if (!real[i]) {
			r = say(err, errlen, "%s: cannot resolve its path", ls->l[i].path);
			break;
		}
		for (j = 0; j < i && r == 0; j++)
			if (inside(real[i], real[j]) || inside(real[j], real[i]))
				r = say(err, errlen, "%s and %s overlap: no layer of a view may "
					"lie inside another, the work directory or the mount point",
					real[j], real[i]);
	}
	for (i = 0; i < n; i++)
		free(real[i]);
	free(real);
	return r;
}

/* Empties WORKDIR/work of what a killed daemon left there. */
static int open_work(struct layers *ls, const char *workdir, char *err, size_t errlen)
{
	struct stat st;
	struct dirent *de;
	DIR *d;
	int wfd = open(workdir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (wfd < 0)
		return say(err, errlen, "workdir %s: %s", workdir, strerror(errno));
	if (fstat(wfd, &st) < 0 || st.st_dev != ls->l[0].dev) {
		close(wfd);
		return say(err, errlen, "workdir %s is not on the upper layer's filesystem",
			   workdir);
	}
	if (mkdirat(wfd, "work", 0700) < 0 && errno != EEXIST) {
		say(err, errlen, "workdir %s: %s", workdir, strerror(errno));
		close(wfd);
		return -1;
	}
	ls->workfd = openat(wfd, "work", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(wfd);
	if (ls->workfd < 0)
		return say(err, errlen, "workdir %s/work: %s", workdir, strerror(errno));
	d = fdopendir(dup(ls->workfd));
	if (!d)
		return say(err, errlen, "workdir %s/work: %s", workdir, strerror(errno));
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			layer_clear_work(ls->workfd, de->d_name);
	closedir(d);
	return 0;
}

/*
 * Opens the view's layers: upperdir (if any) as layer 0, then lowerdir's
 * layers top first.  On failure err says why, and nothing stays open.
 */
int layers_open(struct layers *ls, const char *lowerdir, const char *upperdir,
		const char *workdir, const char *mountpoint, char *err, size_t errlen)
{
	const char *list = lowerdir;
	char *path;
	size_t max = 2;

	*ls = (struct layers){ .workfd = -1 };
	for (const char *s = lowerdir; *s; s++)
		max += *s == ':';
	ls->l = calloc(max, sizeof(*ls->l));
	if (!ls->l)
		return say(err, errlen, "out of memory");
	if (upperdir) {
		if (!workdir) {
			say(err, errlen, "upperdir needs a workdir on the same filesystem, "
			    "as for overlayfs");
			goto fail;
		}
		if (add_layer(ls, strdup(upperdir), err, errlen) < 0)
			goto fail;
		ls->upper = true;
	}
	while ((path = next_layer(&list)))
		if (add_layer(ls, path, err, errlen) < 0)
			goto fail;
	if (ls->n == (unsigned)ls->upper) {
		say(err, errlen, "lowerdir names no layer");
		goto fail;
	}
	if (check_overlap(ls, upperdir ? workdir : NULL, mountpoint, err, errlen) < 0)
		goto fail;
	if (upperdir && open_work(ls, workdir, err, errlen) < 0)
		goto fail;
	return 0;
fail:
	layers_close(ls);
	return -1;
}

void layers_close(struct layers *ls)
{
	for (unsigned i = 0; i < ls->n; i++) {
		close(ls->l[i].fd);
		free(ls->l[i].path);
	}
	if (ls->workfd >= 0)
		close(ls->workfd);
	free(ls->l);
	*ls = (struct layers){ .workfd = -1 };
}

/*
 * Opens path (relative, "" for the root) inside one layer (LAYER_WORK: the
 * work directory, where a gone node's object keeps a name).  The kernel
 * resolves it beneath the layer's root and follows no symbolic link on the
 * way (an O_PATH|O_NOFOLLOW open of a link returns the link itself), so no
 * name in any layer, changed or not, can lead outside it; nor into a
 * filesystem mounted inside it (EXDEV), as overlayfs, which sees a layer's
 * own filesystem only: a FUSE filesystem a user mounted there could leave
 * every call unanswered and hold the worker making it (issue 33).
 */
int layer_open(const struct layers *ls, unsigned layer, const char *path, int flags,
	       mode_t mode)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.mode = (flags & O_CREAT) ? mode : 0,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
			   RESOLVE_NO_XDEV,
	};
	int dirfd = layer == LAYER_WORK ? ls->workfd : ls->l[layer].fd;
	long fd = syscall(SYS_openat2, dirfd, *path ? path : ".", &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

/* The view's inode number for inode ino of a layer's filesystem. */
uint64_t layer_ino(const struct layers *ls, unsigned layer, ino_t ino)
{
	return (uint64_t)ino ^ ((uint64_t)ls->l[layer].dev_index << 48);
}

/* A name for something being made in the work directory. */
int layer_tempname(char buf[static 32])
{
	static _Atomic unsigned long counter;

	return snprintf(buf, 32, "#%ld.%lu", (long)getpid(), atomic_fetch_add(&counter, 1));
}

/* Unlinks every entry of the open directory dirfd (files only: whiteouts). */
void layer_empty(int dirfd)
{
	int fd = dup(dirfd);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			unlinkat(dirfd, de->d_name, 0);
	closedir(d);
}

/*
 * Removes name from the work directory: a file, or a directory that was
 * moved there to be removed, which can hold only whiteouts (it was empty
 * in the view), so one level is all there is to empty.
 */
int layer_clear_work(int workfd, const char *name)
{
	int fd;

	if (unlinkat(workfd, name, 0) == 0)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return errno == ENOENT ? 0 : -errno;
	fd = openat(workfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	layer_empty(fd);
	close(fd);
	return unlinkat(workfd, name, AT_REMOVEDIR) < 0 ? -errno : 0;
}

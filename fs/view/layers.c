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

#include "common/util.h"
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

/* A filesystem's number among the view's (layer_ino), given in order of
 * appearance and kept across restacks, so that inode numbers stay. */
static int dev_index(struct layers *ls, dev_t dev, unsigned *out)
{
	dev_t *t;

	for (unsigned i = 0; i < ls->devs; i++)
		if (ls->devtab[i] == dev) {
			*out = i;
			return 0;
		}
	t = realloc(ls->devtab, (ls->devs + 1) * sizeof(*t));
	if (!t)
		return -1;
	ls->devtab = t;
	t[ls->devs] = dev;
	*out = ls->devs++;
	return 0;
}

/*
 * path made absolute from the working directory (taken; NULL: out of
 * memory): a mounted view's stack is opened again by its paths when it
 * changes, in the daemon, whose working directory is not the caller's.
 */
static char *absolute(char *path)
{
	char *cwd, *abs = NULL;

	if (!path || path[0] == '/' || path[0] == '\0')
		return path;
	if ((cwd = getcwd(NULL, 0)) && asprintf(&abs, "%s/%s", strcmp(cwd, "/") ? cwd : "", path) < 0)
		abs = NULL;
	free(cwd);
	free(path);
	return abs;
}

int layer_list_parse(struct layer_list *ll, const char *lowerdir, char *err, size_t errlen)
{
	size_t max = 1;
	char *path;

	*ll = (struct layer_list){ 0 };
	for (const char *s = lowerdir; *s; s++)
		max += *s == ':';
	if (!(ll->path = calloc(max, sizeof(*ll->path))))
		return say(err, errlen, "out of memory");
	while (*lowerdir) {
		if (!(path = absolute(next_layer(&lowerdir)))) {
			layer_list_free(ll);
			return say(err, errlen, "out of memory");
		}
		ll->path[ll->n++] = path;
	}
	return 0;
}

/* Appends path (taken) to ll, which has room for *cap. */
static int list_add(struct layer_list *ll, size_t *cap, char *path)
{
	char **more;

	if (!path)
		return -1;
	if (ll->n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		if (!(more = realloc(ll->path, *cap * sizeof(*more)))) {
			free(path);
			return -1;
		}
		ll->path = more;
	}
	ll->path[ll->n++] = path;
	return 0;
}

/*
 * A layers file (-o layers=FILE, and a mounted view's new stack): one
 * directory a line, top first; empty lines are skipped, and a relative
 * path is taken from the file's own directory, so that the file means the
 * same wherever it is read from (the daemon's working directory is not
 * the caller's).
 */
int layer_list_read(struct layer_list *ll, const char *file, char *err, size_t errlen)
{
	char *real = realpath(file, NULL), *line = NULL, *slash, *p;
	size_t cap = 0, size = 0;
	ssize_t len;
	FILE *f = real ? fopen(real, "re") : NULL;
	int r = 0;

	*ll = (struct layer_list){ 0 };
	if (!f) {
		free(real);
		return say(err, errlen, "layers file %s: %s", file, strerror(errno));
	}
	slash = strrchr(real, '/');
	slash[slash == real] = '\0';  /* its directory ("/" for a file at the root) */
	while (r == 0 && (len = getline(&line, &size, f)) >= 0) {
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len == 0)
			continue;
		if (ll->n == LAYERS_MAX) {
			r = say(err, errlen, "layers file %s: more than %d layers", file, LAYERS_MAX);
			break;
		}
		if (line[0] == '/')
			p = strdup(line);
		else if (asprintf(&p, "%s/%s", strcmp(real, "/") ? real : "", line) < 0)
			p = NULL;
		if (list_add(ll, &cap, p) < 0)
			r = say(err, errlen, "out of memory");
	}
	if (r == 0 && ferror(f))
		r = say(err, errlen, "layers file %s: %s", file, strerror(errno));
	fclose(f);
	free(line);
	free(real);
	if (r < 0)
		layer_list_free(ll);
	return r;
}

void layer_list_free(struct layer_list *ll)
{
	for (unsigned i = 0; i < ll->n; i++)
		free(ll->path[i]);
	free(ll->path);
	*ll = (struct layer_list){ 0 };
}

/* A stack's layers ordered by root (device and inode), to find one by
 * halving: thousands of layers are matched, each in log n steps. */
struct by_root {
	const struct layers *ls;
	unsigned *order;
};

static int root_order(const void *a, const void *b, void *arg)
{
	const struct layer *l = arg, *x = &l[*(const unsigned *)a], *y = &l[*(const unsigned *)b];

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return (x->ino > y->ino) - (x->ino < y->ino);
}

static int by_root_make(struct by_root *b, const struct layers *ls)
{
	b->ls = ls;
	if (!(b->order = malloc((ls->n + 1) * sizeof(*b->order))))
		return -1;
	for (unsigned j = 0; j < ls->n; j++)
		b->order[j] = j;
	qsort_r(b->order, ls->n, sizeof(*b->order), root_order, ls->l);
	return 0;
}

/* The layer of b whose root is dev and ino, or LAYER_NONE. */
static unsigned by_root_find(const struct by_root *b, dev_t dev, ino_t ino)
{
	unsigned lo = 0, hi = b->ls->n;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		const struct layer *m = &b->ls->l[b->order[mid]];
		int c = m->dev != dev ? (m->dev < dev ? -1 : 1) : (m->ino > ino) - (m->ino < ino);

		if (c == 0)
			return b->order[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return LAYER_NONE;
}

/* The real path of the directory fd (O_PATH) is, by the kernel's name for
 * it: one call, where realpath(3) reads every component of path. */
static char *real_path(int fd, const char *path)
{
	char proc[32], buf[PATH_MAX];
	ssize_t n;

	fd_procpath(fd, proc);
	if ((n = readlink(proc, buf, sizeof(buf) - 1)) <= 0 || buf[0] != '/')
		return realpath(path, NULL);
	buf[n] = '\0';
	return strdup(buf);
}

/*
 * Adds the directory at path (taking it) as the next layer.  A layer of
 * the stack a restack replaces (old, or NULL) is not opened again: the new
 * stack borrows its descriptor (layers_handover), so that a stack of
 * thousands needs no second thousands of descriptors to change.
 */
static int add_layer(struct layers *ls, char *path, const struct by_root *old, char *err,
		     size_t errlen)
{
	struct layer *l;
	struct stat st;
	unsigned di, from = LAYER_NONE;
	int fd;

	if (ls->n == LAYERS_MAX) {
		free(path);
		return say(err, errlen, "more than %d layers", LAYERS_MAX);
	}
	if (old && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		from = by_root_find(old, st.st_dev, st.st_ino);
	fd = from != LAYER_NONE ? old->ls->l[from].fd : open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || (from == LAYER_NONE && fstat(fd, &st) < 0)) {
		say(err, errlen, "%s: %s%s", path, strerror(errno),
		    errno == EMFILE ? " (a layer is an open file: raise ulimit -n)" : "");
		if (fd >= 0)
			close(fd);
		free(path);
		return -1;
	}
	l = &ls->l[ls->n];
	*l = (struct layer){ .fd = fd, .dev = st.st_dev, .ino = st.st_ino, .path = path,
			     .borrowed = from != LAYER_NONE, .from = from };
	l->real = l->borrowed ? strdup(old->ls->l[from].real) : real_path(fd, path);
	ls->n++;  /* closed with the others from now on */
	if (!l->real)
		return say(err, errlen, "%s: cannot resolve its path", path);
	if (dev_index(ls, st.st_dev, &di) < 0)
		return say(err, errlen, "out of memory");
	l->dev_index = di;
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
 * Paths ordered with '/' before every other byte: whatever lies inside a
 * directory then follows it at once, so that two of n paths overlap only
 * if two neighbours do (n log n, for thousands of layers).
 */
static int path_order(const void *a, const void *b)
{
	const unsigned char *x = *(const unsigned char *const *)a;
	const unsigned char *y = *(const unsigned char *const *)b;

	for (; *x && *x == *y; x++, y++)
		;
	if (*x == *y)
		return 0;
	if (*x == '/' || *y == '/')
		return *x == '/' ? (*y ? -1 : 1) : (*x ? 1 : -1);
	return *x < *y ? -1 : 1;
}

/*
 * Layers that contain one another, or the mount point, would show a layer
 * twice or through itself (a lookup into the mount point from inside the
 * daemon would wait on itself): refused, as overlayfs refuses overlapping
 * layers.  The work directory and mount point are real paths already.
 */
static int check_overlap(struct layers *ls, char *err, size_t errlen)
{
	char **real = calloc(ls->n + 2, sizeof(*real)), **sorted;
	unsigned n = ls->n, i;
	int r = 0;

	if (!real)
		return say(err, errlen, "out of memory");
	for (i = 0; i < ls->n && r == 0; i++)
		if (!(real[i] = strdup(ls->l[i].real)))
			r = say(err, errlen, "out of memory");
	if (r == 0 && ls->workdir)
		real[n++] = strdup(ls->workdir);
	if (r == 0)
		real[n++] = strdup(ls->mountpoint);
	sorted = r == 0 ? malloc(n * sizeof(*sorted)) : NULL;
	if (r == 0 && !sorted)
		r = say(err, errlen, "out of memory");
	for (i = 0; r == 0 && i < n; i++)
		if (!(sorted[i] = real[i]))
			r = say(err, errlen, "out of memory");
	if (r == 0)
		qsort(sorted, n, sizeof(*sorted), path_order);
	for (i = 1; r == 0 && i < n; i++)
		if (inside(sorted[i], sorted[i - 1]))
			r = say(err, errlen, "%s and %s overlap: no layer of a view may "
				"lie inside another, the work directory or the mount point",
				sorted[i - 1], sorted[i]);
	for (i = 0; i < ls->n + 2; i++)
		free(real[i]);
	free(real);
	free(sorted);
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

/* Appends a list's layers to ls, after checking their number (old: as
 * for add_layer). */
static int add_lower(struct layers *ls, const struct layer_list *lower, const struct by_root *old,
		     char *err, size_t errlen)
{
	char *p;

	if (lower->n == 0)
		return say(err, errlen, "no lower layer given");
	if (lower->n > LAYERS_MAX - ls->n)
		return say(err, errlen, "more than %d layers", LAYERS_MAX);
	for (unsigned i = 0; i < lower->n; i++) {
		if (!(p = strdup(lower->path[i])))
			return say(err, errlen, "out of memory");
		if (add_layer(ls, p, old, err, errlen) < 0)
			return -1;
	}
	return 0;
}

/*
 * Opens the view's layers: upperdir (if any) as layer 0, then the lower
 * layers top first.  On failure err says why, and nothing stays open.
 */
int layers_open(struct layers *ls, const struct layer_list *lower, const char *upperdir,
		const char *workdir, const char *mountpoint, char *err, size_t errlen)
{
	*ls = (struct layers){ .workfd = -1 };
	ls->l = calloc(lower->n + 1, sizeof(*ls->l));
	if (!ls->l)
		return say(err, errlen, "out of memory");
	if (!(ls->mountpoint = realpath(mountpoint, NULL))) {
		say(err, errlen, "mount point %s: %s", mountpoint, strerror(errno));
		goto fail;
	}
	if (upperdir) {
		if (!workdir) {
			say(err, errlen, "upperdir needs a workdir on the same filesystem, "
			    "as for overlayfs");
			goto fail;
		}
		/* The work directory is opened later: a missing one is named here. */
		if (!(ls->workdir = realpath(workdir, NULL))) {
			say(err, errlen, "workdir %s: %s (it must be an empty directory on "
			    "upperdir's filesystem)", workdir, strerror(errno));
			goto fail;
		}
		if (add_layer(ls, strdup(upperdir), NULL, err, errlen) < 0)
			goto fail;
		ls->upper = true;
	}
	if (add_lower(ls, lower, NULL, err, errlen) < 0 || check_overlap(ls, err, errlen) < 0)
		goto fail;
	if (upperdir && open_work(ls, workdir, err, errlen) < 0)
		goto fail;
	return 0;
fail:
	layers_close(ls);
	return -1;
}

/* map[i]: old layer i's number in ls, by its root (device and inode), or
 * LAYER_NONE. */
static int map_layers(const struct layers *old, const struct layers *ls, unsigned *map)
{
	struct by_root b;

	if (by_root_make(&b, ls) < 0)
		return -1;
	for (unsigned i = 0; i < old->n; i++)
		map[i] = by_root_find(&b, old->l[i].dev, old->l[i].ino);
	free(b.order);
	return 0;
}

/* The old upper layer and its work directory, kept by a new stack. */
static int keep_upper(const struct layers *old, struct layers *ls, char *err, size_t errlen)
{
	ls->l[0] = old->l[0];
	ls->l[0].borrowed = true;
	ls->l[0].from = 0;
	ls->l[0].path = strdup(old->l[0].path);
	ls->l[0].real = strdup(old->l[0].real);
	ls->n = 1;
	ls->workfd = fcntl(old->workfd, F_DUPFD_CLOEXEC, 0);
	ls->workdir = strdup(old->workdir);
	if (!ls->l[0].path || !ls->l[0].real || ls->workfd < 0 || !ls->workdir)
		return say(err, errlen, "upper layer: %s", strerror(errno));
	return 0;
}

/*
 * A new upper layer for a mounted view, with its work directory.  A view
 * mounted without one stays read-only: what it answered (EROFS, link
 * counts of a read-only view) the kernel may keep for a day.
 */
static int new_upper(const struct by_root *old, struct layers *ls, const char *upperdir,
		     const char *workdir, char *err, size_t errlen)
{
	if (!old->ls->upper)
		return say(err, errlen, "the view was mounted without an upper layer: it stays "
			   "read-only (mount it again with upperdir and workdir to write)");
	if (!(ls->workdir = realpath(workdir, NULL)))
		return say(err, errlen, "workdir %s: %s (it must be an empty directory on "
			   "upperdir's filesystem)", workdir, strerror(errno));
	if (add_layer(ls, strdup(upperdir), old, err, errlen) < 0)
		return -1;
	ls->upper = true;
	return 0;
}

/*
 * The new work directory, once the stack is checked: the view's own one
 * is taken as it is (the names it keeps there for removed files stay
 * theirs until view_restack moves them), another is emptied as at mount
 * time.
 */
static int new_work(const struct layers *old, struct layers *ls, char *err, size_t errlen)
{
	struct stat st;

	if (strcmp(old->workdir, ls->workdir) != 0)
		return open_work(ls, ls->workdir, err, errlen);
	if (fstat(old->workfd, &st) < 0 || st.st_dev != ls->l[0].dev)
		return say(err, errlen, "workdir %s is not on the upper layer's filesystem",
			   ls->workdir);
	ls->workfd = fcntl(old->workfd, F_DUPFD_CLOEXEC, 0);
	return ls->workfd < 0 ? say(err, errlen, "workdir: %s", strerror(errno)) : 0;
}

/*
 * Opens a new stack of layers for a mounted view (view_restack): old's
 * upper layer and work directory, or upperdir and workdir if given, over
 * the lower layers given, checked as at mount time; old's filesystems'
 * numbers.  map[i] is old layer i's number in the new stack (a layer is
 * known by its root's device and inode), or LAYER_NONE; when the upper
 * layer changes, no layer keeps its objects across the change to or from
 * being the upper one (writable objects and read-only ones are not the
 * same objects to the view), so old layer 0 and whatever becomes layer 0
 * map to LAYER_NONE.  The paths are resolved here, before the view stops
 * its requests: a path through the view itself is answered (and refused
 * as overlapping), not waited on.
 */
int layers_restack(const struct layers *old, const struct layer_list *lower,
		   const char *upperdir, const char *workdir, struct layers *ls, unsigned *map,
		   char *err, size_t errlen)
{
	struct by_root b = { 0 };

	*ls = (struct layers){ .workfd = -1, .upper = old->upper };
	ls->l = calloc(lower->n + 1, sizeof(*ls->l));
	ls->devtab = malloc((old->devs ? old->devs : 1) * sizeof(*ls->devtab));
	ls->mountpoint = strdup(old->mountpoint);
	if (!ls->l || !ls->devtab || !ls->mountpoint || by_root_make(&b, old) < 0) {
		say(err, errlen, "out of memory");
		goto fail;
	}
	memcpy(ls->devtab, old->devtab, old->devs * sizeof(*ls->devtab));
	ls->devs = old->devs;
	if (upperdir ? new_upper(&b, ls, upperdir, workdir, err, errlen) < 0
		     : old->upper && keep_upper(old, ls, err, errlen) < 0)
		goto fail;
	if (add_lower(ls, lower, &b, err, errlen) < 0 || check_overlap(ls, err, errlen) < 0)
		goto fail;
	if (upperdir && new_work(old, ls, err, errlen) < 0)
		goto fail;
	if (map_layers(old, ls, map) < 0) {
		say(err, errlen, "out of memory");
		goto fail;
	}
	if (upperdir && (ls->l[0].dev != old->l[0].dev || ls->l[0].ino != old->l[0].ino))
		for (unsigned i = 0; i < old->n; i++)
			if (i == 0 || map[i] == 0)
				map[i] = LAYER_NONE;
	free(b.order);
	return 0;
fail:
	free(b.order);
	layers_close(ls);
	return -1;
}

/* ls, restacked from old, has taken old's place: the descriptors it
 * borrowed are its own now, and old closes the others. */
void layers_handover(struct layers *old, struct layers *ls)
{
	for (unsigned i = 0; i < ls->n; i++)
		if (ls->l[i].borrowed) {
			old->l[ls->l[i].from].fd = -1;
			ls->l[i].borrowed = false;
		}
}

void layers_close(struct layers *ls)
{
	for (unsigned i = 0; i < ls->n; i++) {
		if (ls->l[i].fd >= 0 && !ls->l[i].borrowed)
			close(ls->l[i].fd);
		free(ls->l[i].path);
		free(ls->l[i].real);
	}
	if (ls->workfd >= 0)
		close(ls->workfd);
	free(ls->l);
	free(ls->devtab);
	free(ls->workdir);
	free(ls->mountpoint);
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

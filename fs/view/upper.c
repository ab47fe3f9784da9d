/*
 * What the view writes in the upper layer.  Every new object — a created
 * file, a copy of a lower one, a whiteout — is made whole in the work
 * directory (on the upper layer's filesystem) and then renamed into place,
 * so that a daemon killed at any moment leaves the upper layer as it was
 * before the change or as it is after it, never half a copy; the work
 * directory is emptied at the next mount (layers.c).  A move into place
 * over a whiteout and the replacing of a directory follow one rule
 * (upper_move, upper_clear_dir): what a kill leaves reads as the change
 * made or not made.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "common/util.h"
#include "view/view.h"

/* A fresh name in the work directory. */
int upper_temp(char name[static 32])
{
	return layer_tempname(name);
}

/*
 * New objects belong to whoever made them, where the daemon may say so.
 * chown clears a file's set-user-ID and set-group-ID bits, which the maker
 * asked for in mode (as ext4 keeps them on a new file): they are put back.
 */
int upper_own(struct view *v, const char *tmp, uid_t uid, gid_t gid, mode_t mode)
{
	int w = v->layers.workfd;

	if (!v->can_chown)
		return 0;
	if (fchownat(w, tmp, uid, gid, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (!S_ISLNK(mode) && (mode & (S_ISUID | S_ISGID)) && fchmodat(w, tmp, mode & 07777, 0) < 0)
		return -errno;
	return 0;
}

/* dir's part `part` (of the upper layer), O_PATH (the caller closes it). */
int upper_open_part(struct view *v, struct view_node *dir, unsigned part)
{
	char path[PATH_MAX];
	int r = view_part_path(v, dir, part, NULL, path, sizeof(path));

	return r < 0 ? r : layer_open(&v->layers, 0, path, O_PATH | O_DIRECTORY, 0);
}

/* dir's directory in the upper layer where new names go (view_upper_part),
 * O_PATH; *part: which part it is, if part is not NULL. */
int upper_open(struct view *v, struct view_node *dir, unsigned *part)
{
	int r = view_upper_part(v, dir);

	if (r >= 0 && part)
		*part = (unsigned)r;
	return r < 0 ? r : upper_open_part(v, dir, (unsigned)r);
}

/* The nearest ancestor-or-self of n (a directory) the upper layer lacks,
 * whose parent it has; NULL if it has n. */
static struct view_node *first_missing(struct view *v, struct view_node *n)
{
	struct view_node *missing = NULL;

	pthread_mutex_lock(&v->node_lock);
	for (; n != v->root; n = n->parent)
		if (!view_in_upper(n))
			missing = n;
	pthread_mutex_unlock(&v->node_lock);
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

/* Moves the finished tmp to name in n's parent's upper part and records
 * the copy (the parent's index held). */
static int raise_node(struct view *v, struct view_node *n, const char *tmp, bool isdir)
{
	struct view_node *p = n->parent;
	unsigned part;
	int pfd = upper_open(v, p, &part), r;

	if (pfd < 0)
		return pfd;
	r = renameat2(v->layers.workfd, tmp, pfd, n->name, RENAME_NOREPLACE) < 0 ? -errno : 0;
	close(pfd);
	if (r < 0)
		return r;
	pthread_mutex_lock(&v->node_lock);
	if (isdir)
		r = view_add_part(n, 0, part, n->name);
	if (r == 0) {
		n->layer = 0;
		n->from = part;
		if (!n->gone)
			merge_raise(p->d->index, n->idx, part);
	}
	pthread_mutex_unlock(&v->node_lock);
	return r;
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

/* A directory's copy keeps its extended attributes too, as fuse-overlayfs's
 * does (a user.* tag, a security label, an ACL). */
static int copy_dir_xattrs(struct view *v, struct view_node *n, const char *tmp)
{
	int src = view_open(v, n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW), dst;

	if (src == -EACCES)
		return 0;  /* a daemon that may not read it cannot list them either */
	if (src < 0)
		return src;
	dst = openat(v->layers.workfd, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dst < 0) {
		close(src);
		return -errno;
	}
	copy_xattrs(src, dst);
	close(dst);
	close(src);
	return 0;
}

/* Gives directory n, whose parent the upper layer has, its upper copy
 * (the parent's change lock held). */
static int copy_dir_one(struct view *v, struct view_node *n)
{
	char tmp[32];
	struct stat st;
	int r;

	pthread_mutex_lock(&v->node_lock);
	r = view_in_upper(n);
	pthread_mutex_unlock(&v->node_lock);
	if (r)
		return 0;
	r = view_stat(v, n, &st);  /* mode, owner, times: what a copy keeps */
	upper_temp(tmp);
	if (r == 0 && mkdirat(v->layers.workfd, tmp, 0700) < 0)
		r = -errno;
	if (r == 0)
		r = copy_dir_xattrs(v, n, tmp);
	if (r == 0 && (r = copy_attrs(v, tmp, &st)) == 0)
		r = raise_node(v, n, tmp, true);
	if (r < 0)
		layer_clear_work(v->layers.workfd, tmp);
	return r;
}

/* Gives directory n, whose parent the upper layer has, its upper copy. */
static int copy_dir(struct view *v, struct view_node *n)
{
	struct view_node *p = n->parent;
	int r = view_index(v, p);

	if (r < 0)
		return r;
	pthread_mutex_lock(&p->d->change);
	r = copy_dir_one(v, n);
	pthread_mutex_unlock(&p->d->change);
	view_index_done(v, p);
	return r;
}

/*
 * Makes sure the upper layer has directory dir, copying up each ancestor it
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

/* Copies the non-directory n up, its parent being there (its change
 * lock held): made whole in the work directory and moved into place. */
static int copy_file_one(struct view *v, struct view_node *n)
{
	struct stat st;
	char tmp[32];
	int r;

	if (n->layer == 0)
		return 0;
	r = view_stat(v, n, &st);
	upper_temp(tmp);
	if (r == 0)
		r = copy_object(v, n, tmp, &st);
	if (r == 0 && (r = copy_attrs(v, tmp, &st)) == 0)
		r = raise_node(v, n, tmp, false);
	if (r < 0)
		layer_clear_work(v->layers.workfd, tmp);
	else
		view_readers_move(v, n);
	return r;
}

/*
 * Copies the non-directory n up: its parent first, then n alone (the
 * group's other objects stay where they are, hidden by the copy, which is
 * of the top layer now).
 * A rename (which copies n up itself) may move n between the read of its
 * parent and the hold of that parent's change lock: then n's new parent
 * is the one to look at.
 */
int upper_copy(struct view *v, struct view_node *n)
{
	struct view_node *p;
	bool moved;
	int r;

	do {
		pthread_mutex_lock(&v->node_lock);
		p = n->parent;
		r = n->layer == 0 ? 1 : n->gone ? -ENOENT : 0;
		pthread_mutex_unlock(&v->node_lock);
		if (r != 0)
			return r < 0 ? r : 0;
		if ((r = upper_dir(v, p)) < 0 || (r = view_index(v, p)) < 0)
			return r;
		pthread_mutex_lock(&p->d->change);
		pthread_mutex_lock(&v->node_lock);
		moved = n->parent != p;
		pthread_mutex_unlock(&v->node_lock);
		r = moved ? 0 : n->gone ? -ENOENT : copy_file_one(v, n);
		pthread_mutex_unlock(&p->d->change);
		view_index_done(v, p);
	} while (moved);
	return r;
}

/*
 * Puts a fresh whiteout at name in dirfd, made in the work directory and
 * moved there by renameat2 with flags: RENAME_NOREPLACE where nothing is,
 * 0 over a non-directory, RENAME_EXCHANGE with a directory (which can hold
 * only whiteouts then), emptied in the work directory afterwards.
 */
static int whiteout_at(struct view *v, int dirfd, const char *name, unsigned flags)
{
	int w = v->layers.workfd, r;
	char tmp[32];

	upper_temp(tmp);
	if ((r = marker_make_whiteout(w, tmp)) < 0)
		return r;
	r = renameat2(w, tmp, dirfd, name, flags) < 0 ? -errno : 0;
	if (r < 0 || (flags & RENAME_EXCHANGE))
		layer_clear_work(w, tmp);
	return r;
}

/* Whether name in dirfd is a whiteout this view writes (0/0). */
static bool whiteout_there(int dirfd, const char *name)
{
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISCHR(st.st_mode) &&
	       st.st_rdev == makedev(0, 0);
}

/* Keeps the whiteout that came to name in dirfd as one this view writes:
 * a whiteout marked by an xattr is one only in a directory marked too. */
static int keep_whiteout(struct view *v, int dirfd, const char *name)
{
	return whiteout_there(dirfd, name) ? 0 : whiteout_at(v, dirfd, name, 0);
}

/*
 * The step that ends every placement: the object m->from becomes m->to.
 * Over a whiteout of the very spelling the two trade places (a directory
 * cannot replace a file), so that the lower name never shows in between;
 * the whiteout, now at from, stays if a whiteout is wanted there and goes
 * if not.  Over a whiteout of another spelling the object moves first and
 * the whiteout goes after: a daemon killed in between leaves both, which
 * the view reads as the move done (in one directory an object goes before
 * a whiteout of its group, merge.c) — never the lower name back, nor the
 * object under a spelling nobody asked for.  A group may have several
 * whiteouts in one directory (such a kill, another tool): the index
 * records one (m->old), and one of to's very spelling is found here.
 */
int upper_move(struct view *v, const struct upper_move *m)
{
	unsigned flags = (m->replace ? 0 : RENAME_NOREPLACE) | (m->behind ? RENAME_WHITEOUT : 0);
	bool exact = *m->old && strcmp(m->old, m->to) == 0;
	int r;

	if (exact || (!m->replace && whiteout_there(m->tofd, m->to))) {
		if (renameat2(m->fromfd, m->from, m->tofd, m->to, RENAME_EXCHANGE) < 0)
			return -errno;
		if (*m->old && !exact)
			unlinkat(m->tofd, m->old, 0);
		if (m->behind)
			return keep_whiteout(v, m->fromfd, m->from);
		unlinkat(m->fromfd, m->from, 0);
		return 0;
	}
	r = renameat2(m->fromfd, m->from, m->tofd, m->to, flags) < 0 ? -errno : 0;
	/* A filesystem without RENAME_WHITEOUT: the whiteout follows (a daemon
	 * killed in between shows the lower name at from again). */
	if (r == -EINVAL && m->behind &&
	    renameat2(m->fromfd, m->from, m->tofd, m->to, flags & ~RENAME_WHITEOUT) == 0)
		r = whiteout_at(v, m->fromfd, m->from, RENAME_NOREPLACE);
	if (r == 0 && *m->old)
		unlinkat(m->tofd, m->old, 0);
	return r;
}

/*
 * Moves the finished tmp to name in dir's upper layer, over the group's
 * whiteout there, in the whiteout's part (whiteout: the group's entry,
 * MERGE_NONE if none), else in the part new names go to; *part: where.
 */
int upper_place(struct view *v, struct view_node *dir, const char *tmp, const char *name,
		uint32_t whiteout, unsigned *part)
{
	char old[CFS_NAME_MAX + 8] = "";
	int pfd, r;

	pthread_mutex_lock(&v->node_lock);
	if (whiteout != MERGE_NONE && merge_entry(dir->d->index, whiteout)->layer == 0) {
		merge_stored(dir->d->index, whiteout, old, sizeof(old));
		*part = merge_entry(dir->d->index, whiteout)->from;
	}
	pthread_mutex_unlock(&v->node_lock);
	pfd = *old ? upper_open_part(v, dir, *part) : upper_open(v, dir, part);
	if (pfd < 0)
		return pfd;
	r = upper_move(v, &(struct upper_move){ .fromfd = v->layers.workfd, .from = tmp,
						.tofd = pfd, .to = name, .old = old });
	close(pfd);
	return r;
}

/* Whether the open directory dirfd holds any entry. */
static bool holds_entries(int dirfd)
{
	_Alignas(struct dirent64) char buf[1024];
	ssize_t n = getdents64(dirfd, buf, sizeof(buf));

	for (ssize_t off = 0; off < n;) {
		const struct dirent64 *de = (const struct dirent64 *)(buf + off);

		off += de->d_reclen;
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			return true;
	}
	return n < 0;
}

/*
 * Makes the upper directory name of pfd, empty in the view but perhaps
 * holding whiteouts, truly empty so that a directory can replace it: an
 * empty opaque copy of it (its xattrs, mode, owner, times) takes its place
 * in one step, as overlayfs clears one, and the old one is emptied in the
 * work directory.  Emptied in place, it would show what its whiteouts hid
 * if the daemon were killed before the rename that replaces it.
 */
int upper_clear_dir(struct view *v, int pfd, const char *name)
{
	int w = v->layers.workfd, fd, copy, r;
	char tmp[32];
	struct stat st;

	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (!holds_entries(fd)) {
		close(fd);
		return 0;
	}
	upper_temp(tmp);
	r = fstat(fd, &st) < 0 || mkdirat(w, tmp, 0700) < 0 ? -errno : 0;
	if (r == 0) {
		copy = openat(w, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (copy < 0)
			r = -errno;
		else {
			copy_xattrs(fd, copy);
			close(copy);
		}
	}
	close(fd);
	if (r == 0 && (r = marker_set_opaque(w, tmp)) == 0 && (r = copy_attrs(v, tmp, &st)) == 0 &&
	    renameat2(w, tmp, pfd, name, RENAME_EXCHANGE) < 0)
		r = -errno;
	layer_clear_work(w, tmp);
	return r;
}

/*
 * Puts a whiteout at name in dir's upper part `part`: where nothing is, or
 * in one step over the upper object there (a directory, which can hold
 * only whiteouts then, trades places with it and is emptied in the work
 * directory).
 */
int upper_whiteout(struct view *v, struct view_node *dir, unsigned part, const char *name,
		   enum upper_over over)
{
	static const unsigned flags[] = { [UPPER_NEW] = RENAME_NOREPLACE, [UPPER_OVER_FILE] = 0,
					  [UPPER_OVER_DIR] = RENAME_EXCHANGE };
	int pfd = upper_open_part(v, dir, part), r;

	if (pfd < 0)
		return pfd;
	r = whiteout_at(v, pfd, name, flags[over]);
	close(pfd);
	return r;
}

/*
 * Removes the upper object name of dir's part `part` that covers nothing
 * below.  A directory may still hold whiteouts of what it once covered: it
 * is moved to the work directory and emptied there.
 */
int upper_discard(struct view *v, struct view_node *dir, unsigned part, const char *name,
		  bool isdir)
{
	int pfd = upper_open_part(v, dir, part), r;
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

/* The objects of cn's group in the open directory dirfd but keep: their
 * names, one after another, NUL-terminated, in buf (as many as fit). */
static size_t group_objects(struct view *v, int dirfd, const struct cfs_name *cn,
			    const char *keep, char *buf, size_t len)
{
	_Alignas(struct dirent64) char de_buf[8192];
	enum marker_dir md = marker_dir(dirfd);
	size_t used = 0;
	ssize_t n;

	while ((n = getdents64(dirfd, de_buf, sizeof(de_buf))) > 0)
		for (ssize_t off = 0; off < n;) {
			const struct dirent64 *de = (const struct dirent64 *)(de_buf + off);
			size_t l = strlen(de->d_name);

			off += de->d_reclen;
			if ((keep && strcmp(de->d_name, keep) == 0) || marker_dotwh(de->d_name) ||
			    !names_match(&v->names, CFS_FOLD, de->d_name, l, cn->s, cn->len) ||
			    marker_is_whiteout(dirfd, de->d_name, de->d_type, md) ||
			    used + l + 1 > len)
				continue;
			memcpy(buf + used, de->d_name, l + 1);
			used += l + 1;
		}
	return used;
}

/*
 * Whites out every object of cn's group that dir's upper parts hold but
 * the one named keep in part `part` (keep NULL: all of them): the twins an
 * upper layer may hold (written by hand, or by a casefoldfs before issue
 * 41), which the group's shown object hid, and which would show once it
 * goes.  A whiteout beside the object of its group that stays is what
 * a kill between two moves leaves too (upper_move): the object shows.
 * Done before the change to the shown object, so that a kill in between
 * leaves the view as it was (the shown object hid them).  Change lock.
 */
int upper_losers(struct view *v, struct view_node *dir, const struct cfs_name *cn,
		 unsigned part, const char *keep)
{
	char names[4 * (CFS_NAME_MAX + 1)], path[PATH_MAX];

	for (unsigned i = 0;; i++) {
		bool last, upper;
		size_t used;
		int fd, r;

		pthread_mutex_lock(&v->node_lock);
		last = i >= dir->d->nparts;
		upper = !last && dir->d->parts[i].layer == 0 && dir->d->parts[i].name;
		pthread_mutex_unlock(&v->node_lock);
		if (last)
			return 0;
		if (!upper)
			continue;
		if ((r = view_part_path(v, dir, i, NULL, path, sizeof(path))) < 0 ||
		    (fd = r = layer_open(&v->layers, 0, path, O_RDONLY | O_DIRECTORY, 0)) < 0)
			return r;
		/* A pass whites out what fits in names; the next finds the rest. */
		do {
			used = lseek(fd, 0, SEEK_SET) < 0 ? 0
				: group_objects(v, fd, cn, i == part ? keep : NULL, names,
						sizeof(names));
			for (size_t k = 0, l; r >= 0 && k < used; k += l + 1) {
				struct stat st;

				l = strlen(names + k);
				r = fstatat(fd, names + k, &st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno
				    : whiteout_at(v, fd, names + k,
						  S_ISDIR(st.st_mode) ? RENAME_EXCHANGE : 0);
			}
		} while (r >= 0 && used > 0);
		close(fd);
		if (r < 0)
			return r;
	}
}

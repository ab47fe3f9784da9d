/*
 * An overlay view's names: lookups and listings from the merged indexes,
 * and every change to names, made in the upper layer (upper.c) and then in
 * the index, under the directory's change lock.  The dentry rule is the
 * tree mode's (dentries.c): the whole view folds, so every directory records
 * what it handed out, under the node lock that also guards the index, so
 * that a lookup's answer and a change's bump are ordered.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"
#include "view/ovl_ops.h"

/* n's entry for the kernel; the caller has counted the reference. */
int ovl_entry(struct view *v, struct view_node *n, double entry_ttl, struct fk_entry_param *e)
{
	int r;

	memset(e, 0, sizeof(*e));
	e->ino = view_id(v, n);
	e->entry_timeout = entry_ttl;
	r = view_stat(v, n, &e->attr);
	e->attr_timeout = ovl_attr_ttl(v, &e->attr);
	return r;
}

/*
 * How long the kernel may keep attributes st of an object.  A file with
 * several links may be reached through another name, so another node:
 * the kernel cannot tell that a write through one changes the other.
 */
double ovl_attr_ttl(const struct view *v, const struct stat *st)
{
	return S_ISDIR(st->st_mode) || st->st_nlink <= 1 ? v->timeout : 0.0;
}

/* The shown entry of dir that name finds, with a reference for the kernel. */
static struct view_node *find_node(struct view *v, struct view_node *dir, struct cfs_name *cn,
				   double *ttl)
{
	struct view_node *n = NULL;
	uint32_t idx;

	pthread_mutex_lock(&v->node_lock);
	idx = merge_find(dir->d->index, &v->names, cn, NULL);
	if (idx == MERGE_NONE) {
		*ttl = dent_negative(&v->dentries, &dir->d->dcache, &v->names, CFS_FOLD, cn) ?
		       v->timeout : 0.0;
	} else if ((n = view_child(v, dir, idx))) {
		n->nlookup++;
		*ttl = dent_positive(&v->dentries, &dir->d->dcache, &v->names, CFS_FOLD, cn,
				     n->name) ? v->timeout : 0.0;
	}
	/* A dentry of another spelling than shown: a restack names it (handed.c). */
	if (*ttl > 0 && (!n || strcmp(cn->s, n->name) != 0))
		handed_add(v, dir, cn);
	pthread_mutex_unlock(&v->node_lock);
	return n;
}

void ovl_lookup(fk_req_t req, fk_ino_t parent, const char *name)
{
	struct view *v = view_of(req);
	struct view_node *dir = view_node(v, parent), *n, *linked;
	struct cfs_name cn = names_name(name);
	struct fk_entry_param e;
	double ttl = 0.0;
	int r;

	if (cn.len > CFS_NAME_MAX) {
		fk_reply_err(req, ENAMETOOLONG);
		return;
	}
	if ((r = view_index(v, dir)) < 0) {
		fk_reply_err(req, -r);
		return;
	}
	n = find_node(v, dir, &cn, &ttl);
	view_index_done(v, dir);
	if (!n) {
		memset(&e, 0, sizeof(e));
		e.entry_timeout = ttl;
		fk_reply_entry(req, &e);
		return;
	}
	if ((r = ovl_entry(v, n, ttl, &e)) < 0) {
		view_forget(v, n, 1);
		fk_reply_err(req, -r);
		return;
	}
	linked = view_links(v, n, &e.attr);
	if (linked != n) {
		view_forget(v, n, 1);
		e.ino = view_id(v, linked);
	}
	fk_reply_entry(req, &e);
}

void ovl_forget(fk_req_t req, fk_ino_t ino, uint64_t nlookup)
{
	struct view *v = view_of(req);

	view_forget(v, view_node(v, ino), nlookup);
	fk_reply_none(req);
}

void ovl_forget_multi(fk_req_t req, size_t count, struct fk_forget_data *list)
{
	struct view *v = view_of(req);

	for (size_t i = 0; i < count; i++)
		view_forget(v, view_node(v, list[i].ino), list[i].nlookup);
	fk_reply_none(req);
}

/* An open directory keeps its index, which its listing reads by offset. */
void ovl_opendir(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi)
{
	struct view *v = view_of(req);
	struct view_node *dir = view_node(v, ino);
	int r = view_index(v, dir);

	if (r < 0) {
		fk_reply_err(req, -r);
		return;
	}
	fi->fh = view_listing_open(v, dir);
	view_opened(v, dir, 1);
	view_index_done(v, dir);
	if (fk_reply_open(req, fi) != 0) {
		view_opened(v, dir, -1);
		view_listing_close(v, dir, fi->fh);
	}
}

void ovl_releasedir(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi)
{
	struct view *v = view_of(req);

	view_opened(v, view_node(v, ino), -1);
	view_listing_close(v, view_node(v, ino), fi->fh);
	fk_reply_err(req, 0);
}

/*
 * A listing is the index in entry order: offset 1 is ".", 2 "..", and
 * entry i is offset i + 3, so offsets survive entries coming and going.
 * READDIRPLUS gives directories their node and attributes too, so that a
 * walk down the tree (find, a game's loader) finds each dentry made and
 * asks no LOOKUP; other entries go as plain readdir gives them (node 0:
 * the kernel makes no dentry), as stat'ing every file would cost the
 * daemon a path walk per name that a listing alone never needs.  A
 * listing opened before a restack reads the index it began on (gen), and
 * then makes no nodes: its entries are no longer the view's.
 */
static void list(fk_req_t req, fk_ino_t ino, size_t size, off_t off, bool plus, uint64_t gen)
{
	struct view *v = view_of(req);
	struct view_node *dir = view_node(v, ino);
	char *buf = malloc(size), name[CFS_NAME_MAX + 1];
	size_t used = 0, len;

	if (!buf) {
		fk_reply_err(req, ENOMEM);
		return;
	}
	for (;;) {
		struct fk_entry_param e = { 0 };
		struct view_node *n = NULL;
		uint32_t idx = MERGE_NONE;
		struct stat shown;
		off_t next;

		struct merge *m;

		pthread_mutex_lock(&v->node_lock);
		m = view_listing_index(dir, gen);
		if (off < 2) {
			snprintf(name, sizeof(name), "%s", off == 0 ? "." : "..");
			e.attr.st_ino = off == 0 ? dir->ino : 1;
			e.attr.st_mode = S_IFDIR;
		} else if ((idx = merge_next(m, (uint32_t)(off - 2))) != MERGE_NONE) {
			const struct merge_entry *me = merge_entry(m, idx);

			snprintf(name, sizeof(name), "%s", merge_name(m, idx));
			e.attr.st_ino = me->ino;
			e.attr.st_mode = DTTOIF(me->type);
			if (plus && me->type == DT_DIR && m == dir->d->index &&
			    (n = view_child(v, dir, idx)))
				n->nlookup++;
		}
		pthread_mutex_unlock(&v->node_lock);
		if (off >= 2 && idx == MERGE_NONE)
			break;
		next = idx == MERGE_NONE ? off + 1 : (off_t)idx + 3;
		shown = e.attr;
		if (n && ovl_entry(v, n, v->timeout, &e) < 0) {
			view_forget(v, n, 1);
			n = NULL;
			memset(&e, 0, sizeof(e));
			e.attr = shown;
		}
		len = plus ? fk_add_direntry_plus(req, buf + used, size - used, name, &e, next)
			   : fk_add_direntry(req, buf + used, size - used, name, &e.attr, next);
		if (len > size - used) {
			if (n)
				view_forget(v, n, 1);
			break;
		}
		used += len;
		off = next;
	}
	fk_reply_buf(req, buf, used);
	free(buf);
}

void ovl_readdir(fk_req_t req, fk_ino_t ino, size_t size, off_t off,
		 struct fk_file_info *fi)
{
	list(req, ino, size, off, false, fi->fh);
}

void ovl_readdirplus(fk_req_t req, fk_ino_t ino, size_t size, off_t off,
		     struct fk_file_info *fi)
{
	list(req, ino, size, off, true, fi->fh);
}

/* What a new object of a directory is made as (in the work directory). */
struct made {
	mode_t mode;
	dev_t rdev;
	const char *target;        /* symlinks */
	const char *link_from;     /* hard links: /proc/self/fd/N of the object, */
	struct view_node *linked;  /* and its node, which the new name shows */
	struct fk_file_info *fi; /* create: the open file */
	int fd;
};

static int make_object(struct view *v, const char *tmp, struct made *m)
{
	int w = v->layers.workfd;

	if (m->link_from)
		return linkat(AT_FDCWD, m->link_from, w, tmp, AT_SYMLINK_FOLLOW) < 0 ? -errno : 0;
	switch (m->mode & S_IFMT) {
	case S_IFDIR:
		return mkdirat(w, tmp, m->mode & 07777) < 0 ? -errno : 0;
	case S_IFLNK:
		return symlinkat(m->target, w, tmp) < 0 ? -errno : 0;
	case S_IFREG:
		if (m->fi) {
			m->fd = openat(w, tmp, (m->fi->flags & ~(O_CREAT | O_EXCL | O_TRUNC)) |
				       O_CREAT | O_EXCL | O_CLOEXEC, m->mode & 07777);
			return m->fd < 0 ? -errno : 0;
		}
		return mknodat(w, tmp, m->mode, 0) < 0 ? -errno : 0;
	default:
		return mknodat(w, tmp, m->mode, m->rdev) < 0 ? -errno : 0;
	}
}

/*
 * A name that may be given to an object of the view.  A ".wh." name would
 * read, at the next mount, as the whiteout fuse-overlayfs writes.
 */
static int check_new(struct view *v, struct cfs_name *cn)
{
	int r = names_check_create(&v->names, CFS_FOLD, cn);

	return r == 0 && marker_dotwh(cn->s) ? -EINVAL : r;
}

/*
 * In a directory with the set-group-ID bit, a new object takes the
 * directory's group, and a new directory the bit too, as on ext4 (and
 * overlayfs, which leaves it to the upper filesystem).  The kernel has
 * already dropped the bit from a file's mode where the caller may not set
 * it.
 */
static int inherit_group(struct view *v, struct view_node *dir, gid_t *gid, mode_t *mode)
{
	struct stat st;
	int r = view_stat(v, dir, &st);

	if (r < 0 || !(st.st_mode & S_ISGID))
		return r;
	*gid = st.st_gid;
	if (S_ISDIR(*mode))
		*mode |= S_ISGID;
	return 0;
}

/*
 * Makes name in dir: the object whole in the work directory, then moved
 * into place over the group's whiteout, then entered in the index.  A
 * directory made where a lower layer had one of the group is opaque.
 */
static int make_indexed(struct view *v, fk_req_t req, struct view_node *dir,
			const char *name, struct made *m, struct view_node **out)
{
	const struct fk_ctx *ctx = fk_req_ctx(req);
	struct cfs_name cn = names_name(name);
	bool isdir = S_ISDIR(m->mode);
	gid_t gid = ctx->gid;
	uint32_t idx, wh;
	unsigned flags = 0, part = 0;
	char tmp[32];
	struct stat st;
	int r;

	if ((r = check_new(v, &cn)) < 0 ||
	    (r = view_room(v, dir, cn.len)) < 0 || (r = upper_dir(v, dir)) < 0 ||
	    (r = inherit_group(v, dir, &gid, &m->mode)) < 0)
		return r;
	pthread_mutex_lock(&dir->d->change);
	pthread_mutex_lock(&v->node_lock);
	idx = merge_find(dir->d->index, &v->names, &cn, &wh);
	/* Over the group's whiteout: what it hid stays hidden, by the object
	 * (an upper one's group may hold directories below, which must not
	 * merge; a lower one hides them itself). */
	if (wh != MERGE_NONE)
		flags = MERGE_COVERS;
	if (wh != MERGE_NONE && isdir && merge_entry(dir->d->index, wh)->layer == 0)
		flags |= MERGE_OPAQUE | MERGE_CLOSED;
	pthread_mutex_unlock(&v->node_lock);
	r = idx != MERGE_NONE ? -EEXIST : 0;
	upper_temp(tmp);
	if (r == 0 && (r = make_object(v, tmp, m)) == 0 &&
	    (m->link_from || (r = upper_own(v, tmp, ctx->uid, gid, m->mode)) == 0) &&
	    (!(flags & MERGE_OPAQUE) || (r = marker_set_opaque(v->layers.workfd, tmp)) == 0) &&
	    (r = fstatat(v->layers.workfd, tmp, &st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0) == 0)
		r = upper_place(v, dir, tmp, name, wh, &part);
	if (r < 0) {
		if (idx == MERGE_NONE)
			layer_clear_work(v->layers.workfd, tmp);
		if (m->fi && m->fd >= 0)
			close(m->fd);
		pthread_mutex_unlock(&dir->d->change);
		return r;
	}
	pthread_mutex_lock(&v->node_lock);
	if (wh != MERGE_NONE)
		merge_remove(dir->d->index, wh);
	idx = merge_add(dir->d->index, &v->names, &cn, 0, part, IFTODT(st.st_mode),
			layer_ino(&v->layers, 0, st.st_ino), flags);
	*out = idx == MERGE_NONE ? NULL : m->linked ? m->linked : view_child(v, dir, idx);
	if (*out) {
		(*out)->nlookup++;
		(*out)->linked |= m->linked != NULL;
	}
	dent_created(&v->dentries, &dir->d->dcache, &v->names, CFS_FOLD, &cn);
	pthread_mutex_unlock(&v->node_lock);
	pthread_mutex_unlock(&dir->d->change);
	return *out ? 0 : -ENOMEM;
}

static int make(struct view *v, fk_req_t req, struct view_node *dir, const char *name,
		struct made *m, struct view_node **out)
{
	int r;

	if (!v->layers.upper)
		return -EROFS;
	if ((r = view_index(v, dir)) < 0)
		return r;
	r = make_indexed(v, req, dir, name, m, out);
	view_index_done(v, dir);
	return r;
}

static void reply_made(fk_req_t req, struct view *v, struct view_node *n, int r)
{
	struct fk_entry_param e;

	if (r == 0 && (r = ovl_entry(v, n, v->timeout, &e)) < 0)
		view_forget(v, n, 1);
	if (r < 0)
		fk_reply_err(req, -r);
	else
		fk_reply_entry(req, &e);
}

void ovl_mknod(fk_req_t req, fk_ino_t parent, const char *name, mode_t mode, dev_t rdev)
{
	struct view *v = view_of(req);
	struct made m = { .mode = mode, .rdev = rdev, .fd = -1 };
	struct view_node *n = NULL;
	/* A device 0/0 is the view's whiteout: overlayfs refuses it too. */
	int r = S_ISCHR(mode) && rdev == 0 ? -EPERM
					   : make(v, req, view_node(v, parent), name, &m, &n);

	reply_made(req, v, n, r);
}

void ovl_mkdir(fk_req_t req, fk_ino_t parent, const char *name, mode_t mode)
{
	struct view *v = view_of(req);
	struct made m = { .mode = S_IFDIR | (mode & 07777), .fd = -1 };
	struct view_node *n = NULL;
	int r = make(v, req, view_node(v, parent), name, &m, &n);

	reply_made(req, v, n, r);
}

void ovl_symlink(fk_req_t req, const char *target, fk_ino_t parent, const char *name)
{
	struct view *v = view_of(req);
	struct made m = { .mode = S_IFLNK | 0777, .target = target, .fd = -1 };
	struct view_node *n = NULL;
	int r = make(v, req, view_node(v, parent), name, &m, &n);

	reply_made(req, v, n, r);
}

void ovl_create(fk_req_t req, fk_ino_t parent, const char *name, mode_t mode,
		struct fk_file_info *fi)
{
	struct view *v = view_of(req);
	struct made m = { .mode = S_IFREG | (mode & 07777), .fi = fi, .fd = -1 };
	struct view_node *n = NULL;
	struct fk_entry_param e;
	int r = make(v, req, view_node(v, parent), name, &m, &n);

	if (r == 0 && (r = ovl_entry(v, n, v->timeout, &e)) < 0) {
		view_forget(v, n, 1);
		close(m.fd);
	}
	if (r < 0) {
		fk_reply_err(req, -r);
		return;
	}
	fi->fh = (uint64_t)m.fd;
	fi->keep_cache = e.attr.st_nlink <= 1;
	view_opened(v, n, 1);
	if (fk_reply_create(req, &e, fi) != 0) {
		view_opened(v, n, -1);
		close(m.fd);
	}
}

/*
 * A hard link of a lower file links its copy in the upper layer.  The
 * kernel is answered with the source's node, as for any link, so that both
 * names are one inode to it; a later lookup of the new name, once the
 * kernel forgets it, gets a node of its own (see ovl_attr_ttl).
 */
void ovl_link(fk_req_t req, fk_ino_t ino, fk_ino_t newparent, const char *newname)
{
	struct view *v = view_of(req);
	struct view_node *src = view_node(v, ino), *n = NULL;
	char proc[32];
	struct made m = { .mode = S_IFREG, .link_from = proc, .linked = src, .fd = -1 };
	int fd, r = upper_copy(v, src);

	fd = r < 0 ? r : view_open(v, src, O_PATH | O_NOFOLLOW);
	if (fd < 0) {
		fk_reply_err(req, -fd);
		return;
	}
	fd_procpath(fd, proc);
	r = make(v, req, view_node(v, newparent), newname, &m, &n);
	close(fd);
	reply_made(req, v, n, r);
}

/* A shown entry, as read under the node lock. */
struct found {
	uint32_t idx;              /* MERGE_NONE: nothing shown */
	uint32_t whiteout;         /* the group's whiteout, or MERGE_NONE */
	unsigned layer;
	unsigned from;             /* the directory's part holding it */
	unsigned char type;
	uint8_t flags;
	bool merged;               /* a directory with others merged into it */
	char stored[CFS_NAME_MAX + 1];
};

static void find_entry(struct view *v, struct view_node *dir, struct cfs_name *cn,
		       struct found *f)
{
	const struct merge_entry *e;

	pthread_mutex_lock(&v->node_lock);
	f->idx = merge_find(dir->d->index, &v->names, cn, &f->whiteout);
	if (f->idx != MERGE_NONE) {
		e = merge_entry(dir->d->index, f->idx);
		f->layer = e->layer;
		f->from = e->from;
		f->type = e->type;
		f->flags = e->flags;
		f->merged = e->lower != MERGE_NONE;
		snprintf(f->stored, sizeof(f->stored), "%s", merge_name(dir->d->index, f->idx));
	}
	pthread_mutex_unlock(&v->node_lock);
}

/*
 * Before non-directory entry idx of dir loses its name: a node the kernel
 * holds for it that is open, or that the kernel reaches by other names too
 * (a link made through the view answers with the source's node), keeps
 * its object — by a name in the work directory, or a descriptor (view.c,
 * view_keep) — so that fstat of the open file, or a stat through the other
 * name's dentry, still finds it once the node is gone from the view.
 * Change lock held.
 */
static void keep_object(struct view *v, struct view_node *dir, uint32_t idx)
{
	struct view_node *n;
	int fd;

	pthread_mutex_lock(&v->node_lock);
	n = merge_entry(dir->d->index, idx)->node;
	if (n && (n->d || n->kept >= 0 || n->kept_name || !(n->opens || n->linked)))
		n = NULL;
	if (n)
		n->nlookup++;  /* held across the open */
	pthread_mutex_unlock(&v->node_lock);
	if (!n)
		return;
	fd = view_open(v, n, O_PATH | O_NOFOLLOW);
	if (fd >= 0)
		view_keep(v, n, fd);
	view_forget(v, n, 1);
}

/* The entry is gone from the view: out of the index, or a whiteout now,
 * in the directory's upper part `part`. */
static void forget_entry(struct view_node *dir, uint32_t idx, bool whiteout, unsigned part)
{
	struct view_node *n = merge_entry(dir->d->index, idx)->node;

	if (n)
		n->gone = true;
	if (whiteout)
		merge_hide(dir->d->index, idx, part);
	else
		merge_remove(dir->d->index, idx);
}

/*
 * Whether the directory entry f of dir is empty in the view; on 0, *child
 * holds a reference the caller drops with view_forget.
 */
static int check_empty(struct view *v, struct view_node *dir, const struct found *f,
		       struct view_node **child)
{
	bool empty;
	int r;

	pthread_mutex_lock(&v->node_lock);
	*child = view_child(v, dir, f->idx);
	if (*child)
		(*child)->nlookup++;
	pthread_mutex_unlock(&v->node_lock);
	if (!*child)
		return -ENOMEM;
	if ((r = view_index(v, *child)) == 0) {
		pthread_mutex_lock(&v->node_lock);
		empty = merge_empty((*child)->d->index);
		pthread_mutex_unlock(&v->node_lock);
		view_index_done(v, *child);
		r = empty ? 0 : -ENOTEMPTY;
	}
	if (r < 0)
		view_forget(v, *child, 1);
	return r;
}

/*
 * Removes entry f from dir (change lock held): the whole group goes.  An
 * upper object that covers nothing goes; anything else leaves a whiteout,
 * which hides every name of the group below, in the part the object was
 * in (a lower one's: the part new names go to).  Other objects of the
 * group in the upper layer, which f hid, are whited out first.
 */
static int remove_entry(struct view *v, struct view_node *dir, struct cfs_name *cn,
			const struct found *f)
{
	bool isdir = f->type == DT_DIR;
	bool wh = f->layer != 0 || (f->flags & MERGE_COVERS) || f->merged;
	int r = (f->flags & MERGE_UPTWINS) ? upper_losers(v, dir, cn, f->from, f->stored) : 0;
	unsigned part = f->from;

	if (r < 0)
		return r;
	if (!isdir)
		keep_object(v, dir, f->idx);
	if (f->layer != 0 && (r = view_upper_part(v, dir)) >= 0) {
		part = (unsigned)r;
		r = upper_whiteout(v, dir, part, f->stored, UPPER_NEW);
	} else if (f->layer == 0 && wh) {
		r = upper_whiteout(v, dir, part, f->stored, isdir ? UPPER_OVER_DIR : UPPER_OVER_FILE);
	} else if (f->layer == 0) {
		r = upper_discard(v, dir, part, f->stored, isdir);
	}
	if (r < 0)
		return r;
	pthread_mutex_lock(&v->node_lock);
	forget_entry(dir, f->idx, wh, part);
	dent_removed(&v->dentries, &dir->d->dcache, &v->names, CFS_FOLD, cn, f->stored);
	pthread_mutex_unlock(&v->node_lock);
	return 0;
}

static int remove_indexed(struct view *v, struct view_node *dir, const char *name,
			  bool isdir)
{
	struct cfs_name cn = names_name(name);
	struct view_node *child = NULL;
	struct found f;
	int r;

	find_entry(v, dir, &cn, &f);
	if (f.idx == MERGE_NONE)
		return -ENOENT;
	if (isdir != (f.type == DT_DIR))
		return isdir ? -ENOTDIR : -EISDIR;
	if (isdir && (r = check_empty(v, dir, &f, &child)) < 0)
		return r;
	if ((r = upper_dir(v, dir)) == 0) {
		if (child)
			view_lock2(dir, child);
		else
			pthread_mutex_lock(&dir->d->change);
		find_entry(v, dir, &cn, &f);  /* a change may have come between */
		r = f.idx == MERGE_NONE ? -ENOENT : remove_entry(v, dir, &cn, &f);
		if (child)
			view_unlock2(dir, child);
		else
			pthread_mutex_unlock(&dir->d->change);
	}
	if (child)
		view_forget(v, child, 1);
	return r;
}

static int remove_name(struct view *v, struct view_node *dir, const char *name, bool isdir)
{
	int r;

	if (!v->layers.upper)
		return -EROFS;
	if ((r = view_index(v, dir)) < 0)
		return r;
	r = remove_indexed(v, dir, name, isdir);
	view_index_done(v, dir);
	return r;
}

void ovl_unlink(fk_req_t req, fk_ino_t parent, const char *name)
{
	struct view *v = view_of(req);

	fk_reply_err(req, -remove_name(v, view_node(v, parent), name, false));
}

void ovl_rmdir(fk_req_t req, fk_ino_t parent, const char *name)
{
	struct view *v = view_of(req);

	fk_reply_err(req, -remove_name(v, view_node(v, parent), name, true));
}

/* What a rename finds at both ends, read again under both change locks. */
struct move {
	struct view_node *src, *dst, *node;
	struct cfs_name scn, dcn;
	struct found s, d;
	unsigned dpart;            /* the destination's upper part it goes to */
};

/* Whether the source needs a whiteout once moved: it covers a lower name
 * of its group. */
static bool source_whiteout(const struct move *mv)
{
	return mv->s.flags & MERGE_COVERS;
}

/* Whether the destination's group covers something below the upper layer. */
static bool dest_covers(const struct move *mv)
{
	const struct found *d = &mv->d;

	if (d->idx != MERGE_NONE)
		return d->layer != 0 || (d->flags & MERGE_COVERS) || d->merged;
	return d->whiteout != MERGE_NONE;
}

static bool same_file(int adir, const char *a, int bdir, const char *b)
{
	struct stat sa, sb;

	return fstatat(adir, a, &sa, AT_SYMLINK_NOFOLLOW) == 0 &&
	       fstatat(bdir, b, &sb, AT_SYMLINK_NOFOLLOW) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/*
 * Where the moved object goes in the destination's upper layer: in place
 * of the group's upper object or whiteout, in its part (*old: the
 * whiteout's stored name), else in the part new names go to.
 */
static int dest_part(struct view *v, struct move *mv, char *old, size_t len)
{
	const struct found *d = &mv->d;
	const struct merge_entry *e = NULL;
	int r;

	pthread_mutex_lock(&v->node_lock);
	if (d->whiteout != MERGE_NONE && merge_entry(mv->dst->d->index, d->whiteout)->layer == 0) {
		e = merge_entry(mv->dst->d->index, d->whiteout);
		merge_stored(mv->dst->d->index, d->whiteout, old, len);
	} else if (d->idx != MERGE_NONE && d->layer == 0) {
		e = merge_entry(mv->dst->d->index, d->idx);
	}
	r = e ? (int)e->from : 0;
	pthread_mutex_unlock(&v->node_lock);
	if (!e)
		r = view_upper_part(v, mv->dst);
	if (r >= 0)
		mv->dpart = (unsigned)r;
	return r < 0 ? r : upper_open_part(v, mv->dst, mv->dpart);
}

/*
 * The upper layer's part of a rename (both change locks held): 0, 1 when
 * there is nothing to do (two links of one file), or -errno.  The other
 * objects of both groups in the upper layer go first (upper_losers): the
 * source's group is gone from its directory afterwards, and the
 * destination's shows the moved object only.
 */
static int move_upper(struct view *v, struct move *mv, const char *to)
{
	const struct found *s = &mv->s, *d = &mv->d;
	bool isdir = s->type == DT_DIR, wh = source_whiteout(mv);
	bool replace = d->idx != MERGE_NONE && d->layer == 0;
	char old[CFS_NAME_MAX + 8] = "";
	int spfd, dpfd, r = 0;

	spfd = upper_open_part(v, mv->src, s->from);
	dpfd = spfd < 0 ? spfd : dest_part(v, mv, old, sizeof(old));
	if (dpfd < 0) {
		if (spfd >= 0)
			close(spfd);
		return dpfd;
	}
	/* Two links of one file: rename(2) does nothing, and so does the view. */
	if (replace && same_file(spfd, s->stored, dpfd, d->stored)) {
		close(spfd);
		close(dpfd);
		return 1;
	}
	if (s->flags & MERGE_UPTWINS)
		r = upper_losers(v, mv->src, &mv->scn, s->from, s->stored);
	if (r == 0 && (d->flags & MERGE_UPTWINS) && d->idx != MERGE_NONE)
		r = upper_losers(v, mv->dst, &mv->dcn, d->from, d->stored);
	if (r == 0 && replace && !isdir)
		keep_object(v, mv->dst, d->idx);
	/* A directory moved over something lower must not merge with it. */
	if (r == 0 && isdir && dest_covers(mv))
		r = marker_set_opaque(spfd, s->stored);
	if (r == 0 && replace && d->type == DT_DIR)
		r = upper_clear_dir(v, dpfd, d->stored);
	if (r == 0)
		r = upper_move(v, &(struct upper_move){ .fromfd = spfd, .from = s->stored,
							.tofd = dpfd, .to = to, .old = old,
							.replace = replace, .behind = wh });
	close(spfd);
	close(dpfd);
	return r;
}

/* A moved directory (only an upper one moves, EXDEV else) keeps its upper
 * part, renamed, in the destination's part `from` (node lock). */
static void move_parts(struct view_node *n, unsigned from, char *name)
{
	for (unsigned i = 0; i < n->d->nparts; i++) {
		struct view_part *p = &n->d->parts[i];

		free(p->name);
		p->name = NULL;
		if (p->layer == 0 && name) {
			p->name = name;
			p->from = from;
			name = NULL;
		}
	}
	free(name);
}

/* The index's part of a rename, and the node's (node lock held). */
static int move_index(struct view *v, struct move *mv, const char *to)
{
	struct merge *sm = mv->src->d->index, *dm = mv->dst->d->index;
	const struct merge_entry *se = merge_entry(sm, mv->s.idx);
	struct cfs_name tcn = names_name(to);
	unsigned flags = dest_covers(mv) ? MERGE_COVERS : 0;
	unsigned char type = se->type;
	uint64_t ino = se->ino;
	struct view_node *n = mv->node;
	char *name = strdup(to), *dname = n->d ? strdup(to) : NULL;
	uint32_t idx;

	if (!name || (n->d && !dname)) {
		free(name);
		free(dname);
		return -ENOMEM;
	}
	if (type == DT_DIR && flags)
		flags |= MERGE_OPAQUE | MERGE_CLOSED;
	if (mv->d.idx != MERGE_NONE)
		forget_entry(mv->dst, mv->d.idx, false, 0);
	if (mv->d.whiteout != MERGE_NONE)
		merge_remove(dm, mv->d.whiteout);
	merge_entry(sm, mv->s.idx)->node = NULL;
	if (source_whiteout(mv))
		merge_hide(sm, mv->s.idx, mv->s.from);
	else
		merge_remove(sm, mv->s.idx);
	idx = merge_add(dm, &v->names, &tcn, 0, mv->dpart, type, ino, flags);
	if (idx == MERGE_NONE) {
		free(name);
		free(dname);
		n->gone = true;
		return -ENOMEM;
	}
	view_adopt(mv->dst, n);
	n->idx = idx;
	n->from = mv->dpart;
	free(n->name);
	n->name = name;
	if (n->d)
		move_parts(n, mv->dpart, dname);
	merge_entry(dm, idx)->node = n;
	dent_removed(&v->dentries, &mv->src->d->dcache, &v->names, CFS_FOLD, &mv->scn,
		     mv->s.stored);
	if (mv->d.idx != MERGE_NONE) {
		dent_removed(&v->dentries, &mv->dst->d->dcache, &v->names, CFS_FOLD, &mv->dcn,
			     mv->d.stored);
		dent_positive(&v->dentries, &mv->dst->d->dcache, &v->names, CFS_FOLD, &mv->dcn,
			      to);
	} else {
		dent_created(&v->dentries, &mv->dst->d->dcache, &v->names, CFS_FOLD, &mv->dcn);
	}
	return 0;
}

/* Checks what a rename may do before anything is copied up. */
static int move_check(struct view *v, struct move *mv, unsigned flags, struct view_node **victim)
{
	if (mv->s.idx == MERGE_NONE)
		return -ENOENT;
	/*
	 * As overlayfs without redirect_dir: mv copies a directory that shows
	 * a lower one.  An opaque upper directory shows none, whatever lies
	 * below (the parent's index cannot tell: opaqueness is read when a
	 * directory's own index is built).
	 */
	if (mv->s.type == DT_DIR && (mv->s.layer != 0 || mv->s.merged))
		return -EXDEV;
	if (mv->d.idx == MERGE_NONE)
		return 0;
	if (flags & RENAME_NOREPLACE)
		return -EEXIST;
	if ((mv->d.type == DT_DIR) != (mv->s.type == DT_DIR))
		return mv->d.type == DT_DIR ? -EISDIR : -ENOTDIR;
	return mv->d.type == DT_DIR ? check_empty(v, mv->dst, &mv->d, victim) : 0;
}

static int rename_indexed(struct view *v, struct move *mv, unsigned flags)
{
	struct view_node *victim = NULL;
	const char *to;
	int r;

	if ((r = check_new(v, &mv->dcn)) < 0 || (r = view_room(v, mv->dst, mv->dcn.len)) < 0)
		return r;
	find_entry(v, mv->src, &mv->scn, &mv->s);
	find_entry(v, mv->dst, &mv->dcn, &mv->d);
	/* One entry under two spellings: nothing changes, as on ext4. */
	if (mv->src == mv->dst && mv->s.idx != MERGE_NONE && mv->d.idx == mv->s.idx)
		return 0;
	if ((r = move_check(v, mv, flags, &victim)) < 0)
		return r;
	pthread_mutex_lock(&v->node_lock);
	mv->node = view_child(v, mv->src, mv->s.idx);
	if (mv->node)
		mv->node->nlookup++;
	pthread_mutex_unlock(&v->node_lock);
	r = mv->node ? 0 : -ENOMEM;
	if (r == 0 && mv->s.layer != 0)
		r = upper_copy(v, mv->node);
	if (r == 0 && (r = upper_dir(v, mv->src)) == 0 && (r = upper_dir(v, mv->dst)) == 0) {
		view_lock2(mv->src, mv->dst);
		find_entry(v, mv->src, &mv->scn, &mv->s);
		find_entry(v, mv->dst, &mv->dcn, &mv->d);
		to = mv->d.idx != MERGE_NONE ? mv->d.stored : mv->dcn.s;
		r = mv->s.idx == MERGE_NONE || mv->s.layer != 0 ? -ENOENT
		    : mv->src == mv->dst && mv->d.idx == mv->s.idx ? 1
		    : move_upper(v, mv, to);
		if (r == 1)
			r = 0;
		else if (r == 0) {
			pthread_mutex_lock(&v->node_lock);
			r = move_index(v, mv, to);
			pthread_mutex_unlock(&v->node_lock);
		}
		view_unlock2(mv->src, mv->dst);
	}
	if (mv->node)
		view_forget(v, mv->node, 1);
	if (victim)
		view_forget(v, victim, 1);
	return r;
}

static int rename_names(struct view *v, struct move *mv, unsigned flags)
{
	int r;

	if (flags & ~RENAME_NOREPLACE)
		return -EINVAL;
	if (!v->layers.upper)
		return -EROFS;
	if ((r = view_index(v, mv->src)) < 0)
		return r;
	if ((r = view_index(v, mv->dst)) == 0) {
		r = rename_indexed(v, mv, flags);
		view_index_done(v, mv->dst);
	}
	view_index_done(v, mv->src);
	return r;
}

void ovl_rename(fk_req_t req, fk_ino_t parent, const char *name, fk_ino_t newparent,
		const char *newname, unsigned int flags)
{
	struct view *v = view_of(req);
	struct move mv = {
		.src = view_node(v, parent),
		.dst = view_node(v, newparent),
		.scn = names_name(name),
		.dcn = names_name(newname),
	};

	fk_reply_err(req, -rename_names(v, &mv, flags));
}

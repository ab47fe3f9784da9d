/*
 * The operation table of an overlay view: the one place it is filled.
 * Every request that reaches the layers or the nodes holds the view's
 * stack lock shared, so that a restack (restack.c), which holds it
 * exclusive, finds no request half way between a node's layer number and
 * that layer.  READ, WRITE, FSYNC and RELEASE work on the descriptor the
 * open made and go without it: a file open across a restack keeps what
 * it opened, and a slow read never holds a restack back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "view/control.h"
#include "view/ovl_ops.h"

/* ovl_OP, called with the stack lock held shared. */
#define SHARED(op, params, ...)                                         \
	static void shared_##op params                                  \
	{                                                               \
		struct view *v = view_of(req);                          \
		pthread_rwlock_rdlock(&v->stack);                       \
		ovl_##op(__VA_ARGS__);                                  \
		pthread_rwlock_unlock(&v->stack);                       \
	}

SHARED(lookup, (fk_req_t req, fk_ino_t p, const char *n), req, p, n)
SHARED(forget, (fk_req_t req, fk_ino_t i, uint64_t n), req, i, n)
SHARED(forget_multi, (fk_req_t req, size_t c, struct fk_forget_data *l), req, c, l)
SHARED(getattr, (fk_req_t req, fk_ino_t i, struct fk_file_info *fi), req, i, fi)
SHARED(setattr, (fk_req_t req, fk_ino_t i, struct stat *a, int va, struct fk_file_info *fi),
       req, i, a, va, fi)
SHARED(readlink, (fk_req_t req, fk_ino_t i), req, i)
SHARED(mknod, (fk_req_t req, fk_ino_t p, const char *n, mode_t m, dev_t r), req, p, n, m, r)
SHARED(mkdir, (fk_req_t req, fk_ino_t p, const char *n, mode_t m), req, p, n, m)
SHARED(unlink, (fk_req_t req, fk_ino_t p, const char *n), req, p, n)
SHARED(rmdir, (fk_req_t req, fk_ino_t p, const char *n), req, p, n)
SHARED(symlink, (fk_req_t req, const char *t, fk_ino_t p, const char *n), req, t, p, n)
SHARED(rename, (fk_req_t req, fk_ino_t p, const char *n, fk_ino_t np, const char *nn,
		unsigned int f), req, p, n, np, nn, f)
SHARED(link, (fk_req_t req, fk_ino_t i, fk_ino_t np, const char *nn), req, i, np, nn)
SHARED(open, (fk_req_t req, fk_ino_t i, struct fk_file_info *fi), req, i, fi)
SHARED(opendir, (fk_req_t req, fk_ino_t i, struct fk_file_info *fi), req, i, fi)
SHARED(releasedir, (fk_req_t req, fk_ino_t i, struct fk_file_info *fi), req, i, fi)
SHARED(readdir, (fk_req_t req, fk_ino_t i, size_t s, off_t o, struct fk_file_info *fi),
       req, i, s, o, fi)
SHARED(readdirplus, (fk_req_t req, fk_ino_t i, size_t s, off_t o, struct fk_file_info *fi),
       req, i, s, o, fi)
SHARED(statfs, (fk_req_t req, fk_ino_t i), req, i)
SHARED(setxattr, (fk_req_t req, fk_ino_t i, const char *n, const char *va, size_t s, int f),
       req, i, n, va, s, f)
SHARED(getxattr, (fk_req_t req, fk_ino_t i, const char *n, size_t s), req, i, n, s)
SHARED(listxattr, (fk_req_t req, fk_ino_t i, size_t s), req, i, s)
SHARED(removexattr, (fk_req_t req, fk_ino_t i, const char *n), req, i, n)
SHARED(create, (fk_req_t req, fk_ino_t p, const char *n, mode_t m, struct fk_file_info *fi),
       req, p, n, m, fi)

/* Which lower layer of ls the name s is: its path, or its last component
 * if no other lower layer's is the same; -1 after a message. */
static int find_layer(const struct layers *ls, const char *s, char *err, size_t errlen)
{
	int found = -1, by_tail = -1;
	unsigned tails = 0;

	for (unsigned i = ls->upper; i < ls->n; i++) {
		const char *tail = strrchr(ls->l[i].path, '/');

		tail = tail ? tail + 1 : ls->l[i].path;
		if (strcmp(ls->l[i].path, s) == 0)
			found = (int)i;
		else if (strcmp(tail, s) == 0 && tails++ == 0)
			by_tail = (int)i;
	}
	if (found < 0 && tails == 1)
		found = by_tail;
	if (found < 0)
		snprintf(err, errlen, tails ? "%s names %u layers: give its path"
			 : "%s is not a lower layer of the view", s, tails);
	return found;
}

/*
 * The lower layers of the view's stack with one change (control.h): ADD
 * puts a above the layer b names (on top if b is empty), REMOVE takes a
 * out; SET reads a's file, UPPER c's (if given: else the lower layers
 * stay).  -errno, with a message in err.
 */
static int edit_stack(struct view *v, const struct view_ctl *c, struct layer_list *out,
		      char *err, size_t errlen)
{
	const struct layers *ls = &v->layers;
	int at = -1, gone = -1;
	unsigned k = 0;

	if (c->op == VIEW_CTL_SET || (c->op == VIEW_CTL_UPPER && c->c[0]))
		return layer_list_read(out, c->op == VIEW_CTL_SET ? c->a : c->c, err, errlen) < 0
		       ? -EINVAL : 0;
	if (c->op != VIEW_CTL_ADD && c->op != VIEW_CTL_REMOVE && c->op != VIEW_CTL_UPPER) {
		snprintf(err, errlen, "unknown change %u", c->op);
		return -EINVAL;
	}
	if (c->op == VIEW_CTL_REMOVE && (gone = find_layer(ls, c->a, err, errlen)) < 0)
		return -ENOENT;
	if (c->op == VIEW_CTL_ADD)
		at = c->b[0] ? find_layer(ls, c->b, err, errlen) : (int)ls->upper;
	if (c->op == VIEW_CTL_ADD && at < 0)
		return -ENOENT;
	*out = (struct layer_list){ .path = calloc(ls->n + 1, sizeof(char *)) };
	if (!out->path)
		return -ENOMEM;
	for (unsigned i = ls->upper; i < ls->n; i++) {
		if ((int)i == at)
			out->path[k++] = strdup(c->a);
		if ((int)i != gone)
			out->path[k++] = strdup(ls->l[i].path);
	}
	out->n = k;
	for (unsigned i = 0; i < k; i++)
		if (!out->path[i]) {
			layer_list_free(out);
			return -ENOMEM;
		}
	return 0;
}

static void ovl_ioctl(fk_req_t req, fk_ino_t ino, unsigned int cmd, void *arg,
		      struct fk_file_info *fi, unsigned flags, const void *in_buf,
		      size_t in_bufsz, size_t out_bufsz)
{
	struct view *v = view_of(req);
	const struct fk_ctx *ctx = fk_req_ctx(req);
	/* One change at a time: each edits the stack the last one left. */
	static pthread_mutex_t stack_change = PTHREAD_MUTEX_INITIALIZER;
	struct view_ctl c, answer;
	struct layer_list lower;
	int r;

	(void)arg, (void)fi, (void)flags;
	if (cmd != VIEW_CTL_IOC || ino != FUSE_ROOT_ID) {
		fk_reply_err(req, ENOTTY);
		return;
	}
	if (in_bufsz < sizeof(c) || out_bufsz < sizeof(c)) {
		fk_reply_err(req, EINVAL);
		return;
	}
	/* The layers are the mount's: its user's (the daemon's) and root's. */
	if (ctx->uid != 0 && ctx->uid != geteuid()) {
		fk_reply_err(req, EPERM);
		return;
	}
	memcpy(&c, in_buf, sizeof(c));
	c.a[sizeof(c.a) - 1] = c.b[sizeof(c.b) - 1] = c.c[sizeof(c.c) - 1] = '\0';
	pthread_mutex_lock(&stack_change);
	memset(&answer, 0, sizeof(answer));
	r = edit_stack(v, &c, &lower, answer.a, sizeof(answer.a));
	if (r == 0) {
		r = view_restack(v, &lower, c.op == VIEW_CTL_UPPER ? c.a : NULL,
				 c.op == VIEW_CTL_UPPER ? c.b : NULL, answer.a, sizeof(answer.a));
		layer_list_free(&lower);
	}
	fk_reply_ioctl(req, r, &answer, sizeof(answer));
	pthread_mutex_unlock(&stack_change);
}

static const struct fk_ops table = {
	.lookup = shared_lookup,
	.forget = shared_forget,
	.forget_multi = shared_forget_multi,
	.getattr = shared_getattr,
	.setattr = shared_setattr,
	.readlink = shared_readlink,
	.mknod = shared_mknod,
	.mkdir = shared_mkdir,
	.unlink = shared_unlink,
	.rmdir = shared_rmdir,
	.symlink = shared_symlink,
	.rename = shared_rename,
	.link = shared_link,
	.open = shared_open,
	.read = ovl_read,
	.write = ovl_write,
	.release = ovl_release,
	.fsync = ovl_fsync,
	.opendir = shared_opendir,
	.releasedir = shared_releasedir,
	.readdir = shared_readdir,
	.readdirplus = shared_readdirplus,
	.statfs = shared_statfs,
	.setxattr = shared_setxattr,
	.getxattr = shared_getxattr,
	.listxattr = shared_listxattr,
	.removexattr = shared_removexattr,
	.create = shared_create,
	.ioctl = ovl_ioctl,
};

const struct fk_ops *ovl_table(void)
{
	return &table;
}

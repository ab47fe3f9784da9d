/*
 * An overlay view's mount, set up (main.c chooses the mode): the layers
 * opened and checked, the naming rule, the view's nodes.  What can be
 * refused is refused here, before mounting, with a message.
 */
#include <limits.h>
#include <linux/capability.h>
#include <stdio.h>
#include <sys/random.h>

#include "common/caps.h"
#include "common/util.h"
#include "view/view_mount.h"
#include "view/ovl_ops.h"

/* Nothing changes a view's layers behind its back: answers keep a day. */
#define VIEW_TIMEOUT 86400.0

static void view_attach(void *data, struct fk_session *se)
{
	struct view *v = data;

	v->dentries.se = se;
}

static void view_teardown(void *data)
{
	view_destroy(data);
}

/* The daemon's one view. */
static struct view the_view;

int view_mount(const struct view_args *a, struct cfs_mode *mode)
{
	struct view *v = &the_view;
	struct layer_list lower;
	uint64_t key[2];
	char err[PATH_MAX * 2 + 128];
	int r;

	if (a->lowerdir && a->layers) {
		fprintf(stderr, "casefoldfs: lowerdir and layers are two ways to give the same "
			"layers: give one\n");
		return -1;
	}
	/* A layer is an open file: thousands of them need the hard limit. */
	raise_fd_limit();
	r = a->layers ? layer_list_read(&lower, a->layers, err, sizeof(err))
		      : layer_list_parse(&lower, a->lowerdir, err, sizeof(err));
	if (r == 0) {
		r = layers_open(&v->layers, &lower, a->upperdir, a->workdir, a->mountpoint,
				err, sizeof(err));
		layer_list_free(&lower);
	}
	if (r < 0) {
		fprintf(stderr, "casefoldfs: %s\n", err);
		return -1;
	}
	if (getrandom(key, sizeof(key), 0) != (ssize_t)sizeof(key) ||
	    names_init(&v->names, a->encoding ? a->encoding : "utf8-12.1.0", a->strict,
		       a->keep_ignorables, false, key) < 0) {
		fprintf(stderr, "casefoldfs: encoding %s: unknown\n",
			a->encoding ? a->encoding : "utf8-12.1.0");
		layers_close(&v->layers);
		return -1;
	}
	v->can_chown = caps_have(CAP_CHOWN);
	v->keeps_setid = caps_have(CAP_FSETID);
	v->timeout = VIEW_TIMEOUT;
	v->index_limit = (size_t)a->index_mem << 20;  /* 0: view_init's default */
	dent_init(&v->dentries, a->noepoch);
	if (view_init(v) < 0) {
		fprintf(stderr, "casefoldfs: cannot set up the view: out of memory\n");
		view_destroy(v);
		return -1;
	}
	/* No passthrough: a view's files may move up a layer while open
	 * (copy-up), and the daemon serves their data, which then follows. */
	*mode = (struct cfs_mode){
		.ops = ovl_table(), .data = v, .fsname = a->label ? a->label : "overlay",
		.killpriv = true, .attach = view_attach, .destroy = view_teardown,
	};
	return 0;
}

/*
 * The verb view: a mounted overlay view's layers, changed while it stays
 * mounted, by the ioctl casefoldfs answers on the view's root
 * (fs/view/control.h says why an ioctl).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../fs/view/control.h"
#include "diag.h"
#include "verb.h"

/* path made absolute into buf (a layer the daemon resolves from its own
 * directory, not ours); a NAME that is no path stays as given. */
static int absolute(const char *path, char *buf, size_t len, bool must_exist)
{
	char *real = realpath(path, NULL);

	if (!real && must_exist) {
		cli_error("view: %s: %s", path, strerror(errno));
		return -1;
	}
	snprintf(buf, len, "%s", real ? real : path);
	free(real);
	return 0;
}

/* --upper DIR --workdir DIR [--set FILE]: another upper layer, and with
 * --set other lower layers too, in one change (a profile switch). */
static int upper_request(const struct cli_args *args, struct view_ctl *c)
{
	if (!args->workdir)
		return cli_usage("view", "--upper needs --workdir, an empty directory on its "
				 "filesystem");
	if (args->add || args->remove || args->above)
		return cli_usage("view", "--upper goes alone or with --set");
	c->op = VIEW_CTL_UPPER;
	if (absolute(args->upper, c->a, sizeof(c->a), true) < 0 ||
	    absolute(args->workdir, c->b, sizeof(c->b), true) < 0 ||
	    (args->set && absolute(args->set, c->c, sizeof(c->c), true) < 0))
		return CLI_EXIT_TROUBLE;
	return 0;
}

static int request(const struct cli_args *args, struct view_ctl *c)
{
	if (args->upper)
		return upper_request(args, c);
	if (args->workdir)
		return cli_usage("view", "--workdir goes with --upper");
	if (!!args->set + !!args->add + !!args->remove != 1)
		return cli_usage("view", "give one of --set, --add, --remove and --upper");
	if (args->above && !args->add)
		return cli_usage("view", "--above goes with --add");
	if (args->set) {
		c->op = VIEW_CTL_SET;
		return absolute(args->set, c->a, sizeof(c->a), true) < 0 ? CLI_EXIT_TROUBLE : 0;
	}
	if (args->add) {
		c->op = VIEW_CTL_ADD;
		if (absolute(args->add, c->a, sizeof(c->a), true) < 0 ||
		    (args->above && absolute(args->above, c->b, sizeof(c->b), false) < 0))
			return CLI_EXIT_TROUBLE;
		return 0;
	}
	c->op = VIEW_CTL_REMOVE;
	return absolute(args->remove, c->a, sizeof(c->a), false) < 0 ? CLI_EXIT_TROUBLE : 0;
}

static int run_view(const struct cli_args *args)
{
	const char *mnt = args->operands[0];
	struct view_ctl *c = calloc(1, sizeof(*c));
	int fd, r;

	if (!c) {
		cli_error("view: out of memory");
		return CLI_EXIT_TROUBLE;
	}
	if (strcmp(args->operands[1], "layers") != 0) {
		free(c);
		return cli_usage("view", "unknown part '%s' of a view (layers)", args->operands[1]);
	}
	if ((r = request(args, c)) != 0) {
		free(c);
		return r;
	}
	fd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	r = fd < 0 ? -1 : ioctl(fd, VIEW_CTL_IOC, c);
	if (fd < 0)
		cli_error("view: %s: %s", mnt, strerror(errno));
	else if (r < 0 && errno == ENOTTY)
		cli_error("view: %s is not the root of a casefoldfs overlay view", mnt);
	else if (r < 0 && errno == EPERM)
		cli_error("view: %s: only the user who mounted it (or root) may change its "
			  "layers", mnt);
	else if (r < 0)
		cli_error("view: %s: %s", mnt, c->a[0] ? c->a : strerror(errno));
	if (fd >= 0)
		close(fd);
	free(c);
	return r < 0 ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

const struct cli_verb cli_verb_view = {
	.name = "view",
	.options = CLI_OPT_SET | CLI_OPT_ADD | CLI_OPT_ABOVE | CLI_OPT_REMOVE | CLI_OPT_UPPER |
		   CLI_OPT_WORKDIR,
	.min_operands = 2,
	.max_operands = 2,
	.run = run_view,
	.doc = {
		.operands = "MOUNTPOINT layers",
		.summary = "change a mounted overlay view's layers",
		.text = (const char *const[]){
			"Change the layers of the casefoldfs overlay view mounted on\n"
			"MOUNTPOINT while it stays mounted: --set FILE gives the whole\n"
			"lower stack (one directory a line, top first), --add DIR puts\n"
			"one more on top or --above NAME, --remove NAME takes one out.\n"
			"A layer is named by its path, or by its last component if that\n"
			"is unique.  --upper DIR --workdir WORK makes DIR the upper\n"
			"layer (writes go there from then on; a file open in the old one\n"
			"keeps writing there), and with --set FILE switches profile in\n"
			"one change.  A view mounted without an upper layer stays\n"
			"read-only.  Only the user who mounted the view, or root, may.\n"
			"When the command returns, every name whose winner changed is\n"
			"seen by the next lookup; other names keep their cached entries,\n"
			"and files open across the change keep what they opened\n"
			"(casefoldfs(8), \"Changing the layers\").",
			" casefold view ~/skyrim/view layers --add mods/NewMod --above USSEP",
			" casefold view ~/skyrim/view layers --remove NewMod",
			" casefold view ~/skyrim/view layers --set survival.layers \\\n"
			"     --upper ~/skyrim/survival --workdir ~/skyrim/work",
			NULL,
		},
	},
};

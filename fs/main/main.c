/*
 * casefoldfs [-f] [-d] [-o OPTIONS] BACKING MOUNTPOINT
 * casefoldfs [-f] -o lowerdir=A:B[,upperdir=U,workdir=W] [SOURCE] MOUNTPOINT
 *
 * The command line, the choice of the mode (a tree, tree/tree_mount.h; an
 * overlay view, view/view_mount.h), the mount and the session loop.  Everything
 * that can be refused (bad options; in the mode's setup, a contradicted or
 * unreadable superblock, bad layers) is refused before mounting, with a
 * message and exit status 1.
 */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <unistd.h>

/* libfuse: the command line and mounting (fs/kernel/fusermount.h). */
#define FUSE_USE_VERSION FUSE_MAKE_VERSION(3, 12)
#include <fuse_lowlevel.h>

#include "casefold.h"
#include "common/caps.h"
#include "common/leases.h"
#include "kernel/fusermount.h"
#include "kernel/session.h"
#include "kernel/uring.h"
#include "main/log.h"
#include "main/mountcheck.h"
#include "main/optcheck.h"
#include "main/usage.h"
#include "tree/tree_mount.h"
#include "view/view_mount.h"

struct cli {
	struct tree_args tree;  /* a tree's options; a view takes its encoding,
				   strict, keep_ignorables and noepoch too */
	char *fd_cache;         /* -o fd_cache=N, checked by optcheck_number */
	char *index_mem;        /* -o index_mem=MiB */
	char *nfs_nodes;        /* forgotten nodes kept for NFS handles */
	char *logfile;          /* -o logfile=FILE: a detached daemon's messages */
	char *lowerdir;         /* an overlay view (issue 25): its layers, top first */
	char *layers;           /* or a file of them, one a line */
	char *upperdir;
	char *workdir;
	int nopassthrough;      /* -o nopassthrough: the daemon serves every read */
	int uring;              /* -o uring: requests by io_uring where the kernel offers it */
	char *request_timeout;  /* -o request_timeout=SECONDS, 0: none */
};

enum { KEY_CASEFOLD_BARE };

static const struct fuse_opt cli_spec[] = {
	{ "casefold=%s", offsetof(struct cli, tree.encoding), 0 },
	FUSE_OPT_KEY("casefold", KEY_CASEFOLD_BARE),
	{ "strict_encoding", offsetof(struct cli, tree.strict), 1 },
	{ "keep_ignorables", offsetof(struct cli, tree.keep_ignorables), 1 },
	{ "normalize_all", offsetof(struct cli, tree.normalize_all), 1 },
	{ "noepoch", offsetof(struct cli, tree.noepoch), 1 },
	{ "nohandles", offsetof(struct cli, tree.nohandles), 1 },
	{ "fd_cache=%s", offsetof(struct cli, fd_cache), 0 },
	{ "index_mem=%s", offsetof(struct cli, index_mem), 0 },
	{ "flagstore=%s", offsetof(struct cli, tree.flagstore), 0 },
	{ "cache=%s", offsetof(struct cli, tree.cache), 0 },
	{ "timeout=%s", offsetof(struct cli, tree.timeout), 0 },
	{ "opens=%s", offsetof(struct cli, tree.opens), 0 },
	{ "case_rename", offsetof(struct cli, tree.case_rename), 1 },
	{ "casefold_nonempty", offsetof(struct cli, tree.casefold_nonempty), 1 },
	{ "nfs_nodes=%s", offsetof(struct cli, nfs_nodes), 0 },
	{ "logfile=%s", offsetof(struct cli, logfile), 0 },
	{ "lowerdir=%s", offsetof(struct cli, lowerdir), 0 },
	{ "layers=%s", offsetof(struct cli, layers), 0 },
	{ "upperdir=%s", offsetof(struct cli, upperdir), 0 },
	{ "workdir=%s", offsetof(struct cli, workdir), 0 },
	{ "nopassthrough", offsetof(struct cli, nopassthrough), 1 },
	{ "uring", offsetof(struct cli, uring), 1 },
	{ "request_timeout=%s", offsetof(struct cli, request_timeout), 0 },
	FUSE_OPT_END
};

/*
 * The first non-option is BACKING; the second stays for fuse_parse_cmdline.
 * Other options are libfuse's, unless they look like a typo of a known one.
 */
static int cli_proc(void *data, const char *arg, int key, struct fuse_args *outargs)
{
	struct cli *cli = data;

	(void)outargs;
	if (key == KEY_CASEFOLD_BARE) {
		cli->tree.casefold_bare = 1;
		return 0;
	}
	if (key == FUSE_OPT_KEY_NONOPT && !cli->tree.backing) {
		cli->tree.backing = arg;
		return 0;
	}
	if (key == FUSE_OPT_KEY_OPT && optcheck_unknown(arg) < 0)
		return -1;
	return 1;
}

/*
 * The numbers of the command line, in their ranges.  fd_cache: the cache
 * never takes more than a quarter of RLIMIT_NOFILE anyway, and no process
 * has more than 2^20 descriptors by default (fs.nr_open); index_mem: up
 * to 1 TiB; nfs_nodes: up to 100 million, about 10 GB; request_timeout:
 * what the kernel's 16-bit field holds.
 */
struct numbers {
	uint64_t fd_cache;      /* 0: the default */
	uint64_t index_mem;     /* MiB; 0: the default */
	uint64_t nfs_nodes;
	uint64_t request_timeout;  /* seconds; 0: none */
};

/*
 * A request unanswered this long ends the mount (Linux 6.14+, fs/kernel/DESIGN.md,
 * "Request timeouts"): no caller waits longer on a hung daemon.  Long
 * enough for anything the daemon does for a caller (an fsync of a large
 * file to a slow disk), short enough that a stuck game can be killed.
 */
#define REQUEST_TIMEOUT_DEFAULT 600

static int parse_numbers(const struct cli *cli, struct numbers *n)
{
	static const struct optcheck_range fd_cache = { "fd_cache", 16, 1 << 20, "descriptors" };
	static const struct optcheck_range index_mem = { "index_mem", 1, 1 << 20, "MiB" };
	static const struct optcheck_range nfs_nodes = { "nfs_nodes", 0, 100000000, "objects" };
	static const struct optcheck_range timeout = { "request_timeout", 0, 65535, "seconds" };

	*n = (struct numbers){ .request_timeout = REQUEST_TIMEOUT_DEFAULT };
	return optcheck_number(&fd_cache, cli->fd_cache, &n->fd_cache) < 0 ||
	       optcheck_number(&index_mem, cli->index_mem, &n->index_mem) < 0 ||
	       optcheck_number(&nfs_nodes, cli->nfs_nodes, &n->nfs_nodes) < 0 ||
	       optcheck_number(&timeout, cli->request_timeout, &n->request_timeout) < 0 ? -1 : 0;
}

/*
 * Options every mount gets: the daemon acts as root, or as the one user
 * who owns everything it creates, so the kernel must check permissions
 * (default_permissions) for allow_other to be safe.  An ordinary user's
 * mount goes through fusermount3, which takes these options too.
 */
static int add_mount_options(struct fuse_args *args, const char *backing)
{
	char opts[PATH_MAX + 64];

	/* fsname is cosmetic; skip it when the path would need escaping. */
	if (strpbrk(backing, ",\\") || strlen(backing) > PATH_MAX)
		snprintf(opts, sizeof(opts), "-odefault_permissions,subtype=casefoldfs");
	else
		snprintf(opts, sizeof(opts), "-odefault_permissions,subtype=casefoldfs,fsname=%s",
			 backing);
	return fuse_opt_add_arg(args, opts);
}

#define MAX_THREADS_DEFAULT 64

/*
 * How many handlers may wait for a lease break at once (common/leases.h): a
 * quarter of the workers; where io_uring may serve, half a queue's entries
 * at most, so that a user who runs its opens on one CPU still leaves that
 * CPU's queue entries for others (fs/kernel/uring.c).
 */
static unsigned lease_waiters(const struct fk_options *opt)
{
	unsigned n = opt->max_threads / 4, entries = opt->uring ? fk_uring_entries(opt) : 0;

	if (opt->max_threads <= 1)
		return 0;
	return entries && entries / 2 < n ? entries / 2 : n;
}

/*
 * libfuse mounts (fs/kernel/fusermount.h); fs/kernel serves.  libfuse's pool
 * was 10 workers by default, and any backing call that blocks (a lease
 * break, a hung nested mount, a slow network filesystem) holds one: a pool
 * that small is one user's to take.  Without -o max_threads, 64
 * (fs/THREAT-MODEL.md); some may wait for lease breaks
 * (lease_waiters), in a tree or a view.
 */
static int run_session(const struct cfs_mode *mode, struct fuse_args *args,
		       struct fuse_cmdline_opts *co, const struct cli *cli,
		       const struct numbers *num)
{
	struct fk_options opt = {
		.passthrough = mode->passthrough && !cli->nopassthrough && caps_have(CAP_SYS_ADMIN),
		.uring = cli->uring,
		.request_timeout = (unsigned)num->request_timeout,
		.debug = co->debug,
		.killpriv = mode->killpriv,
	};
	struct fuse_session *lse;
	struct fk_session *se;
	int fd, ret;

	if (mode->stop) {
		opt.ending = mode->stop;
		opt.ending_arg = mode->data;
	}
	if (co->max_threads == 10)  /* libfuse's default: not given */
		co->max_threads = MAX_THREADS_DEFAULT;
	opt.max_threads = co->singlethread ? 1 : co->max_threads;
	fd = fk_mount(&lse, args, co->mountpoint);
	if (fd < 0)
		return 1;
	se = fk_session_new(fd, mode->ops, mode->data, &opt);
	if (!se) {
		fk_unmount(lse);
		return 1;
	}
	mode->attach(mode->data, se);
	if (!co->foreground)
		log_detach();
	fuse_daemonize(co->foreground);
	lease_set_waiters(lease_waiters(&opt));
	/* After fuse_daemonize: a thread would not survive its fork. */
	if (mode->start)
		mode->start(mode->data);
	ret = fk_session_loop(se);
	fk_unmount(lse);
	/* A worker still in a handler may use the session and the mode's data:
	 * the daemon ends here, and the kernel fails what it was answering. */
	if (fk_session_stuck(se)) {
		fflush(stderr);
		_exit(1);
	}
	fk_session_destroy(se);
	return ret;
}

/* The mode's mount and session, once it is set up; then its teardown. */
static int run_mode(const struct cfs_mode *mode, struct fuse_args *args,
		    struct fuse_cmdline_opts *co, const struct cli *cli, const struct numbers *num)
{
	int ret = 1;

	/* Modes arrive with the caller's umask applied; ours must not apply twice. */
	umask(0);
	if (add_mount_options(args, mode->fsname) == 0)
		ret = run_session(mode, args, co, cli, num);
	mode->destroy(mode->data);
	return ret;
}

/* Options of a tree's mount that mean nothing for an overlay view. */
static const char *tree_only(const struct cli *cli)
{
	if (cli->tree.case_rename)
		return "case_rename";
	if (cli->tree.casefold_nonempty)
		return "casefold_nonempty";
	if (cli->tree.flagstore)
		return "flagstore";
	if (cli->tree.cache)
		return "cache";
	if (cli->tree.opens)
		return "opens";
	if (cli->tree.normalize_all)
		return "normalize_all";
	if (cli->tree.encoding && strcmp(cli->tree.encoding, "none") == 0)
		return "casefold=none";
	return NULL;
}

/*
 * An overlay view (-o lowerdir, fs/view/DESIGN.md): SOURCE, if
 * given, is only a label, as for overlayfs; the mount point is the last
 * operand.
 */
static int run_view(struct cli *cli, struct fuse_args *args, struct fuse_cmdline_opts *co,
		    const struct numbers *num, const char *prog)
{
	struct view_args a = {
		.lowerdir = cli->lowerdir, .layers = cli->layers, .upperdir = cli->upperdir, .workdir = cli->workdir,
		.label = co->mountpoint ? cli->tree.backing : NULL, .encoding = cli->tree.encoding,
		.strict = cli->tree.strict, .keep_ignorables = cli->tree.keep_ignorables,
		.noepoch = cli->tree.noepoch, .index_mem = num->index_mem,
	};
	const char *bad = tree_only(cli);
	struct cfs_mode mode;

	if (!co->mountpoint && cli->tree.backing)
		co->mountpoint = strdup(cli->tree.backing);
	if (!co->mountpoint) {
		cfs_usage_line(stderr, prog);
		return 1;
	}
	if (bad) {
		fprintf(stderr, "casefoldfs: -o %s does not apply to an overlay view\n", bad);
		return 1;
	}
	if (mountcheck(co->mountpoint) < 0 ||
	    log_choose(cli->logfile, co->mountpoint) < 0)
		return 1;
	a.mountpoint = co->mountpoint;
	if (view_mount(&a, &mode) < 0)
		return 1;
	return run_mode(&mode, args, co, cli, num);
}

/* A tree's mount: BACKING MOUNTPOINT. */
static int run_tree(const struct cli *cli, struct fuse_args *args, struct fuse_cmdline_opts *co,
		    const struct numbers *num, const char *prog)
{
	struct tree_args a = cli->tree;
	struct cfs_mode mode;

	if (cli->upperdir || cli->workdir) {
		fprintf(stderr, "casefoldfs: upperdir and workdir need lowerdir\n");
		return 1;
	}
	if (!cli->tree.backing || !co->mountpoint) {
		cfs_usage_line(stderr, prog);
		return 1;
	}
	a.fd_cache = num->fd_cache;
	a.index_mem = num->index_mem;
	a.nfs_nodes = num->nfs_nodes;
	if (mountcheck(co->mountpoint) < 0 || log_choose(cli->logfile, co->mountpoint) < 0 ||
	    tree_mount(&a, &mode) < 0)
		return 1;
	return run_mode(&mode, args, co, cli, num);
}

int main(int argc, char *argv[])
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts co = { 0 };
	struct cli cli = { 0 };
	struct numbers num;
	int ret = 1;

	if (fuse_opt_parse(&args, &cli, cli_spec, cli_proc) != 0 ||
	    fuse_parse_cmdline(&args, &co) != 0)
		goto out;
	if (co.show_help) {
		cfs_usage(stdout, argv[0]);
		fuse_cmdline_help();
		fuse_lowlevel_help();
		ret = 0;
		goto out;
	}
	if (co.show_version) {
		printf("casefoldfs (libcasefold %s, Unicode data %s)\n", CF_VERSION_STRING,
		       cf_unicode_data_version());
		fuse_lowlevel_version();
		ret = 0;
		goto out;
	}
	if (parse_numbers(&cli, &num) < 0)
		goto out;
	ret = cli.lowerdir || cli.layers ? run_view(&cli, &args, &co, &num, argv[0])
			   : run_tree(&cli, &args, &co, &num, argv[0]);
out:
	free(cli.tree.encoding);
	free(cli.tree.flagstore);
	free(cli.tree.cache);
	free(cli.tree.timeout);
	free(cli.tree.opens);
	free(cli.lowerdir);
	free(cli.layers);
	free(cli.upperdir);
	free(cli.workdir);
	free(cli.request_timeout);
	free(cli.fd_cache);
	free(cli.index_mem);
	free(cli.nfs_nodes);
	free(cli.logfile);
	free(co.mountpoint);
	fuse_opt_free_args(&args);
	return ret;
}

/*
 * casefoldfs [-f] [-d] [-o OPTIONS] BACKING MOUNTPOINT
 *
 * Command line, superblock settlement, mount and session loop.  Everything
 * that can be refused (bad options, a contradicted or unreadable superblock)
 * is refused before mounting, with a message and exit status 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

/* libfuse: the command line and mounting (fs/kernel/mount.h). */
#define FUSE_USE_VERSION FUSE_MAKE_VERSION(3, 12)
#include <fuse_lowlevel.h>

#include "common/caps.h"
#include "common/leases.h"
#include "kernel/mount.h"
#include "kernel/session.h"
#include "main/log.h"
#include "main/mountcheck.h"
#include "main/optcheck.h"
#include "main/usage.h"
#include "tree/flagstore.h"
#include "tree/notice.h"
#include "tree/ops.h"
#include "tree/watch.h"
#include "view/ops.h"

struct cli {
	const char *backing;
	char *encoding;         /* -o casefold=ENCODING, allocated by fuse_opt */
	int casefold_bare;      /* -o casefold: the default encoding */
	int strict;
	int keep_ignorables;
	int normalize_all;
	int noepoch;            /* never rely on FUSE_NOTIFY_INC_EPOCH */
	int nohandles;          /* path locators only (fs/README.md) */
	char *fd_cache;         /* -o fd_cache=N, checked by optcheck_number */
	char *index_mem;        /* -o index_mem=MiB */
	char *flagstore;        /* -o flagstore=trusted|user, allocated by fuse_opt */
	char *cache;            /* -o cache=auto|fanotify|inotify|timeout */
	char *timeout;          /* -o timeout=SECONDS */
	char *opens;            /* -o opens=daemon|kernel */
	int case_rename;        /* issue 21: client behaviour beyond ext4's */
	int casefold_nonempty;
	char *nfs_nodes;        /* forgotten nodes kept for NFS handles */
	char *logfile;          /* -o logfile=FILE: a detached daemon's messages */
	char *lowerdir;         /* an overlay view (issue 25): its trees, top first */
	char *upperdir;
	char *workdir;
	int nopassthrough;      /* -o nopassthrough: the daemon serves every read */
	char *request_timeout;  /* -o request_timeout=SECONDS, 0: none */
};

enum { KEY_CASEFOLD_BARE };

static const struct fuse_opt cli_spec[] = {
	{ "casefold=%s", offsetof(struct cli, encoding), 0 },
	FUSE_OPT_KEY("casefold", KEY_CASEFOLD_BARE),
	{ "strict_encoding", offsetof(struct cli, strict), 1 },
	{ "keep_ignorables", offsetof(struct cli, keep_ignorables), 1 },
	{ "normalize_all", offsetof(struct cli, normalize_all), 1 },
	{ "noepoch", offsetof(struct cli, noepoch), 1 },
	{ "nohandles", offsetof(struct cli, nohandles), 1 },
	{ "fd_cache=%s", offsetof(struct cli, fd_cache), 0 },
	{ "index_mem=%s", offsetof(struct cli, index_mem), 0 },
	{ "flagstore=%s", offsetof(struct cli, flagstore), 0 },
	{ "cache=%s", offsetof(struct cli, cache), 0 },
	{ "timeout=%s", offsetof(struct cli, timeout), 0 },
	{ "opens=%s", offsetof(struct cli, opens), 0 },
	{ "case_rename", offsetof(struct cli, case_rename), 1 },
	{ "casefold_nonempty", offsetof(struct cli, casefold_nonempty), 1 },
	{ "nfs_nodes=%s", offsetof(struct cli, nfs_nodes), 0 },
	{ "logfile=%s", offsetof(struct cli, logfile), 0 },
	{ "lowerdir=%s", offsetof(struct cli, lowerdir), 0 },
	{ "upperdir=%s", offsetof(struct cli, upperdir), 0 },
	{ "workdir=%s", offsetof(struct cli, workdir), 0 },
	{ "nopassthrough", offsetof(struct cli, nopassthrough), 1 },
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
		cli->casefold_bare = 1;
		return 0;
	}
	if (key == FUSE_OPT_KEY_NONOPT && !cli->backing) {
		cli->backing = arg;
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
 * A request unanswered this long ends the mount (Linux 6.14+, fs/README.md
 * "The request loop"): no caller waits longer on a hung daemon.  Long
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
 * The descriptor cache's capacity: as asked, or 4,096, but never more than
 * a quarter of RLIMIT_NOFILE, so that open files and directory streams,
 * which the cache does not bound, keep most of the descriptors.
 */
#define FD_CACHE_DEFAULT 4096
#define FD_CACHE_MIN 16

static uint32_t fd_cache_size(uint64_t asked)
{
	uint64_t cap = asked ? asked : FD_CACHE_DEFAULT;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    cap > rl.rlim_cur / 4)
		cap = rl.rlim_cur / 4;
	return cap < FD_CACHE_MIN ? FD_CACHE_MIN : (uint32_t)cap;
}

/*
 * Where the flags of this mount live: the superblock's store, which a new
 * tree takes from -o flagstore or else from the daemon's privilege (root
 * keeps them out of reach of the backing tree's users, an ordinary user
 * cannot).  A trusted store needs CAP_SYS_ADMIN: without it every flag
 * would read as unset, so such a mount is refused rather than shown plain.
 */
static int setup_store(struct cfs *fs, const struct cli *cli, int rootfd)
{
	char msg[160];

	if (fs->opt.store == CFS_STORE_TRUSTED && !caps_have(CAP_SYS_ADMIN)) {
		fprintf(stderr, "casefoldfs: %s: this tree keeps its casefold flags in trusted.* "
			"xattrs, which only root can read or write: mount it as root (trees made "
			"by an ordinary user, or by root with -o flagstore=user, mount in both "
			"modes)\n", cli->backing);
		return -1;
	}
	flagstore_use(fs->opt.store);
	if (flagstore_probe(rootfd, msg, sizeof(msg)) < 0)
		fprintf(stderr, "casefoldfs: %s: warning: %s\n", cli->backing, msg);
	fs->can_chown = caps_have(CAP_CHOWN);
	fs->euid = geteuid();
	fs->egid = getegid();
	return 0;
}

/*
 * Whether rootfd's filesystem reports every write error by the write call
 * itself.  Local filesystems do, as the daemon writes without a cache of
 * its own; a network filesystem may report one only at close, which the
 * FLUSH of every close of a written file is then for.  Unknown types are
 * treated as network ones.
 */
static bool backing_local(int rootfd)
{
	static const unsigned long local[] = {
		0xEF53,      /* ext2/3/4 */
		0x58465342,  /* xfs */
		0x9123683E,  /* btrfs */
		0x01021994,  /* tmpfs */
		0xF2F52010,  /* f2fs */
	};
	struct statfs sf;

	if (fstatfs(rootfd, &sf) < 0)
		return false;
	for (size_t i = 0; i < sizeof(local) / sizeof(local[0]); i++)
		if ((unsigned long)sf.f_type == local[i])
			return true;
	return false;
}

/*
 * What the kernel may cache, and for how long (fs/README.md, "Kernel
 * caches"): where changes behind our back are watched, until a notice
 * says otherwise (an hour at most, in case a notice is ever missed);
 * elsewhere -o timeout seconds (default 1).
 */
#define WATCHED_TIMEOUT 3600.0

static int setup_cache(struct cfs *fs, const struct cli *cli, int rootfd)
{
	static const char *const kinds[] = {
		[CFS_WATCH_AUTO] = "auto", [CFS_WATCH_NONE] = "timeout",
		[CFS_WATCH_FANOTIFY] = "fanotify", [CFS_WATCH_INOTIFY] = "inotify",
	};
	enum cfs_watch want = CFS_WATCH_AUTO;
	char msg[160], *end;

	if (cli->cache) {
		for (want = 0; want < sizeof(kinds) / sizeof(kinds[0]); want++)
			if (strcmp(cli->cache, kinds[want]) == 0)
				break;
		if (want == sizeof(kinds) / sizeof(kinds[0])) {
			fprintf(stderr, "casefoldfs: cache must be auto, fanotify, inotify or "
				"timeout, not \"%s\"\n", cli->cache);
			return -1;
		}
	}
	fs->timeout = 1.0;
	if (cli->timeout) {
		fs->timeout = strtod(cli->timeout, &end);
		if (*end || end == cli->timeout || !(fs->timeout >= 0 && fs->timeout <= 86400)) {
			fprintf(stderr, "casefoldfs: timeout must be seconds from 0 to 86400, not "
				"\"%s\"\n", cli->timeout);
			return -1;
		}
	}
	fs->watched_timeout = WATCHED_TIMEOUT;
	if (watch_open(fs, want, rootfd, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "casefoldfs: %s: %s\n", cli->backing, msg);
		return -1;
	}
	/* Files open without OPEN only if asked, and where FLUSH is not needed
	 * either (fs/README.md, "File data"). */
	if (cli->opens && strcmp(cli->opens, "kernel") != 0 && strcmp(cli->opens, "daemon") != 0) {
		fprintf(stderr, "casefoldfs: opens must be daemon or kernel, not \"%s\"\n",
			cli->opens);
		return -1;
	}
	fs->no_open = cli->opens && strcmp(cli->opens, "kernel") == 0;
	/* Without OPEN a file is opened for writing at its first WRITE, which
	 * must not depend on its mode then (git writes the 0444 files it
	 * creates): only a daemon that may open any file can. */
	if (fs->no_open && !caps_have(CAP_DAC_OVERRIDE)) {
		fprintf(stderr, "casefoldfs: opens=kernel needs root (CAP_DAC_OVERRIDE): a file "
			"is opened for writing only at its first write\n");
		return -1;
	}
	if (fs->no_open && fs->flush_writers) {
		fprintf(stderr, "casefoldfs: %s: opens=kernel needs a local backing filesystem "
			"(ext2/3/4, xfs, btrfs, tmpfs, f2fs), which reports write errors at once\n",
			cli->backing);
		return -1;
	}
	return 0;
}

/* Settles the options from the superblock and the command line. */
static int setup_fs(struct cfs *fs, const struct cli *cli, const struct numbers *num, int rootfd)
{
	struct cfs_options given = {
		.strict = cli->strict,
		.keep_ignorables = cli->keep_ignorables,
		.normalize_all = cli->normalize_all,
	};
	bool given_encoding = cli->encoding || cli->casefold_bare;
	uint64_t key[2];
	char err[256];
	int r;

	if (cli->encoding && strlen(cli->encoding) >= sizeof(given.encoding)) {
		fprintf(stderr, "casefoldfs: unknown encoding \"%s\"\n", cli->encoding);
		return -1;
	}
	snprintf(given.encoding, sizeof(given.encoding), "%s",
		 cli->encoding ? cli->encoding : "utf8-12.1.0");
	given.store = caps_have(CAP_SYS_ADMIN) ? CFS_STORE_TRUSTED : CFS_STORE_USER;
	if (cli->flagstore && flagstore_parse(cli->flagstore, &given.store) < 0) {
		fprintf(stderr, "casefoldfs: flagstore must be trusted or user, not \"%s\"\n",
			cli->flagstore);
		return -1;
	}
	/* Refused before a new tree's superblock is written, not after. */
	if (given.store == CFS_STORE_TRUSTED && !caps_have(CAP_SYS_ADMIN)) {
		fprintf(stderr, "casefoldfs: flagstore=trusted needs root (CAP_SYS_ADMIN)\n");
		return -1;
	}
	if (super_load(rootfd, &fs->opt, &given, given_encoding, cli->flagstore != NULL, err,
		       sizeof(err)) < 0) {
		fprintf(stderr, "casefoldfs: %s: %s\n", cli->backing, err);
		return -1;
	}
	if (setup_store(fs, cli, rootfd) < 0)
		return -1;
	/* Names in a directory may be chosen to collide in the index: a fresh
	 * secret key per mount makes that guesswork. */
	if (getrandom(key, sizeof(key), 0) != (ssize_t)sizeof(key)) {
		fprintf(stderr, "casefoldfs: getrandom: %s\n", strerror(errno));
		return -1;
	}
	r = names_init(&fs->names, fs->opt.encoding, fs->opt.strict, fs->opt.keep_ignorables,
		       fs->opt.normalize_all, key);
	if (r < 0) {
		fprintf(stderr, "casefoldfs: encoding %s: %s\n", fs->opt.encoding, cf_strerror(r));
		return -1;
	}
	if (num->index_mem)
		dirindex_set_limit((size_t)num->index_mem << 20);
	fs->flush_writers = !backing_local(rootfd);
	fs->case_rename = cli->case_rename;
	fs->casefold_nonempty = cli->casefold_nonempty;
	dent_init(&fs->dentries, cli->noepoch);
	r = inode_table_init(&fs->nodes, rootfd, !cli->nohandles, fd_cache_size(num->fd_cache));
	if (r < 0) {
		fprintf(stderr, "casefoldfs: %s: %s\n", cli->backing, strerror(-r));
		return -1;
	}
	fs->nodes.keep_max = num->nfs_nodes;
	fs->nodes.local = !fs->flush_writers;
	return setup_cache(fs, cli, rootfd);
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

/* Open files take descriptors beyond the cache's: allow as many as we may. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

#define MAX_THREADS_DEFAULT 64

/* What a session serves: a tree's mount (fs), or an overlay view. */
struct daemon {
	const struct fk_ops *ops;
	void *data;
	struct cfs_epoch *dentries;  /* told the session once it exists */
	struct cfs *fs;              /* a tree: its watcher runs beside; else NULL */
};

/* The watcher stops while the workers still answer (fs/kernel/session.h). */
static void stop_watcher(void *fs)
{
	notice_stop(fs);
}

/*
 * libfuse mounts (fs/kernel/mount.h); fs/kernel serves.  libfuse's pool
 * was 10 workers by default, and any backing call that blocks (a lease
 * break, a hung nested mount, a slow network filesystem) holds one: a pool
 * that small is one user's to take.  Without -o max_threads, 64
 * (fs/README.md, Threat model); a quarter may wait for lease breaks
 * (common/leases.h), in a tree or a view.
 */
static int run_session(const struct daemon *dm, struct fuse_args *args,
		       struct fuse_cmdline_opts *co, const struct cli *cli,
		       const struct numbers *num)
{
	struct fk_options opt = {
		/* A view's files may move up a layer while open (copy-up): the
		 * daemon serves their data, which then follows. */
		.passthrough = dm->fs && !cli->nopassthrough && caps_have(CAP_SYS_ADMIN),
		.request_timeout = (unsigned)num->request_timeout,
		.debug = co->debug,
	};
	struct fuse_session *lse;
	struct fk_session *se;
	int fd, ret;

	if (dm->fs) {
		opt.ending = stop_watcher;
		opt.ending_arg = dm->fs;
	}
	if (co->max_threads == 10)  /* libfuse's default: not given */
		co->max_threads = MAX_THREADS_DEFAULT;
	opt.max_threads = co->singlethread ? 1 : co->max_threads;
	fd = fk_mount(&lse, args, co->mountpoint);
	if (fd < 0)
		return 1;
	se = fk_session_new(fd, dm->ops, dm->data, &opt);
	if (!se) {
		fk_unmount(lse);
		return 1;
	}
	dm->dentries->se = se;
	if (dm->fs)
		dm->fs->se = se;
	if (!co->foreground)
		log_detach();
	fuse_daemonize(co->foreground);
	lease_set_waiters(co->singlethread ? 0 : co->max_threads / 4);
	/* After fuse_daemonize: a thread would not survive its fork. */
	if (dm->fs && notice_start(dm->fs) < 0)
		fuse_log(FUSE_LOG_ERR, "casefoldfs: cannot start the watcher thread: changes "
			 "behind our back may go unseen\n");
	ret = fk_session_loop(se);
	fk_unmount(lse);
	fk_session_destroy(se);
	return ret;
}

/* Nothing changes a view's trees behind its back: answers keep a day. */
#define VIEW_TIMEOUT 86400.0

/* Options of a tree's mount that mean nothing for an overlay view. */
static const char *tree_only(const struct cli *cli)
{
	if (cli->case_rename)
		return "case_rename";
	if (cli->casefold_nonempty)
		return "casefold_nonempty";
	if (cli->flagstore)
		return "flagstore";
	if (cli->cache)
		return "cache";
	if (cli->opens)
		return "opens";
	if (cli->normalize_all)
		return "normalize_all";
	if (cli->encoding && strcmp(cli->encoding, "none") == 0)
		return "casefold=none";
	return NULL;
}

/*
 * An overlay view (-o lowerdir, fs/README.md "Overlay views"): SOURCE, if
 * given, is only a label, as for overlayfs; the mount point is the last
 * operand.
 */
static int run_view(struct cli *cli, struct fuse_args *args, struct fuse_cmdline_opts *co,
		    const struct numbers *num, const char *prog)
{
	const char *label = co->mountpoint ? cli->backing : NULL, *bad = tree_only(cli);
	struct view v = { 0 };
	uint64_t key[2];
	char err[PATH_MAX * 2 + 128];
	int r, ret = 1;

	if (!co->mountpoint && cli->backing)
		co->mountpoint = strdup(cli->backing);
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
	if (layers_open(&v.layers, cli->lowerdir, cli->upperdir, cli->workdir, co->mountpoint,
			err, sizeof(err)) < 0) {
		fprintf(stderr, "casefoldfs: %s\n", err);
		return 1;
	}
	if (getrandom(key, sizeof(key), 0) != (ssize_t)sizeof(key) ||
	    (r = names_init(&v.names, cli->encoding ? cli->encoding : "utf8-12.1.0", cli->strict,
			    cli->keep_ignorables, false, key)) < 0) {
		fprintf(stderr, "casefoldfs: encoding %s: unknown\n",
			cli->encoding ? cli->encoding : "utf8-12.1.0");
		layers_close(&v.layers);
		return 1;
	}
	v.can_chown = caps_have(CAP_CHOWN);
	v.timeout = VIEW_TIMEOUT;
	dent_init(&v.dentries, cli->noepoch);
	if (view_init(&v) < 0) {
		fprintf(stderr, "casefoldfs: cannot set up the view: out of memory\n");
		view_destroy(&v);
		return 1;
	}
	raise_fd_limit();
	umask(0);
	if (add_mount_options(args, label ? label : "overlay") == 0) {
		struct daemon dm = { ovl_table(), &v, &v.dentries, NULL };

		ret = run_session(&dm, args, co, cli, num);
	}
	view_destroy(&v);
	return ret;
}

int main(int argc, char *argv[])
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts co = { 0 };
	struct cli cli = { 0 };
	struct numbers num;
	struct cfs fs = { 0 };
	int rootfd = -1, ret = 1;

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
	if (cli.lowerdir) {
		ret = run_view(&cli, &args, &co, &num, argv[0]);
		goto out;
	}
	if (cli.upperdir || cli.workdir) {
		fprintf(stderr, "casefoldfs: upperdir and workdir need lowerdir\n");
		goto out;
	}
	if (!cli.backing || !co.mountpoint) {
		cfs_usage_line(stderr, argv[0]);
		goto out;
	}
	if (mountcheck(co.mountpoint) < 0 || log_choose(cli.logfile, co.mountpoint) < 0)
		goto out;
	rootfd = open(cli.backing, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		fprintf(stderr, "casefoldfs: %s: %s\n", cli.backing, strerror(errno));
		goto out;
	}
	raise_fd_limit();
	if (setup_fs(&fs, &cli, &num, rootfd) < 0) {
		close(rootfd);
		goto out;
	}
	/* Modes arrive with the caller's umask applied; ours must not apply twice. */
	umask(0);
	if (add_mount_options(&args, cli.backing) == 0) {
		struct daemon dm = { ops_table(), &fs, &fs.dentries, &fs };

		ret = run_session(&dm, &args, &co, &cli, &num);
	}
	watch_close(&fs);
	inode_table_destroy(&fs.nodes);  /* closes rootfd */
out:
	free(cli.encoding);
	free(cli.flagstore);
	free(cli.cache);
	free(cli.timeout);
	free(cli.opens);
	free(cli.lowerdir);
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

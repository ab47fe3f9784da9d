/*
 * A tree's mount, set up (main.c chooses the mode): BACKING opened, its
 * superblock settled with the command line, the naming rule, the node
 * table, the flag store and the watcher; and the points where the session
 * concerns it.  Everything that can be refused is refused here, before
 * mounting, with a message.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <linux/capability.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "common/caps.h"
#include "common/util.h"
#include "tree/flagstore.h"
#include "tree/tree_mount.h"
#include "tree/notice.h"
#include "tree/ops.h"
#include "tree/watch.h"

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
static int setup_store(struct cfs *fs, const struct tree_args *a, int rootfd)
{
	char msg[160];

	if (fs->opt.store == CFS_STORE_TRUSTED && !caps_have(CAP_SYS_ADMIN)) {
		fprintf(stderr, "casefoldfs: %s: this tree keeps its casefold flags in trusted.* "
			"xattrs, which only root can read or write: mount it as root (trees made "
			"by an ordinary user, or by root with -o flagstore=user, mount in both "
			"modes)\n", a->backing);
		return -1;
	}
	flagstore_use(fs->opt.store);
	if (flagstore_probe(rootfd, msg, sizeof(msg)) < 0)
		fprintf(stderr, "casefoldfs: %s: warning: %s\n", a->backing, msg);
	fs->can_chown = caps_have(CAP_CHOWN);
	fs->keeps_setid = caps_have(CAP_FSETID);
	fs->euid = geteuid();
	fs->egid = getegid();
	return 0;
}

/* Backing filesystem types (statfs f_type) that the rules below name. */
#define EXT4_MAGIC 0xEF53UL       /* ext2/3/4 */
#define XFS_MAGIC 0x58465342UL
#define BTRFS_MAGIC 0x9123683EUL
#define TMPFS_MAGIC 0x01021994UL
#define F2FS_MAGIC 0xF2F52010UL
#define RAMFS_MAGIC 0x858458F6UL

/* The backing filesystem's type, 0 if it cannot be told. */
static unsigned long backing_type(int rootfd)
{
	struct statfs sf;

	return fstatfs(rootfd, &sf) == 0 ? (unsigned long)sf.f_type : 0;
}

/*
 * Whether the filesystem reports every write error by the write call
 * itself.  Local filesystems do, as the daemon writes without a cache of
 * its own; a network filesystem may report one only at close, which the
 * FLUSH of every close of a written file is then for.  Unknown types are
 * treated as network ones.
 */
static bool backing_local(unsigned long type)
{
	return type == EXT4_MAGIC || type == XFS_MAGIC || type == BTRFS_MAGIC ||
	       type == TMPFS_MAGIC || type == F2FS_MAGIC;
}

/*
 * Whether listings may be READDIRPLUS: readdir.c's listings hold no state
 * and seek to the offset of the last entry given, which must still lead to
 * the next one after the entries before it are removed (rm -rf removes
 * each reply's entries before it asks for the next).  tmpfs and ramfs
 * count positions (before Linux 6.6), and a READDIRPLUS reply holds about
 * a quarter of a READDIR's entries: a directory of a few dozen names left
 * some of them behind (tests/fs/vmreads.sh, Linux 6.1).  Those get READDIR,
 * whose replies hold a hundred.
 */
static bool listing_plus(unsigned long type)
{
	return type != 0 && type != TMPFS_MAGIC && type != RAMFS_MAGIC;
}

/*
 * Whether the backing filesystem stamps every change made after a read of
 * a directory's ctime with a later ctime: multigrain timestamps, Linux
 * 6.13 and later on ext4, xfs, btrfs and tmpfs (a timestamp that has been
 * read is never given to the next change).  There an equal ctime proves
 * that nothing changed (dir.c, revalidate_flag); elsewhere a change in
 * the clock tick of the daemon's own last one keeps it.
 */
static bool fine_ctime(unsigned long type)
{
	struct utsname u;
	unsigned major, minor;

	if (uname(&u) < 0 || sscanf(u.release, "%u.%u", &major, &minor) != 2 ||
	    major < 6 || (major == 6 && minor < 13))
		return false;
	return type == EXT4_MAGIC || type == XFS_MAGIC || type == BTRFS_MAGIC ||
	       type == TMPFS_MAGIC;
}

/*
 * What the kernel may cache, and for how long (fs/tree/DESIGN.md, "Kernel
 * caches"): where changes behind our back are watched, until a notice
 * says otherwise (an hour at most, in case a notice is ever missed);
 * elsewhere -o timeout seconds (default 1).
 */
#define WATCHED_TIMEOUT 3600.0

static int setup_cache(struct cfs *fs, const struct tree_args *a, int rootfd)
{
	static const char *const kinds[] = {
		[CFS_WATCH_AUTO] = "auto", [CFS_WATCH_NONE] = "timeout",
		[CFS_WATCH_FANOTIFY] = "fanotify", [CFS_WATCH_INOTIFY] = "inotify",
	};
	enum cfs_watch want = CFS_WATCH_AUTO;
	char msg[160], *end;

	if (a->cache) {
		for (want = 0; want < sizeof(kinds) / sizeof(kinds[0]); want++)
			if (strcmp(a->cache, kinds[want]) == 0)
				break;
		if (want == sizeof(kinds) / sizeof(kinds[0])) {
			fprintf(stderr, "casefoldfs: cache must be auto, fanotify, inotify or "
				"timeout, not \"%s\"\n", a->cache);
			return -1;
		}
	}
	fs->timeout = 1.0;
	if (a->timeout) {
		fs->timeout = strtod(a->timeout, &end);
		if (*end || end == a->timeout || !(fs->timeout >= 0 && fs->timeout <= 86400)) {
			fprintf(stderr, "casefoldfs: timeout must be seconds from 0 to 86400, not "
				"\"%s\"\n", a->timeout);
			return -1;
		}
	}
	fs->watched_timeout = WATCHED_TIMEOUT;
	if (watch_open(fs, want, rootfd, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "casefoldfs: %s: %s\n", a->backing, msg);
		return -1;
	}
	/* Files open without OPEN only if asked, and where FLUSH is not needed
	 * either (fs/tree/DESIGN.md, "File data"). */
	if (a->opens && strcmp(a->opens, "kernel") != 0 && strcmp(a->opens, "daemon") != 0) {
		fprintf(stderr, "casefoldfs: opens must be daemon or kernel, not \"%s\"\n",
			a->opens);
		return -1;
	}
	fs->no_open = a->opens && strcmp(a->opens, "kernel") == 0;
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
			a->backing);
		return -1;
	}
	return 0;
}

/* Settles the options from the superblock and the command line. */
static int setup_fs(struct cfs *fs, const struct tree_args *a, int rootfd)
{
	struct cfs_options given = {
		.strict = a->strict,
		.keep_ignorables = a->keep_ignorables,
		.normalize_all = a->normalize_all,
	};
	bool given_encoding = a->encoding || a->casefold_bare;
	uint64_t key[2];
	char err[256];
	unsigned long type;
	int r;

	if (a->encoding && strlen(a->encoding) >= sizeof(given.encoding)) {
		fprintf(stderr, "casefoldfs: unknown encoding \"%s\"\n", a->encoding);
		return -1;
	}
	snprintf(given.encoding, sizeof(given.encoding), "%s",
		 a->encoding ? a->encoding : "utf8-12.1.0");
	given.store = caps_have(CAP_SYS_ADMIN) ? CFS_STORE_TRUSTED : CFS_STORE_USER;
	if (a->flagstore && flagstore_parse(a->flagstore, &given.store) < 0) {
		fprintf(stderr, "casefoldfs: flagstore must be trusted or user, not \"%s\"\n",
			a->flagstore);
		return -1;
	}
	/* Refused before a new tree's superblock is written, not after. */
	if (given.store == CFS_STORE_TRUSTED && !caps_have(CAP_SYS_ADMIN)) {
		fprintf(stderr, "casefoldfs: flagstore=trusted needs root (CAP_SYS_ADMIN)\n");
		return -1;
	}
	if (super_load(rootfd, &fs->opt, &given, given_encoding, a->flagstore != NULL, err,
		       sizeof(err)) < 0) {
		fprintf(stderr, "casefoldfs: %s: %s\n", a->backing, err);
		return -1;
	}
	if (setup_store(fs, a, rootfd) < 0)
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
	if (a->index_mem)
		dirindex_set_limit((size_t)a->index_mem << 20);
	type = backing_type(rootfd);
	fs->flush_writers = !backing_local(type);
	fs->listing_plus = listing_plus(type);
	fs->fine_ctime = fine_ctime(type);
	fs->case_rename = a->case_rename;
	fs->casefold_nonempty = a->casefold_nonempty;
	dent_init(&fs->dentries, a->noepoch);
	r = inode_table_init(&fs->nodes, rootfd, !a->nohandles, fd_cache_size(a->fd_cache));
	if (r < 0) {
		fprintf(stderr, "casefoldfs: %s: %s\n", a->backing, strerror(-r));
		return -1;
	}
	fs->nodes.keep_max = a->nfs_nodes;
	fs->nodes.local = !fs->flush_writers;
	fs->nodes.open_by_name = !caps_have(CAP_DAC_OVERRIDE);
	return setup_cache(fs, a, rootfd);
}

static void tree_attach(void *data, struct fk_session *se)
{
	struct cfs *fs = data;

	fs->dentries.se = se;
	fs->se = se;
}

static void tree_start(void *data)
{
	if (notice_start(data) < 0)
		fuse_log(FUSE_LOG_ERR, "casefoldfs: cannot start the watcher thread: changes "
			 "behind our back may go unseen\n");
}

/* The watcher stops while the workers still answer (fs/kernel/fk.h, fk_options.ending). */
static void tree_stop(void *data)
{
	notice_stop(data);
}

static void tree_teardown(void *data)
{
	struct cfs *fs = data;

	watch_close(fs);
	inode_table_destroy(&fs->nodes);  /* closes rootfd */
}

/* The daemon's one mount. */
static struct cfs the_fs;

int tree_mount(const struct tree_args *a, struct cfs_mode *mode)
{
	int rootfd = open(a->backing, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (rootfd < 0) {
		fprintf(stderr, "casefoldfs: %s: %s\n", a->backing, strerror(errno));
		return -1;
	}
	raise_fd_limit();
	if (setup_fs(&the_fs, a, rootfd) < 0) {
		close(rootfd);
		return -1;
	}
	*mode = (struct cfs_mode){
		.ops = ops_table(), .data = &the_fs, .fsname = a->backing, .passthrough = true,
		.killpriv = true,
		.attach = tree_attach, .start = tree_start, .stop = tree_stop,
		.destroy = tree_teardown,
	};
	return 0;
}

/*
 * fsbench: the measuring half of the filesystem benchmark (bench/fs.sh;
 * bench/scale.sh and bench/cache.sh use it too).
 * Each command makes one measurement through whatever path it is given —
 * the backing directory, a bindfs mount or a casefoldfs mount — and prints
 * "METRIC VALUE" lines; fs.sh mounts, drops caches, runs the interleaved
 * rounds and hands the collected lines to fsreport.
 *
 *   fsbench fill DIR N
 *       N empty files named name(0) .. name(N-1), straight into DIR.
 *   fsbench create [-f FANOUT] [-s BYTES] DIR N
 *       The same N files made with open(O_CREAT|O_EXCL) and close, as tar
 *       and rsync make them: through whatever DIR is (a mount, or not).
 *       -f: spread over a tree, FANOUT files per directory and FANOUT
 *       directories per level (DIR/gG/dD/name).  -s: BYTES of data written
 *       into each (one write).  A failed call is counted, not fatal; prints
 *       files_per_s, errors and the first errno.
 *   fsbench readall [-f FANOUT] DIR N BYTES
 *       open(O_RDONLY), read to the end in 64 KiB calls, close, for each of
 *       those N files by its exact name; a file that does not hold exactly
 *       BYTES is counted as an error.  Prints files_per_s, errors, errno.
 *   fsbench statall [-f FANOUT] exact|miscased|missing DIR N
 *       fstatat of every one of those N names (missing: name(N..2N-1)),
 *       counting wrong answers and failures; prints per (µs), errors, errno.
 *   fsbench watch PID MS
 *       Every MS milliseconds, the open descriptors and threads of PID,
 *       until SIGTERM or PID's end; then prints their peaks (peak_fds,
 *       peak_threads) and peak_rss (KiB, VmRSS sampled, or VmHWM if higher).
 *   fsbench stat [-w] [-p PID] [-k K] [-b MS] path|scan exact|miscased|missing DIR N SEED
 *       fstatat of K names of DIR: random among name(0..N-1) as stored
 *       (exact) or with a random case (miscased), or random among
 *       name(N..2N-1) with a random case (missing).  "scan" is the
 *       scan-on-miss lookup of Wine, Samba and ciopfs: on ENOENT, read the
 *       directory and stat the first entry that cf_name_match accepts.
 *       -w: one untimed pass over the same names first (warm).  -b: stop
 *       once a pass has taken MS milliseconds (at least 3 names), so that a
 *       scan of a million names stays affordable (default: no limit).
 *       -p: the daemon's VmRSS before and after the first stat, and its
 *       index statistics.
 *       Prints first (µs, the first stat), per (µs per stat after the first,
 *       or over the timed pass with -w), ops and errors (wrong answers and
 *       failed calls, EMFILE say: counted, so that a failing daemon shows).
 *   fsbench meta DIR THREADS N
 *       N files created, renamed, then unlinked by THREADS threads, each in
 *       its own subdirectory DIR/tI; prints create, rename, unlink (ops/s).
 *   fsbench write FILE MIB | read FILE
 *       Sequential I/O in 1 MiB calls; prints MB/s (10^6 bytes per second).
 *   fsbench readdir DIR N
 *       Every entry of DIR, which must have N; prints ms.
 *   fsbench paths stat|open|list DIR LIST
 *       For each path of the file LIST (one a line, relative to DIR):
 *       fstatat without following (stat), open + read to the end + close
 *       (open), or opendir + every entry + closedir (list), in LIST's
 *       order (bench/overlay.sh: the same paths through different views).
 *       Prints per (µs per path), ops, entries (list: all entries read),
 *       bytes (open: all bytes read), errors (failed calls, counted).
 *
 * Times are wall-clock (CLOCK_MONOTONIC): the work happens in the kernel
 * and in the daemon, outside this process's CPU time.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "casefold.h"

/* What casefoldfs uses by default, and ext4. */
#define ENCODING "utf8-12.1.0"
#define IO_CHUNK (1u << 20)
#define MIN_OPS 3

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("fsbench: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static unsigned long parse_num(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end)
		die("bad %s: %s", what, s);
	return v;
}

/* splitmix64: reproducible names for a given seed, the same for every peer. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/*
 * The names of the big directories: file-name shapes met in practice, some
 * with Latin-1 letters so that folding is not pure ASCII (mean 18 bytes).
 */
static const char *const shapes[] = {
	"IMG_%07u.JPG", "Report %07u.docx", "main-%07u.c",
	"\303\234bersicht-%07u.pdf", "R\xc3\xa9sum\xc3\xa9_%07u.odt", "ChangeLog.%07u",
};
#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))

static void make_name(unsigned i, char *buf, size_t cap)
{
	snprintf(buf, cap, shapes[i % NSHAPES], i);
}

/*
 * Flips the case of each letter with probability 1/2, and of at least one:
 * ASCII letters, and the two-byte Latin-1 letters À..Þ (C3 80..9E, not ×)
 * whose lower case is 0x20 further (C3 A0..BE, not ÷).
 */
static void miscase(char *s, uint64_t *state)
{
	bool changed = false;

	for (;;) {
		for (unsigned char *p = (unsigned char *)s; *p; p++) {
			bool flip = next_random(state) & 1;

			if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) {
				if (flip) {
					*p ^= 0x20;
					changed = true;
				}
			} else if (*p == 0xc3 && p[1] >= 0x80 && p[1] <= 0xbe &&
				   p[1] != 0x97 && p[1] != 0xb7 && p[1] != 0x9f) {
				if (flip) {
					p[1] ^= 0x20;
					changed = true;
				}
				p++;
			}
		}
		if (changed)
			return;
	}
}

/* fsbench fill DIR N */
static int cmd_fill(int argc, char **argv)
{
	char name[64];
	unsigned long n;
	int dfd;

	if (argc != 3)
		die("usage: fill DIR N");
	n = parse_num(argv[2], "count");
	dfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		die("%s: %s", argv[1], strerror(errno));
	/* mknodat: one system call per file, the fastest way to make them. */
	for (unsigned long i = 0; i < n; i++) {
		make_name((unsigned)i, name, sizeof(name));
		if (mknodat(dfd, name, S_IFREG | 0644, 0) < 0)
			die("%s/%s: %s", argv[1], name, strerror(errno));
	}
	close(dfd);
	return 0;
}

enum how { HOW_PATH, HOW_SCAN };
enum mode { MODE_EXACT, MODE_MISCASED, MODE_MISSING };

struct statrun {
	enum how how;
	enum mode mode;
	const char *dir;
	int dirfd;
	cf_encoding enc;
	unsigned long errors;   /* wrong answers and failed calls */
	int first_errno;        /* of the first failed call, 0 if none */
};

/* The scan-on-miss lookup: every entry read and compared until one matches. */
static bool scan_lookup(const struct statrun *r, const char *name)
{
	size_t len = strlen(name);
	struct dirent *d;
	struct stat st;
	bool found = false;
	DIR *dp;
	int fd;

	fd = openat(r->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(dp = fdopendir(fd)))
		die("%s: %s", r->dir, strerror(errno));
	while (!found && (d = readdir(dp)) != NULL) {
		if (cf_name_match(&r->enc, name, len, d->d_name, strlen(d->d_name)) != 1)
			continue;
		if (fstatat(r->dirfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			die("%s/%s: %s", r->dir, d->d_name, strerror(errno));
		found = true;
	}
	closedir(dp);
	return found;
}

/*
 * A failure counted rather than fatal: a daemon out of descriptors answers
 * EMFILE, and the benchmark must show how often instead of stopping.
 */
static void count_error(unsigned long *errors, int *first_errno, int errnum, const char *what,
			const char *name)
{
	if (*errors < 3)
		fprintf(stderr, "fsbench: %s/%s: %s\n", what, name,
			errnum ? strerror(errnum) : "wrong answer");
	if (*errors == 0)
		*first_errno = errnum;
	++*errors;
}

/* One stat; checks the answer, so that no peer is timed giving a wrong one. */
static void stat_one(struct statrun *r, const char *name)
{
	bool found;
	struct stat st;

	if (fstatat(r->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		found = true;
	} else if (errno != ENOENT) {
		count_error(&r->errors, &r->first_errno, errno, r->dir, name);
		return;
	} else {
		found = r->how == HOW_SCAN && scan_lookup(r, name);
	}
	if (found != (r->mode != MODE_MISSING))
		count_error(&r->errors, &r->first_errno, 0, r->dir, name);
}

static long vm_rss_kb(const char *pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	f = fopen(path, "r");
	if (!f)
		die("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	fclose(f);
	if (kb < 0)
		die("%s: no VmRSS", path);
	return kb;
}

/* The index statistics casefoldfs reports through its xattr (fs/tree/DESIGN.md). */
static void print_index_names(const char *dir)
{
	char buf[256];
	ssize_t n = getxattr(dir, "trusted.casefoldfs.index", buf, sizeof(buf) - 1);
	unsigned long names;

	if (n < 0)
		die("%s: trusted.casefoldfs.index: %s", dir, strerror(errno));
	buf[n] = '\0';
	if (sscanf(buf, "names %lu", &names) != 1)
		die("%s: unexpected index statistics: %s", dir, buf);
	printf("indexed %lu\n", names);
}

/*
 * Runs names[0..k-1] until done or over budget_us (0: none), but at least
 * MIN_OPS; returns how many ran.
 */
static size_t stat_pass(struct statrun *r, char (*names)[64], size_t k, double budget_us)
{
	double t0 = now_us();
	size_t i;

	for (i = 0; i < k; i++) {
		if (budget_us > 0 && i >= MIN_OPS && now_us() - t0 > budget_us)
			break;
		stat_one(r, names[i]);
	}
	return i;
}

/* fsbench stat [-w] [-p PID] [-k K] [-b MS] HOW MODE DIR N SEED */
static int cmd_stat(int argc, char **argv)
{
	const char *pid = NULL;
	size_t k = 1000, ops;
	double budget_us = 0, t0, first;
	bool warm = false;
	struct statrun r = { 0 };
	char (*names)[64];
	unsigned long n;
	uint64_t state, case_state;
	int c;

	while ((c = getopt(argc, argv, "+wp:k:b:")) != -1) {
		switch (c) {
		case 'w': warm = true; break;
		case 'p': pid = optarg; break;
		case 'k': k = parse_num(optarg, "count"); break;
		case 'b': budget_us = 1e3 * (double)parse_num(optarg, "budget"); break;
		default: die("usage: stat [-w] [-p PID] [-k K] [-b MS] HOW MODE DIR N SEED");
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 5 || k < MIN_OPS + 1)
		die("usage: stat [-w] [-p PID] [-k K] [-b MS] HOW MODE DIR N SEED");
	if (strcmp(argv[0], "path") == 0)
		r.how = HOW_PATH;
	else if (strcmp(argv[0], "scan") == 0)
		r.how = HOW_SCAN;
	else
		die("unknown lookup %s", argv[0]);
	if (strcmp(argv[1], "exact") == 0)
		r.mode = MODE_EXACT;
	else if (strcmp(argv[1], "miscased") == 0)
		r.mode = MODE_MISCASED;
	else if (strcmp(argv[1], "missing") == 0)
		r.mode = MODE_MISSING;
	else
		die("unknown names %s", argv[1]);
	r.dir = argv[2];
	n = parse_num(argv[3], "size");
	state = parse_num(argv[4], "seed");
	if (n == 0)
		die("empty directory");
	if (cf_encoding_load(&r.enc, ENCODING, 0) < 0)
		die("no encoding %s", ENCODING);

	names = malloc(k * sizeof(*names));
	if (!names)
		die("out of memory");
	/* Cases drawn apart from the names: one seed, the same files exact or miscased. */
	case_state = state ^ 0x5bd1e995u;
	for (size_t i = 0; i < k; i++) {
		unsigned j = (unsigned)(next_random(&state) % n);

		make_name(r.mode == MODE_MISSING ? (unsigned)n + j : j, names[i], sizeof(names[i]));
		if (r.mode != MODE_EXACT)
			miscase(names[i], &case_state);
	}

	/* Opening the directory looks it up: not part of any stat timed below. */
	r.dirfd = open(r.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r.dirfd < 0)
		die("%s: %s", r.dir, strerror(errno));
	if (warm)
		k = stat_pass(&r, names, k, budget_us);
	if (pid)
		printf("rss0 %ld\n", vm_rss_kb(pid));
	t0 = now_us();
	stat_one(&r, names[0]);
	first = now_us() - t0;
	if (pid) {
		printf("rss1 %ld\n", vm_rss_kb(pid));
		print_index_names(r.dir);
	}
	/* Warm: the whole timed pass; cold: the stats after the first. */
	if (warm) {
		t0 = now_us();
		for (size_t i = 1; i < k; i++)
			stat_one(&r, names[i]);
		ops = k;
		printf("per %.3f\n", (now_us() - t0 + first) / (double)ops);
	} else {
		t0 = now_us();
		ops = 1 + stat_pass(&r, names + 1, k - 1, budget_us);
		printf("per %.3f\n", (now_us() - t0) / (double)(ops - 1));
	}
	printf("first %.3f\nops %zu\nerrors %lu\n", first, ops, r.errors);
	close(r.dirfd);
	free(names);
	return 0;
}

/*
 * Where file i lives: DIR itself, or with a fanout DIR/gG/dD, so that a
 * tree of a million files has directories of FANOUT entries at each level.
 */
static void tree_dir(unsigned long i, unsigned long fanout, char *buf, size_t cap)
{
	if (fanout == 0)
		snprintf(buf, cap, ".");
	else
		snprintf(buf, cap, "g%lu/d%lu", i / (fanout * fanout), i / fanout % fanout);
}

/* Opens DIR/sub, making it (and its parent) first when make is set. */
static int open_sub(int top, const char *sub, bool make)
{
	if (make) {
		char parent[64];
		const char *slash = strchr(sub, '/');

		if (slash) {
			snprintf(parent, sizeof(parent), "%.*s", (int)(slash - sub), sub);
			if (mkdirat(top, parent, 0755) < 0 && errno != EEXIST)
				return -1;
		}
		if (strcmp(sub, ".") != 0 && mkdirat(top, sub, 0755) < 0 && errno != EEXIST)
			return -1;
	}
	return openat(top, sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* Walks files 0..n-1 of top, directory by directory; op gets each one. */
struct walk {
	const char *top;
	int topfd, dirfd;
	unsigned long fanout, errors;
	int first_errno;
	char sub[64];
};

/* The directory of file i open in w->dirfd; false (counted) if it cannot be. */
static bool walk_enter(struct walk *w, unsigned long i, bool make)
{
	char sub[64];

	tree_dir(i, w->fanout, sub, sizeof(sub));
	if (w->dirfd >= 0 && strcmp(sub, w->sub) == 0)
		return true;
	if (w->dirfd >= 0 && w->dirfd != w->topfd)
		close(w->dirfd);
	w->dirfd = strcmp(sub, ".") == 0 ? w->topfd : open_sub(w->topfd, sub, make);
	if (w->dirfd < 0) {
		count_error(&w->errors, &w->first_errno, errno, w->top, sub);
		return false;
	}
	snprintf(w->sub, sizeof(w->sub), "%s", sub);
	return true;
}

static void walk_open(struct walk *w, const char *top, unsigned long fanout)
{
	memset(w, 0, sizeof(*w));
	w->top = top;
	w->fanout = fanout;
	w->dirfd = -1;
	w->topfd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w->topfd < 0)
		die("%s: %s", top, strerror(errno));
}

static void walk_close(struct walk *w)
{
	if (w->dirfd >= 0 && w->dirfd != w->topfd)
		close(w->dirfd);
	close(w->topfd);
}

/*
 * File i of the walk opened with flags (created with mode 0644 under
 * O_CREAT), its name left in name[64]: the descriptor, or -1 when its
 * directory or the open failed (counted).
 */
static int walk_file(struct walk *w, unsigned long i, int flags, char name[static 64])
{
	int fd;

	if (!walk_enter(w, i, flags & O_CREAT))
		return -1;
	make_name((unsigned)i, name, 64);
	fd = openat(w->dirfd, name, flags | O_CLOEXEC, 0644);
	if (fd < 0)
		count_error(&w->errors, &w->first_errno, errno, w->top, name);
	return fd;
}

/* The rate of n files since t0, and the walk's errors. */
static void walk_report(const struct walk *w, unsigned long n, double t0)
{
	printf("files_per_s %.0f\nerrors %lu\nerrno %d\n", (double)n / ((now_us() - t0) / 1e6),
	       w->errors, w->first_errno);
}

/* Parses "[-f FANOUT] [-s BYTES]" (-s only where size is not NULL). */
static unsigned long parse_fanout_size(int argc, char **argv, const char *usage,
				       unsigned long *size)
{
	unsigned long fanout = 0;
	int c;

	while ((c = getopt(argc, argv, size ? "+f:s:" : "+f:")) != -1) {
		if (c == 's') {
			*size = parse_num(optarg, "size");
			continue;
		}
		if (c != 'f')
			die("usage: %s", usage);
		fanout = parse_num(optarg, "fanout");
		if (fanout == 0)
			die("fanout 0");
	}
	return fanout;
}

/* A file's contents: not zeros, so that no layer gets to treat them as a hole. */
static unsigned char *file_data(unsigned long size)
{
	unsigned char *buf = malloc(size ? size : 1);

	if (!buf)
		die("out of memory");
	for (unsigned long i = 0; i < size; i++)
		buf[i] = (unsigned char)(i * 131 + 17);
	return buf;
}

/* fsbench create [-f FANOUT] [-s BYTES] DIR N */
static int cmd_create(int argc, char **argv)
{
	static const char usage[] = "create [-f FANOUT] [-s BYTES] DIR N";
	unsigned long size = 0, fanout = parse_fanout_size(argc, argv, usage, &size), n;
	unsigned char *data;
	struct walk w;
	char name[64];
	double t0;

	if (argc - optind != 2)
		die("usage: %s", usage);
	n = parse_num(argv[optind + 1], "count");
	data = file_data(size);
	walk_open(&w, argv[optind], fanout);
	t0 = now_us();
	for (unsigned long i = 0; i < n; i++) {
		int fd = walk_file(&w, i, O_CREAT | O_EXCL | O_WRONLY, name);

		if (fd < 0)
			continue;
		if (size && write(fd, data, size) != (ssize_t)size) {
			count_error(&w.errors, &w.first_errno, errno, w.top, name);
			close(fd);
		} else if (close(fd) < 0) {
			count_error(&w.errors, &w.first_errno, errno, w.top, name);
		}
	}
	walk_report(&w, n, t0);
	walk_close(&w);
	free(data);
	return 0;
}

/* fsbench readall [-f FANOUT] DIR N BYTES */
static int cmd_readall(int argc, char **argv)
{
	static const char usage[] = "readall [-f FANOUT] DIR N BYTES";
	unsigned long fanout = parse_fanout_size(argc, argv, usage, NULL), n, size;
	enum { CHUNK = 64 * 1024 };
	static unsigned char buf[CHUNK];
	struct walk w;
	char name[64];
	double t0;

	if (argc - optind != 3)
		die("usage: %s", usage);
	n = parse_num(argv[optind + 1], "count");
	size = parse_num(argv[optind + 2], "size");
	walk_open(&w, argv[optind], fanout);
	t0 = now_us();
	for (unsigned long i = 0; i < n; i++) {
		int fd = walk_file(&w, i, O_RDONLY, name);
		unsigned long total = 0;
		ssize_t got;

		if (fd < 0)
			continue;
		while ((got = read(fd, buf, CHUNK)) > 0)
			total += (unsigned long)got;
		if (got < 0)
			count_error(&w.errors, &w.first_errno, errno, w.top, name);
		else if (total != size)
			count_error(&w.errors, &w.first_errno, 0, w.top, name);
		close(fd);
	}
	walk_report(&w, n, t0);
	walk_close(&w);
	return 0;
}

/* fsbench statall [-f FANOUT] exact|miscased|missing DIR N */
static int cmd_statall(int argc, char **argv)
{
	static const char usage[] = "statall [-f FANOUT] exact|miscased|missing DIR N";
	unsigned long fanout = parse_fanout_size(argc, argv, usage, NULL), n;
	uint64_t case_state = 0x5bd1e995u;
	const char *mode;
	struct walk w;
	char name[64];
	double t0;

	if (argc - optind != 3)
		die("usage: %s", usage);
	mode = argv[optind];
	if (strcmp(mode, "exact") != 0 && strcmp(mode, "miscased") != 0 &&
	    strcmp(mode, "missing") != 0)
		die("unknown names %s", mode);
	n = parse_num(argv[optind + 2], "count");
	walk_open(&w, argv[optind + 1], fanout);
	t0 = now_us();
	for (unsigned long i = 0; i < n; i++) {
		struct stat st;
		bool want = strcmp(mode, "missing") != 0;

		if (!walk_enter(&w, i, false))
			continue;
		make_name((unsigned)(want ? i : n + i), name, sizeof(name));
		if (strcmp(mode, "exact") != 0)
			miscase(name, &case_state);
		if (fstatat(w.dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			if (!want)
				count_error(&w.errors, &w.first_errno, 0, w.top, name);
		} else if (errno != ENOENT || want) {
			count_error(&w.errors, &w.first_errno, errno, w.top, name);
		}
	}
	printf("per %.3f\nerrors %lu\nerrno %d\n", (now_us() - t0) / (double)n, w.errors,
	       w.first_errno);
	walk_close(&w);
	return 0;
}

static volatile sig_atomic_t watch_stop;

static void on_stop(int sig)
{
	(void)sig;
	watch_stop = 1;
}

/* Entries of /proc/PID/fd, or -1 once PID is gone. */
static long count_fds(const char *pid)
{
	char path[64];
	struct dirent *d;
	long n = 0;
	DIR *dp;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	dp = opendir(path);
	if (!dp)
		return -1;
	while ((d = readdir(dp)) != NULL)
		if (d->d_name[0] != '.')
			n++;
	closedir(dp);
	return n;
}

/* A "Key: N" line of /proc/PID/status, or -1. */
static long status_field(const char *pid, const char *key)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
			v = strtol(line + klen + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/*
 * fsbench watch PID MS.  Sampling misses a peak shorter than MS; VmHWM
 * (reset by the caller through clear_refs) catches the memory ones.
 */
static int cmd_watch(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_stop };
	long peak_fds = 0, peak_threads = 0, peak_rss = 0, hwm;
	struct timespec pause;
	unsigned long ms;

	if (argc != 3)
		die("usage: watch PID MS");
	ms = parse_num(argv[2], "interval");
	pause.tv_sec = (time_t)(ms / 1000);
	pause.tv_nsec = (long)(ms % 1000) * 1000000;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	while (!watch_stop) {
		long fds = count_fds(argv[1]), threads, rss;

		if (fds < 0)
			break;
		threads = status_field(argv[1], "Threads");
		rss = status_field(argv[1], "VmRSS");
		if (fds > peak_fds)
			peak_fds = fds;
		if (threads > peak_threads)
			peak_threads = threads;
		if (rss > peak_rss)
			peak_rss = rss;
		nanosleep(&pause, NULL);
	}
	hwm = status_field(argv[1], "VmHWM");
	printf("peak_fds %ld\npeak_threads %ld\npeak_rss %ld\n", peak_fds, peak_threads,
	       hwm > peak_rss ? hwm : peak_rss);
	return 0;
}

enum phase { PHASE_CREATE, PHASE_RENAME, PHASE_UNLINK };

struct worker {
	pthread_t thread;
	int dirfd;
	unsigned count;
	enum phase phase;
	const char *err;   /* the failing call, or NULL */
	int errnum;
};

static void *meta_worker(void *arg)
{
	struct worker *w = arg;
	char a[64], b[64];

	for (unsigned i = 0; i < w->count && !w->err; i++) {
		snprintf(a, sizeof(a), "Build-%06u.tmp", i);
		snprintf(b, sizeof(b), "build-%06u.O", i);
		switch (w->phase) {
		case PHASE_CREATE: {
			int fd = openat(w->dirfd, a, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);

			if (fd < 0)
				w->err = "create";
			else
				close(fd);
			break;
		}
		case PHASE_RENAME:
			if (renameat(w->dirfd, a, w->dirfd, b) < 0)
				w->err = "rename";
			break;
		case PHASE_UNLINK:
			if (unlinkat(w->dirfd, b, 0) < 0)
				w->err = "unlink";
			break;
		}
		if (w->err)
			w->errnum = errno;
	}
	return NULL;
}

/* fsbench meta DIR THREADS N */
static int cmd_meta(int argc, char **argv)
{
	static const char *const phase_names[] = { "create", "rename", "unlink" };
	struct worker w[64];
	unsigned long threads, n;
	char sub[32];
	int dfd;

	if (argc != 4)
		die("usage: meta DIR THREADS N");
	threads = parse_num(argv[2], "threads");
	n = parse_num(argv[3], "count");
	if (threads == 0 || threads > 64 || n < threads)
		die("bad thread or file count");
	dfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		die("%s: %s", argv[1], strerror(errno));
	/* One directory per thread: the daemon's concurrency, not the kernel's directory lock. */
	for (unsigned t = 0; t < threads; t++) {
		snprintf(sub, sizeof(sub), "t%u", t);
		if (mkdirat(dfd, sub, 0755) < 0 && errno != EEXIST)
			die("%s/%s: %s", argv[1], sub, strerror(errno));
		w[t].dirfd = openat(dfd, sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (w[t].dirfd < 0)
			die("%s/%s: %s", argv[1], sub, strerror(errno));
		w[t].count = (unsigned)(n / threads);
	}
	for (enum phase p = PHASE_CREATE; p <= PHASE_UNLINK; p++) {
		double t0 = now_us();

		for (unsigned t = 0; t < threads; t++) {
			w[t].phase = p;
			w[t].err = NULL;
			if (pthread_create(&w[t].thread, NULL, meta_worker, &w[t]) != 0)
				die("pthread_create failed");
		}
		for (unsigned t = 0; t < threads; t++)
			pthread_join(w[t].thread, NULL);
		for (unsigned t = 0; t < threads; t++)
			if (w[t].err)
				die("%s/t%u: %s: %s", argv[1], t, w[t].err, strerror(w[t].errnum));
		printf("%s %.0f\n", phase_names[p],
		       (double)(w[0].count * threads) / ((now_us() - t0) / 1e6));
	}
	for (unsigned t = 0; t < threads; t++)
		close(w[t].dirfd);
	close(dfd);
	return 0;
}

static void *io_buffer(void)
{
	void *buf;

	if (posix_memalign(&buf, 4096, IO_CHUNK) != 0)
		die("out of memory");
	/* Not zeros: no layer gets to treat the data as a hole. */
	for (size_t i = 0; i < IO_CHUNK; i++)
		((unsigned char *)buf)[i] = (unsigned char)(i * 31 + 7);
	return buf;
}

/*
 * fsbench write FILE MIB.  The file is unlinked first rather than
 * truncated: ext4 flushes a truncated-then-rewritten file on close
 * (auto_da_alloc), which would time the disk instead of the filesystem.
 * No fsync, for the same reason: what is compared is the path to the
 * backing page cache.
 */
static int cmd_write(int argc, char **argv)
{
	unsigned long mib;
	void *buf;
	double t0;
	int fd;

	if (argc != 3)
		die("usage: write FILE MIB");
	mib = parse_num(argv[2], "size");
	buf = io_buffer();
	if (unlink(argv[1]) < 0 && errno != ENOENT)
		die("%s: %s", argv[1], strerror(errno));
	t0 = now_us();
	fd = open(argv[1], O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0)
		die("%s: %s", argv[1], strerror(errno));
	for (unsigned long i = 0; i < mib; i++)
		if (write(fd, buf, IO_CHUNK) != (ssize_t)IO_CHUNK)
			die("%s: write: %s", argv[1], strerror(errno));
	if (close(fd) < 0)
		die("%s: close: %s", argv[1], strerror(errno));
	printf("mbps %.1f\n", (double)mib * IO_CHUNK / (now_us() - t0));
	free(buf);
	return 0;
}

/* fsbench read FILE */
static int cmd_read(int argc, char **argv)
{
	unsigned long long total = 0;
	ssize_t got;
	void *buf;
	double t0;
	int fd;

	if (argc != 2)
		die("usage: read FILE");
	buf = io_buffer();
	t0 = now_us();
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("%s: %s", argv[1], strerror(errno));
	while ((got = read(fd, buf, IO_CHUNK)) > 0)
		total += (unsigned long long)got;
	if (got < 0)
		die("%s: read: %s", argv[1], strerror(errno));
	close(fd);
	printf("mbps %.1f\n", (double)total / (now_us() - t0));
	free(buf);
	return 0;
}

/* fsbench readdir DIR N: every entry, and there must be N. */
static int cmd_readdir(int argc, char **argv)
{
	unsigned long entries = 0, want;
	struct dirent *d;
	double t0, ms;
	DIR *dp;

	if (argc != 3)
		die("usage: readdir DIR N");
	want = parse_num(argv[2], "count");
	t0 = now_us();
	dp = opendir(argv[1]);
	if (!dp)
		die("%s: %s", argv[1], strerror(errno));
	errno = 0;
	while ((d = readdir(dp)) != NULL)
		if (strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0)
			entries++;
	if (errno)
		die("%s: readdir: %s", argv[1], strerror(errno));
	closedir(dp);
	ms = (now_us() - t0) / 1e3;
	if (entries != want)
		die("%s: %lu entries, not %lu", argv[1], entries, want);
	printf("ms %.3f\n", ms);
	return 0;
}

/* fsbench paths stat|open|list DIR LIST */
static int cmd_paths(int argc, char **argv)
{
	unsigned long ops = 0, errors = 0, entries = 0, bytes = 0;
	static char buf[1 << 16];
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	double t0, us;
	int dirfd, mode;
	FILE *list;

	if (argc != 4)
		die("usage: paths stat|open|list DIR LIST");
	if (strcmp(argv[1], "stat") == 0)
		mode = 0;
	else if (strcmp(argv[1], "open") == 0)
		mode = 1;
	else if (strcmp(argv[1], "list") == 0)
		mode = 2;
	else
		die("paths: stat, open or list, not %s", argv[1]);
	dirfd = open(argv[2], O_RDONLY | O_DIRECTORY);
	if (dirfd < 0)
		die("%s: %s", argv[2], strerror(errno));
	list = fopen(argv[3], "r");
	if (!list)
		die("%s: %s", argv[3], strerror(errno));
	t0 = now_us();
	while ((len = getline(&line, &cap, list)) > 0) {
		struct stat st;
		int fd;

		if (line[len - 1] == '\n')
			line[--len] = '\0';
		ops++;
		if (mode == 0) {
			errors += fstatat(dirfd, line, &st, AT_SYMLINK_NOFOLLOW) != 0;
		} else if (mode == 1) {
			ssize_t n;

			fd = openat(dirfd, line, O_RDONLY);
			if (fd < 0) {
				errors++;
				continue;
			}
			while ((n = read(fd, buf, sizeof(buf))) > 0)
				bytes += (unsigned long)n;
			errors += n < 0;
			close(fd);
		} else {
			struct dirent *d;
			DIR *dp;

			fd = openat(dirfd, line, O_RDONLY | O_DIRECTORY);
			if (fd < 0 || !(dp = fdopendir(fd))) {
				if (fd >= 0)
					close(fd);
				errors++;
				continue;
			}
			errno = 0;
			while ((d = readdir(dp)) != NULL)
				entries += strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0;
			errors += errno != 0;
			closedir(dp);
		}
	}
	us = now_us() - t0;
	free(line);
	fclose(list);
	close(dirfd);
	printf("per %.3f\nops %lu\nentries %lu\nbytes %lu\nerrors %lu\n",
	       ops ? us / (double)ops : 0.0, ops, entries, bytes, errors);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(int, char **);
	} cmds[] = {
		{ "fill", cmd_fill }, { "stat", cmd_stat }, { "meta", cmd_meta },
		{ "write", cmd_write }, { "read", cmd_read }, { "readdir", cmd_readdir },
		{ "create", cmd_create }, { "statall", cmd_statall }, { "watch", cmd_watch },
		{ "readall", cmd_readall }, { "paths", cmd_paths },
	};

	if (argc >= 2)
		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
			if (strcmp(argv[1], cmds[i].name) == 0)
				return cmds[i].run(argc - 1, argv + 1);  /* argv[0]: the command */
	die("usage: fsbench fill|create|stat|statall|readall|meta|write|read|readdir|watch|paths ARGS (see bench/fsbench.c)");
}

/*
 * fsreport: the tables of the filesystem benchmark, from the records that
 * bench/fs.sh collected, one per line on stdin:
 *
 *   TEST PEER SIZE ROUND METRIC VALUE
 *
 * TEST is what was measured (create, inode, warm-exact, cold-miscased,
 * readdir, meta, data, ...), PEER who (direct, bindfs, casefoldfs, scan), SIZE the
 * directory's entries (threads for meta, MiB for data), METRIC and VALUE one
 * line of fsbench's output.  Cells are medians over rounds; ratios are
 * medians over rounds of one value over another measured in the same round,
 * which cancels load that slows a whole round.  Usage: fsreport < RECORDS
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROUNDS 64
#define MAX_SIZES 8

struct record {
	char test[24], peer[16], metric[16];
	unsigned long size;
	int round;
	double value;
};

static struct record *recs;
static size_t nrecs;
static unsigned long sizes[MAX_SIZES];  /* directory sizes, ascending */
static size_t nsizes;

/* Noise: interquartile range over median of every cell and ratio printed. */
static double noise_sum, ratio_noise_sum, ratio_noise_worst;
static size_t noise_n, ratio_noise_n;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("fsreport: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void add_size(unsigned long size)
{
	size_t i = 0;

	while (i < nsizes && sizes[i] < size)
		i++;
	if (i < nsizes && sizes[i] == size)
		return;
	if (nsizes == MAX_SIZES)
		die("too many directory sizes");
	memmove(sizes + i + 1, sizes + i, (nsizes - i) * sizeof(sizes[0]));
	sizes[i] = size;
	nsizes++;
}

static void read_records(void)
{
	char line[256];
	size_t cap = 0;

	while (fgets(line, sizeof(line), stdin)) {
		struct record r;

		if (sscanf(line, "%23s %15s %lu %d %15s %lf", r.test, r.peer, &r.size, &r.round,
			   r.metric, &r.value) != 6 || r.round < 0 || r.round >= MAX_ROUNDS)
			die("bad record: %s", line);
		if (nrecs == cap) {
			cap = cap ? 2 * cap : 1024;
			recs = realloc(recs, cap * sizeof(*recs));
			if (!recs)
				die("out of memory");
		}
		recs[nrecs++] = r;
		if (strncmp(r.test, "warm-", 5) == 0)
			add_size(r.size);
	}
}

/* What one measurement is: a test, a peer, a size and a metric. */
struct key {
	const char *test, *peer;
	unsigned long size;
	const char *metric;
};

/* The value of k in each round (NAN where none); returns the highest round + 1. */
static int by_round(struct key k, double v[MAX_ROUNDS])
{
	int rounds = 0;

	for (int i = 0; i < MAX_ROUNDS; i++)
		v[i] = NAN;
	for (size_t i = 0; i < nrecs; i++) {
		const struct record *r = &recs[i];

		if (r->size == k.size && strcmp(r->test, k.test) == 0 &&
		    strcmp(r->peer, k.peer) == 0 && strcmp(r->metric, k.metric) == 0) {
			v[r->round] = r->value;
			if (r->round + 1 > rounds)
				rounds = r->round + 1;
		}
	}
	return rounds;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts the n numbers of v and returns their median (NAN if none). */
static double median_of(double *v, size_t n, double *iqr_over_median)
{
	double m;

	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	if (iqr_over_median)
		*iqr_over_median = m > 0 ? (v[(3 * n) / 4] - v[n / 4]) / m : 0;
	return m;
}

static double median(struct key k)
{
	double v[MAX_ROUNDS], got[MAX_ROUNDS], noise;
	int rounds = by_round(k, v);
	size_t n = 0;
	double m;

	for (int i = 0; i < rounds; i++)
		if (!isnan(v[i]))
			got[n++] = v[i];
	m = median_of(got, n, &noise);
	if (n > 1) {
		noise_sum += noise;
		noise_n++;
	}
	return m;
}

/* Median over rounds of a's value over b's in the same round. */
static double ratio(struct key a, struct key b)
{
	double va[MAX_ROUNDS], vb[MAX_ROUNDS], q[MAX_ROUNDS], noise;
	int ra = by_round(a, va), rb = by_round(b, vb);
	size_t n = 0;
	double m;

	for (int i = 0; i < ra && i < rb; i++)
		if (!isnan(va[i]) && !isnan(vb[i]) && vb[i] > 0)
			q[n++] = va[i] / vb[i];
	m = median_of(q, n, &noise);
	if (n > 1) {
		ratio_noise_sum += noise;
		ratio_noise_n++;
		if (noise > ratio_noise_worst)
			ratio_noise_worst = noise;
	}
	return m;
}

static void print_num(double v)
{
	if (isnan(v))
		printf("—");
	else if (v >= 100)
		printf("%.0f", v);
	else if (v >= 10)
		printf("%.1f", v);
	else
		printf("%.2f", v);
}

/* "value (ratio×)"; the ratio is left out where it would be 1 by definition. */
static void print_cell(double v, double r, bool show_ratio)
{
	print_num(v);
	if (show_ratio && !isnan(v) && !isnan(r))
		printf(" (%.2f×)", r);
}

static const char *size_label(unsigned long n)
{
	static char buf[4][32];
	static int next;
	char digits[24], *out = buf[next++ % 4];
	int len = snprintf(digits, sizeof(digits), "%lu", n), o = 0;

	for (int i = 0; i < len; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
	return out;
}

static void size_header(const char *first)
{
	printf("| %s |", first);
	for (size_t i = 0; i < nsizes; i++)
		printf(" %s entries |", size_label(sizes[i]));
	printf("\n|---|");
	for (size_t i = 0; i < nsizes; i++)
		printf("--:|");
	printf("\n");
}

struct row {
	const char *label;
	const char *peer;
	const char *kind;   /* exact, miscased, missing */
};

static const char *peer_label(const char *peer)
{
	if (strcmp(peer, "direct") == 0)
		return "backing ext4 directly";
	if (strcmp(peer, "scan") == 0)
		return "scan-on-miss, on the backing directory";
	return peer;
}

/*
 * One stat table: rows of (peer, kind), a column per directory size, each
 * cell the metric's median (times scale) with its ratio to the reference
 * row's in the same round.
 */
static void stat_table(const char *phase, const struct row *rows, size_t nrows,
		       const char *metric, double scale, const struct row *ref)
{
	char test[24], ref_test[24];

	size_header("lookup · names");
	snprintf(ref_test, sizeof(ref_test), "%s-%s", phase, ref->kind);
	for (size_t i = 0; i < nrows; i++) {
		bool is_ref = &rows[i] == ref;

		snprintf(test, sizeof(test), "%s-%s", phase, rows[i].kind);
		printf("| %s · %s |", peer_label(rows[i].peer), rows[i].label);
		for (size_t s = 0; s < nsizes; s++) {
			struct key k = { test, rows[i].peer, sizes[s], metric };
			struct key rk = { ref_test, ref->peer, sizes[s], metric };

			printf(" ");
			print_cell(median(k) * scale, ratio(k, rk), !is_ref);
			printf(" |");
		}
		printf("\n");
	}
	printf("\n");
}

static const struct row warm_rows[] = {
	{ "exact names", "direct", "exact" },
	{ "names that do not exist", "direct", "missing" },
	{ "exact names", "bindfs", "exact" },
	{ "names that do not exist", "bindfs", "missing" },
	{ "exact names", "casefoldfs", "exact" },
	{ "miscased names", "casefoldfs", "miscased" },
	{ "names that do not exist", "casefoldfs", "missing" },
	{ "miscased names", "scan", "miscased" },
	{ "names that do not exist", "scan", "missing" },
};
#define WARM_CFS_EXACT (&warm_rows[4])

static const struct row cold_rows[] = {
	{ "exact names", "direct", "exact" },
	{ "exact names", "bindfs", "exact" },
	{ "exact names", "casefoldfs", "exact" },
	{ "miscased names", "casefoldfs", "miscased" },
	{ "miscased names", "scan", "miscased" },
};
#define COLD_CFS_EXACT (&cold_rows[2])

static const char *const peers3[] = { "direct", "bindfs", "casefoldfs" };

/* Median over rounds of the daemon's growth over the names indexed. */
static double bytes_per_entry(unsigned long size)
{
	double r0[MAX_ROUNDS], r1[MAX_ROUNDS], names[MAX_ROUNDS], b[MAX_ROUNDS];
	int rounds = by_round((struct key){ "cold-miscased", "casefoldfs", size, "rss0" }, r0);
	size_t n = 0;

	by_round((struct key){ "cold-miscased", "casefoldfs", size, "rss1" }, r1);
	by_round((struct key){ "cold-miscased", "casefoldfs", size, "indexed" }, names);
	for (int i = 0; i < rounds; i++)
		if (!isnan(r0[i]) && !isnan(r1[i]) && names[i] > 0)
			b[n++] = (r1[i] - r0[i]) * 1024 / names[i];
	return median_of(b, n, NULL);
}

static void memory_table(void)
{
	printf("### casefoldfs daemon memory for the index (fresh mount, caches dropped; VmRSS just "
	       "before and after the first miscased stat, which builds the directory's index)\n\n");
	size_header("median over rounds");
	printf("| names in the index |");
	for (size_t s = 0; s < nsizes; s++) {
		printf(" ");
		print_num(median((struct key){ "cold-miscased", "casefoldfs", sizes[s], "indexed" }));
		printf(" |");
	}
	printf("\n| VmRSS growth, KiB |");
	for (size_t s = 0; s < nsizes; s++) {
		struct key k = { "cold-miscased", "casefoldfs", sizes[s], "rss1" };
		struct key k0 = { "cold-miscased", "casefoldfs", sizes[s], "rss0" };

		printf(" ");
		print_num(median(k) - median(k0));
		printf(" |");
	}
	printf("\n| bytes per indexed name |");
	for (size_t s = 0; s < nsizes; s++) {
		printf(" ");
		print_num(bytes_per_entry(sizes[s]));
		printf(" |");
	}
	printf("\n\n");
}

/* The distinct sizes recorded for test, ascending (threads for meta, MiB for io-*). */
static size_t sizes_of(const char *test, unsigned long *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < nrecs; i++) {
		size_t j = 0;

		if (strcmp(recs[i].test, test) != 0)
			continue;
		while (j < n && out[j] < recs[i].size)
			j++;
		if ((j < n && out[j] == recs[i].size) || n == max)
			continue;
		memmove(out + j + 1, out + j, (n - j) * sizeof(*out));
		out[j] = recs[i].size;
		n++;
	}
	return n;
}

/* Median over rounds of the daemon's growth over the inodes it came to remember. */
static double bytes_per_inode(unsigned long size)
{
	double r0[MAX_ROUNDS], r1[MAX_ROUNDS], nodes[MAX_ROUNDS], b[MAX_ROUNDS];
	int rounds = by_round((struct key){ "inode", "casefoldfs", size, "rss0" }, r0);
	size_t n = 0;

	by_round((struct key){ "inode", "casefoldfs", size, "rss1" }, r1);
	by_round((struct key){ "inode", "casefoldfs", size, "nodes" }, nodes);
	for (int i = 0; i < rounds; i++)
		if (!isnan(r0[i]) && !isnan(r1[i]) && nodes[i] > 0)
			b[n++] = (r1[i] - r0[i]) * 1024 / nodes[i];
	return median_of(b, n, NULL);
}

/* Sum over rounds of a failure count (NAN if never recorded). */
static double failures(const char *test, const char *peer, unsigned long size)
{
	double sum = NAN;

	for (size_t i = 0; i < nrecs; i++) {
		const struct record *r = &recs[i];

		if (r->size == size && strcmp(r->test, test) == 0 && strcmp(r->peer, peer) == 0 &&
		    (strcmp(r->metric, "errors") == 0 || strcmp(r->metric, "failed") == 0))
			sum = (isnan(sum) ? 0 : sum) + r->value;
	}
	return sum;
}

static void row_of(const char *label, const char *test, const char *peer, const char *metric,
		   double scale)
{
	printf("| %s |", label);
	for (size_t s = 0; s < nsizes; s++) {
		printf(" ");
		print_num(median((struct key){ test, peer, sizes[s], metric }) * scale);
		printf(" |");
	}
	printf("\n");
}

static void create_table(void)
{
	printf("### creation through each peer (open O_CREAT|O_EXCL, close; casefoldfs in a +F "
	       "directory, the others in plain ones) — files per second (×: over bindfs's; ≥ 1 "
	       "means at least as fast as bindfs); in brackets, failed creations\n\n");
	size_header("peer");
	for (size_t p = 0; p < 3; p++) {
		printf("| %s |", peer_label(peers3[p]));
		for (size_t s = 0; s < nsizes; s++) {
			struct key k = { "create", peers3[p], sizes[s], "files_per_s" };
			struct key rk = { "create", "bindfs", sizes[s], "files_per_s" };
			double f = failures("create", peers3[p], sizes[s]);

			printf(" ");
			print_cell(median(k), ratio(k, rk), strcmp(peers3[p], "bindfs") != 0);
			if (!isnan(f) && f > 0)
				printf(" (**%.0f failed**)", f);
			printf(" |");
		}
		printf("\n");
	}
	printf("\n");
}

static void inode_table(void)
{
	printf("### casefoldfs daemon per remembered inode (no index: a plain directory stat'ed "
	       "whole on a fresh mount; nodes from the daemon's stats where it reports them)\n\n");
	size_header("casefoldfs daemon");
	row_of("open descriptors after creating the +F directory through the mount", "create",
	       "casefoldfs", "fds", 1);
	row_of("inodes remembered by the stat of every file", "inode", "casefoldfs", "nodes", 1);
	row_of("open descriptors after that stat", "inode", "casefoldfs", "fds", 1);
	printf("| VmRSS growth, KiB |");
	for (size_t s = 0; s < nsizes; s++) {
		printf(" ");
		print_num(median((struct key){ "inode", "casefoldfs", sizes[s], "rss1" }) -
			  median((struct key){ "inode", "casefoldfs", sizes[s], "rss0" }));
		printf(" |");
	}
	printf("\n| bytes per remembered inode (target ≤ 200) |");
	for (size_t s = 0; s < nsizes; s++) {
		printf(" ");
		print_num(bytes_per_inode(sizes[s]));
		printf(" |");
	}
	printf("\n| failed stats |");
	for (size_t s = 0; s < nsizes; s++) {
		double f = failures("inode", "casefoldfs", sizes[s]);

		if (isnan(f))
			printf(" — |");
		else
			printf(" %s%.0f%s |", f > 0 ? "**" : "", f, f > 0 ? "**" : "");
	}
	printf("\n\n");
}

/* Every measurement with failed operations, summed over rounds. */
static void failure_table(void)
{
	static const char *const peers[] = { "direct", "bindfs", "casefoldfs", "scan" };
	char seen[64][24];
	size_t nseen = 0, shown = 0;

	for (size_t i = 0; i < nrecs; i++) {
		bool dup = false;

		for (size_t j = 0; j < nseen && !dup; j++)
			dup = strcmp(seen[j], recs[i].test) == 0;
		if (!dup && nseen < 64)
			snprintf(seen[nseen++], sizeof(seen[0]), "%s", recs[i].test);
	}
	printf("### failed operations (EMFILE and the like, wrong answers, measurements that "
	       "could not finish), summed over rounds\n\n");
	for (size_t t = 0; t < nseen; t++) {
		unsigned long sz[MAX_SIZES + 8];
		size_t nsz = sizes_of(seen[t], sz, MAX_SIZES + 8);

		for (size_t p = 0; p < 4; p++)
			for (size_t s = 0; s < nsz; s++) {
				double f = failures(seen[t], peers[p], sz[s]);

				if (isnan(f) || f == 0)
					continue;
				if (shown++ == 0)
					printf("| measurement | peer | size | failed |\n|---|---|--:|--:|\n");
				printf("| %s | %s | %s | %.0f |\n", seen[t], peer_label(peers[p]),
				       size_label(sz[s]), f);
			}
	}
	printf("%s\n", shown ? "" : "None.\n");
}

static void readdir_table(void)
{
	printf("### readdir of the whole directory — median ms (×: the time over bindfs's in the "
	       "same round; < 1 means faster than bindfs)\n\n");
	size_header("readdir (glibc readdir, every entry)");
	for (size_t p = 0; p < 3; p++) {
		printf("| %s |", peer_label(peers3[p]));
		for (size_t s = 0; s < nsizes; s++) {
			struct key k = { "readdir", peers3[p], sizes[s], "ms" };
			struct key rk = { "readdir", "bindfs", sizes[s], "ms" };

			printf(" ");
			print_cell(median(k), ratio(k, rk), strcmp(peers3[p], "bindfs") != 0);
			printf(" |");
		}
		printf("\n");
	}
	printf("\n");
}

static const char *const meta_ops[] = { "create", "rename", "unlink" };

static void meta_table(void)
{
	unsigned long threads[4];
	size_t nt = sizes_of("meta", threads, 4);

	printf("### metadata throughput, a +F directory per thread — median operations per second "
	       "(×: over bindfs's in the same round; ≥ 1 means at least as fast as bindfs)\n\n");
	printf("| peer · threads | create (open O_CREAT, close) | rename | unlink |\n"
	       "|---|--:|--:|--:|\n");
	for (size_t t = 0; t < nt; t++) {
		for (size_t p = 0; p < 3; p++) {
			printf("| %s · %lu |", peer_label(peers3[p]), threads[t]);
			for (size_t o = 0; o < 3; o++) {
				struct key k = { "meta", peers3[p], threads[t], meta_ops[o] };
				struct key rk = { "meta", "bindfs", threads[t], meta_ops[o] };

				printf(" ");
				print_cell(median(k), ratio(k, rk), strcmp(peers3[p], "bindfs") != 0);
				printf(" |");
			}
			printf("\n");
		}
	}
	printf("\n");
}

static void io_table(void)
{
	unsigned long mib = 0;

	sizes_of("io-write", &mib, 1);
	printf("### sequential I/O, one %lu MiB file, 1 MiB calls — median MB/s (×: over bindfs's "
	       "in the same round; ≥ 1 means at least as fast as bindfs)\n\n", mib);
	printf("| peer | write (new file, no fsync) | read (backing file in the page cache) |\n"
	       "|---|--:|--:|\n");
	for (size_t p = 0; p < 3; p++) {
		printf("| %s |", peer_label(peers3[p]));
		for (const char *const *t = (const char *const[]){ "io-write", "io-read", NULL }; *t; t++) {
			struct key k = { *t, peers3[p], mib, "mbps" };
			struct key rk = { *t, "bindfs", mib, "mbps" };

			printf(" ");
			print_cell(median(k), ratio(k, rk), strcmp(peers3[p], "bindfs") != 0);
			printf(" |");
		}
		printf("\n");
	}
	printf("\n");
}

static void target_row(const char *what, const char *wanted, double measured,
		       const char *unit, const char *note, bool met)
{
	printf("| %s | %s | %.2f%s%s | %s |\n", what, wanted, measured, unit, note,
	       met ? "met" : "**not met**");
}

static void targets(void)
{
	static const char *const kinds[] = { "miscased", "missing" };
	char what[160], note[64];
	unsigned long threads[4], mib = 0, lo = sizes[0], hi = sizes[nsizes - 1];
	size_t nt = sizes_of("meta", threads, 4);

	sizes_of("io-write", &mib, 1);
	printf("### Targets of issues 6 and 12 (filesystem), as ratios in this run\n\n"
	       "| target | wanted | measured | |\n|---|--:|--:|---|\n");
	for (size_t k = 0; k < 2; k++) {
		char test[24];

		snprintf(test, sizeof(test), "warm-%s", kinds[k]);
		for (size_t s = 0; s < nsizes; s++) {
			double r = ratio((struct key){ test, "casefoldfs", sizes[s], "per" },
					 (struct key){ "warm-exact", "casefoldfs", sizes[s], "per" });

			snprintf(what, sizeof(what), "stat of %s names over exact names, warm, "
				 "casefoldfs, %s entries", kinds[k], size_label(sizes[s]));
			target_row(what, "≤ 1.5×", r, "×", "", r <= 1.5);
		}
	}
	for (size_t k = 0; k < 2; k++) {
		char test[24];
		double r, scan;

		snprintf(test, sizeof(test), "warm-%s", kinds[k]);
		r = ratio((struct key){ test, "casefoldfs", hi, "per" },
			  (struct key){ test, "casefoldfs", lo, "per" });
		scan = ratio((struct key){ test, "scan", hi, "per" },
			     (struct key){ test, "scan", lo, "per" });
		snprintf(what, sizeof(what), "flat: stat of %s names, warm, %s entries over %s",
			 kinds[k], size_label(hi), size_label(lo));
		snprintf(note, sizeof(note), " (scan-on-miss: %.0f×)", scan);
		target_row(what, "≤ 1.5×", r, "×", note, r <= 1.5);
	}
	for (size_t t = 0; t < nt; t++) {
		for (size_t o = 0; o < 3; o++) {
			double r = ratio((struct key){ "meta", "casefoldfs", threads[t], meta_ops[o] },
					 (struct key){ "meta", "bindfs", threads[t], meta_ops[o] });

			snprintf(what, sizeof(what), "%s throughput, %lu thread%s, over bindfs's",
				 meta_ops[o], threads[t], threads[t] == 1 ? "" : "s");
			target_row(what, "≥ 0.8×", r, "×", "", r >= 0.8);
		}
	}
	for (const char *const *t = (const char *const[]){ "io-write", "io-read", NULL }; *t; t++) {
		double r = ratio((struct key){ *t, "casefoldfs", mib, "mbps" },
				 (struct key){ *t, "bindfs", mib, "mbps" });

		snprintf(what, sizeof(what), "sequential %s throughput over bindfs's", *t + 3);
		target_row(what, "≥ 0.9×", r, "×", "", r >= 0.9);
	}
	{
		double b = bytes_per_entry(hi), i = bytes_per_inode(hi);

		snprintf(what, sizeof(what), "daemon memory per indexed name, %s entries",
			 size_label(hi));
		target_row(what, "≤ 150 bytes", b, " bytes", "", b <= 150);
		snprintf(what, sizeof(what), "daemon memory per remembered inode beyond the index, "
			 "%s files", size_label(hi));
		target_row(what, "≤ 200 bytes", i, " bytes", "", i <= 200);
	}
	printf("\n");
}

int main(void)
{
	read_records();
	if (nsizes == 0)
		die("no stat records on stdin");

	printf("### stat, warm — median µs per stat (×: median over rounds of the time over "
	       "casefoldfs's exact-name stat in the same round)\n\n");
	stat_table("warm", warm_rows, sizeof(warm_rows) / sizeof(warm_rows[0]), "per", 1,
		   WARM_CFS_EXACT);
	printf("### stat, cold (fresh mount, caches dropped) — median µs per stat after the first "
	       "(×: over casefoldfs's exact-name stat, cold, in the same round)\n\n");
	stat_table("cold", cold_rows, sizeof(cold_rows) / sizeof(cold_rows[0]), "per", 1,
		   COLD_CFS_EXACT);
	printf("### first stat in a cold directory (fresh mount, caches dropped) — median ms "
	       "(×: over casefoldfs's first exact-name stat in the same round)\n\n");
	stat_table("cold", cold_rows, sizeof(cold_rows) / sizeof(cold_rows[0]), "first", 1e-3,
		   COLD_CFS_EXACT);
	memory_table();
	create_table();
	inode_table();
	readdir_table();
	meta_table();
	io_table();
	failure_table();
	targets();
	printf("Noise (interquartile range over median): cells %.1f%% on average; paired ratios "
	       "%.1f%% on average, worst %.1f%%.\n\n",
	       noise_n ? 100 * noise_sum / (double)noise_n : 0,
	       ratio_noise_n ? 100 * ratio_noise_sum / (double)ratio_noise_n : 0,
	       100 * ratio_noise_worst);
	return 0;
}

/* The checks of optcheck.h: option numbers and names. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "main/optcheck.h"
#include "main/usage.h"

int optcheck_number(const struct optcheck_range *r, const char *text, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!text)
		return 0;
	/* strtoull would take a sign ("-1" becomes 2^64 - 1) or blanks. */
	errno = 0;
	v = isdigit((unsigned char)text[0]) ? strtoull(text, &end, 10) : 0;
	if (!isdigit((unsigned char)text[0]) || *end || errno == ERANGE || v < r->min ||
	    v > r->max) {
		fprintf(stderr, "casefoldfs: %s must be a whole number of %s from %llu to %llu, "
			"not \"%s\"\n", r->name, r->unit, (unsigned long long)r->min,
			(unsigned long long)r->max, text);
		return -1;
	}
	*out = v;
	return 0;
}

/*
 * libfuse 3's -o options, as fuse_parse_cmdline, fuse_session_new and its
 * mount code take them; mount.fuse3 removes the generic ones (nofail,
 * noauto, user, ...) before casefoldfs sees them.
 */
static const char *const fuse_opts[] = {
	"debug", "allow_root", "allow_other", "auto_unmount", "blkdev", "blksize",
	"fsname", "subtype", "max_read", "default_permissions", "context", "fscontext",
	"defcontext", "rootcontext", "user", "ro", "rw", "suid", "nosuid", "dev", "nodev",
	"exec", "noexec", "async", "sync", "dirsync", "atime", "noatime", "diratime",
	"nodiratime", "lazytime", "nolazytime", "relatime", "norelatime", "strictatime",
	"nostrictatime", "clone_fd", "max_threads", "max_idle_threads", NULL,
};

/* Edits (insert, delete, replace, swap two neighbours) from a[0..n) to b. */
static size_t distance(const char *a, size_t n, const char *b)
{
	size_t m = strlen(b), d[3][64], *prev2 = d[0], *prev = d[1], *cur = d[2];

	if (n >= 63 || m >= 63)
		return 64;
	for (size_t j = 0; j <= m; j++)
		prev[j] = j;
	for (size_t i = 1; i <= n; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= m; j++) {
			size_t best = prev[j - 1] + (a[i - 1] != b[j - 1]);

			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
		size_t *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[m];
}

/*
 * The closest of casefoldfs's names, then libfuse's (a tie goes to the
 * first), if within a few edits of name[0..n); *arg is its argument.
 */
static const char *closest(const char *name, size_t n, const char **arg)
{
	const char *best = NULL;
	size_t limit = n < 4 ? 1 : n < 9 ? 2 : 3, best_d = limit + 1;

	*arg = NULL;
	for (const struct cfs_usage_opt *o = cfs_usage_opts; o->name; o++) {
		size_t d = distance(name, n, o->name);

		if (d < best_d)
			best = o->name, *arg = o->arg, best_d = d;
	}
	for (const char *const *f = fuse_opts; *f; f++) {
		size_t d = distance(name, n, *f);

		if (d < best_d)
			best = *f, *arg = NULL, best_d = d;
	}
	return best;
}

int optcheck_unknown(const char *arg)
{
	size_t n = strcspn(arg, "=");
	const char *best, *best_arg;

	if (arg[0] == '-')      /* -f, -d, -s, -h: fuse_parse_cmdline's */
		return 0;
	for (const char *const *f = fuse_opts; *f; f++)
		if (strlen(*f) == n && strncmp(arg, *f, n) == 0)
			return 0;
	best = closest(arg, n, &best_arg);
	if (!best)
		return 0;
	fprintf(stderr, "casefoldfs: unknown option \"%s\"; did you mean \"%s%s%s\"? "
		"(casefoldfs --help lists them all)\n", arg, best, best_arg ? "=" : "",
		best_arg ? best_arg : "");
	return -1;
}

/* Collisions across directories that merge once casefolded (merged.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tree/merged.h"

struct level {
	const struct cli_rules *r;
	int dirfd;                   /* the audited directory */
	const struct cli_dirlist *m; /* the merged listing */
	cli_merged_fn *fn;
	void *ctx;
};

static bool is_dir(int dirfd, const struct cli_dirlist *l, size_t i)
{
	struct stat st;

	if (l->e[i].type != DT_UNKNOWN)
		return l->e[i].type == DT_DIR;
	return fstatat(dirfd, cli_dirlist_name(l, i), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISDIR(st.st_mode);
}

/* The directory part of a merged path ("Icons" of "Icons/app.ico"). */
static size_t parent_len(const struct cli_dirlist *m, size_t i)
{
	const char *name = cli_dirlist_name(m, i), *slash = strrchr(name, '/');

	return slash ? (size_t)(slash - name) : 0;
}

/* Whether a set holds entries of two different merged directories. */
static bool spans(const struct cli_dirlist *m, const struct cli_finding *f)
{
	size_t first = parent_len(m, f->idx[0]);

	for (size_t i = 1; i < f->n; i++) {
		size_t len = parent_len(m, f->idx[i]);

		if (len != first || memcmp(cli_dirlist_name(m, f->idx[0]),
					   cli_dirlist_name(m, f->idx[i]), len) != 0)
			return true;
	}
	return false;
}

static int found(void *ctx, const struct cli_finding *f)
{
	struct level *lv = ctx;
	int err;

	if (!spans(lv->m, f))
		return 0;
	if ((err = lv->fn(lv->ctx, lv->m, f)) != 0)
		return err;
	return cli_merged_collisions(lv->r, lv->dirfd, lv->m, f, lv->fn, lv->ctx);
}

/* Appends "dir/name" for every entry of the directory dir (relative to dirfd). */
static int add_entries(struct cli_dirlist *m, int dirfd, const char *dir)
{
	struct cli_dirlist sub = { 0 };
	char path[4096];
	int fd = cli_open_dir(dirfd, dir, O_NOFOLLOW), err;

	if (fd < 0)
		return errno == ENOMEM ? -ENOMEM : 0;
	err = cli_dirlist_read(&sub, fd);
	close(fd);
	for (size_t i = 0; !err && i < sub.n; i++) {
		int n = snprintf(path, sizeof(path), "%s/%s", dir, cli_dirlist_name(&sub, i));

		if (n > 0 && (size_t)n < sizeof(path))
			err = cli_dirlist_add(m, path, (size_t)n, sub.e[i].type);
	}
	cli_dirlist_free(&sub);
	return err == -ENOMEM ? err : 0;
}

int cli_merged_collisions(const struct cli_rules *r, int dirfd, const struct cli_dirlist *l,
			  const struct cli_finding *set, cli_merged_fn *fn, void *ctx)
{
	struct cli_dirlist m = { 0 };
	struct level lv = { r, dirfd, &m, fn, ctx };
	size_t dirs = 0;
	int err = 0;

	for (size_t i = 0; i < set->n; i++)
		dirs += is_dir(dirfd, l, set->idx[i]);
	if (dirs < 2)
		return 0;
	for (size_t i = 0; !err && i < set->n; i++)
		if (is_dir(dirfd, l, set->idx[i]))
			err = add_entries(&m, dirfd, cli_dirlist_name(l, set->idx[i]));
	if (!err)
		err = cli_findings(r, &m, CLI_FIND_COLLISIONS, found, &lv);
	cli_dirlist_free(&m);
	return err;
}

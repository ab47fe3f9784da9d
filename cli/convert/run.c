/* The conversion itself (see convert/run.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convert/run.h"
#include "diag.h"
#include "tree/dirlist.h"
#include "tree/dirmeta.h"

/* The name of a subdirectory's replacement, when it is free. */
#define TEMP_NAME ".casefold-new"

/* Every change to the filesystem or the journal is one step. */
static void step(struct cli_convert *c)
{
	if (c->crash_after && ++c->steps >= c->crash_after)
		_exit(99);
}

/* Say what failed, once: callers pass -ECANCELED up without a word. */
static int fail(struct cli_convert *c, const char *rel, const char *what, int err)
{
	if (err == -ECANCELED)
		return err;
	cli_progress_clear(&c->progress);
	cli_error("convert: %s%s%s: %s: %s", c->shown, *rel ? "/" : "", rel, what, strerror(-err));
	return -ECANCELED;
}

static char *join(const char *rel, const char *name)
{
	size_t n = strlen(rel) + strlen(name) + 2;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "%s%s%s", rel, *rel ? "/" : "", name);
	return s;
}

/*
 * Open the parent of rel (a path relative to the directory, in final
 * names) into *pfd and point *name at rel's last component.
 */
static int open_parent(struct cli_convert *c, const char *rel, int *pfd, const char **name)
{
	const char *slash = strrchr(rel, '/');
	char *part;
	int fd;

	if (!*rel) {
		*name = c->base;
		*pfd = dup(c->top);
		return *pfd < 0 ? -errno : 0;
	}
	*name = slash ? slash + 1 : rel;
	fd = cli_open_dir(c->top, c->base, O_NOFOLLOW);
	for (const char *p = rel; fd >= 0 && p != *name;) {
		size_t n = strcspn(p, "/");
		int sub;

		part = strndup(p, n);
		if (!part) {
			close(fd);
			return -ENOMEM;
		}
		sub = cli_open_dir(fd, part, O_NOFOLLOW);
		free(part);
		close(fd);
		fd = sub;
		p += n + 1;
	}
	*pfd = fd;
	return fd < 0 ? -errno : 0;
}

/* A free name for a subdirectory's replacement in the directory pfd. */
static int choose_temp(int pfd, char *out, size_t size)
{
	struct stat st;

	for (unsigned k = 0; k < 1000; k++) {
		snprintf(out, size, k ? TEMP_NAME "~%u" : TEMP_NAME, k);
		if (fstatat(pfd, out, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT)
			return 0;
	}
	return -EEXIST;
}

/*
 * each(c, dfd, rel, name, type, arg) for every entry of dfd (rel), in
 * bytewise order, until one fails: its error, or reading's.
 */
static int each_entry(struct cli_convert *c, int dfd, const char *rel,
		      int (*each)(struct cli_convert *c, int dfd, const char *rel,
				  const char *name, unsigned char type, void *arg),
		      void *arg)
{
	struct cli_dirlist l = { 0 };
	int err = cli_dirlist_read(&l, dfd);

	if (err)
		return fail(c, rel, "reading", err);
	for (size_t i = 0; !err && i < l.n; i++)
		err = each(c, dfd, rel, cli_dirlist_name(&l, i), l.e[i].type, arg);
	cli_dirlist_free(&l);
	return err;
}

/* Step 2, one entry: into the new directory (*arg), renamed as planned. */
static int move_entry(struct cli_convert *c, int dfd, const char *rel, const char *name,
		      unsigned char type, void *arg)
{
	const char *to = cli_journal_renamed(c->j, rel, name);
	int err;

	(void)type;
	if (renameat2(dfd, name, *(int *)arg, to ? to : name, RENAME_NOREPLACE) < 0) {
		char *path = join(rel, name);

		err = fail(c, path ? path : rel, "moving into the new directory", -errno);
		free(path);
		return err;
	}
	step(c);
	c->moved++;
	cli_progress_update(&c->progress, c->moved, name);
	return 0;
}

/* Step 2: every entry of dfd into tfd, renamed as planned. */
static int move_entries(struct cli_convert *c, int dfd, int tfd, const char *rel)
{
	return each_entry(c, dfd, rel, move_entry, &tfd);
}

/*
 * Before step 1: choose TEMP and record it in the journal with the
 * directory's times, unless the journal's open record for rel (a crash)
 * already has.  Returns that record, or NULL after saying why.
 */
static struct cli_pending *announce(struct cli_convert *c, int pfd, int dfd, const char *rel)
{
	struct cli_pending *p = cli_journal_pending(c->j, rel);
	struct stat st;
	char temp[64];
	int err = 0;

	if (p && p->temp)
		return p;
	if (*rel)
		err = choose_temp(pfd, temp, sizeof(temp));
	else
		snprintf(temp, sizeof(temp), "%s", c->root_temp);
	if (!err && fstat(dfd, &st) < 0)
		err = -errno;
	if (!err)
		err = cli_journal_begin(c->j, rel, *rel ? temp : c->root_temp,
					(struct timespec[]){ st.st_atim, st.st_mtim });
	if (err) {
		fail(c, rel, "journal", err);
		return NULL;
	}
	step(c);
	return cli_journal_pending(c->j, rel);
}

/* Step 1: TEMP exists, casefolded, with the directory's extended
 * attributes.  Returns its descriptor, or -ECANCELED after saying why. */
static int make_temp(struct cli_convert *c, int pfd, int dfd, const char *temp, const char *rel)
{
	int tfd = cli_open_dir(pfd, temp, O_NOFOLLOW), err;
	const char *what;

	if (tfd < 0 && errno == ENOENT) {
		if (mkdirat(pfd, temp, 0700) < 0)
			return fail(c, rel, "creating the new directory", -errno);
		step(c);
		tfd = cli_open_dir(pfd, temp, O_NOFOLLOW);
	}
	if (tfd < 0)
		return fail(c, rel, "opening the new directory", -errno);
	/* Inherited from a casefolded parent, or set while still empty. */
	err = cli_casefolded(tfd);
	if (err == 0) {
		err = cli_set_casefold(tfd);
		step(c);
	}
	if (err < 0)
		err = fail(c, rel, "casefolding the new directory", err);
	else if ((err = cli_copy_xattrs(dfd, tfd, &what)) < 0)
		err = fail(c, rel, what, err);
	if (err < 0) {
		close(tfd);
		return err;
	}
	step(c);
	return tfd;
}

/* Steps 2-4: fill TEMP, swap it with pfd/name, remove the old one. */
static int swap_in(struct cli_convert *c, int pfd, const char *name, int dfd, int tfd,
		   const char *temp, const char *rel)
{
	const char *what;
	int err;

	if ((err = move_entries(c, dfd, tfd, rel)) < 0)
		return err;
	if ((err = cli_copy_owner_mode(dfd, tfd, &what)) < 0)
		return fail(c, rel, what, err);
	step(c);
	if (renameat2(pfd, name, pfd, temp, RENAME_EXCHANGE) < 0)
		return fail(c, rel, "exchanging with the new directory", -errno);
	step(c);
	if (unlinkat(pfd, temp, AT_REMOVEDIR) < 0)
		return fail(c, rel, "removing the old directory", -errno);
	step(c);
	return 0;
}

/*
 * Steps 1-4 for the directory pfd/name (rel), resuming where a crash left
 * them if the journal's open record for rel says so.
 */
static int replace_dir(struct cli_convert *c, int pfd, const char *name, const char *rel)
{
	int dfd = cli_open_dir(pfd, name, O_NOFOLLOW), tfd, err;
	struct cli_pending *p;

	if (dfd < 0)
		return fail(c, rel, "opening", -errno);
	if (!(p = announce(c, pfd, dfd, rel))) {
		close(dfd);
		return -ECANCELED;
	}
	if ((tfd = make_temp(c, pfd, dfd, p->temp, rel)) < 0) {
		close(dfd);
		return tfd;
	}
	err = swap_in(c, pfd, name, dfd, tfd, p->temp, rel);
	if (!err)
		c->converted++;
	close(dfd);
	close(tfd);
	return err;
}

static int finish_interrupted(struct cli_convert *c)
{
	struct cli_pending *p = c->j->last_begin ? &c->j->stack[c->j->depth - 1] : NULL;
	const char *name;
	int pfd, dfd, tfd, err, flag;

	if (!p)
		return 0;
	if ((err = open_parent(c, p->path, &pfd, &name)) < 0)
		return fail(c, p->path, "opening its parent", err);
	tfd = cli_open_dir(pfd, p->temp, O_NOFOLLOW);
	dfd = cli_open_dir(pfd, name, O_NOFOLLOW);
	err = 0;
	if (tfd >= 0 && dfd >= 0 && (flag = cli_casefolded(dfd)) > 0) {
		if (cli_casefolded(tfd) != 0)
			err = fail(c, p->path, "both it and its replacement are casefolded", -EEXIST);
		else if (unlinkat(pfd, p->temp, AT_REMOVEDIR) < 0)
			err = fail(c, p->path, "removing the old directory", -errno);
		else
			step(c);
	} else if (dfd < 0) {
		err = fail(c, p->path, "opening", -errno);
	}
	if (tfd >= 0)
		close(tfd);
	if (dfd >= 0)
		close(dfd);
	close(pfd);
	return err;
}

static int convert_tree(struct cli_convert *c, int pfd, const char *name, const char *rel);

/* One entry of dfd (rel): converted if it is a directory. */
static int convert_child(struct cli_convert *c, int dfd, const char *rel, const char *name,
			 unsigned char type, void *arg)
{
	struct stat st;
	char *sub;
	int err;

	(void)arg;
	if (type != DT_DIR && type != DT_UNKNOWN)
		return 0;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
		return 0;
	sub = join(rel, name);
	err = sub ? convert_tree(c, dfd, name, sub) : -ENOMEM;
	free(sub);
	return err;
}

/* The subdirectories of dfd (rel), in bytewise order. */
static int convert_children(struct cli_convert *c, int dfd, const char *rel)
{
	return each_entry(c, dfd, rel, convert_child, NULL);
}

/* Before a child is replaced in dfd, dfd's own times go to the journal. */
static int keep_times(struct cli_convert *c, int dfd, const char *rel)
{
	struct stat st;
	int err;

	if (cli_journal_pending(c->j, rel))
		return 0;
	if (fstat(dfd, &st) < 0)
		return -errno;
	err = cli_journal_keep(c->j, rel, (struct timespec[]){ st.st_atim, st.st_mtim });
	step(c);
	return err;
}

static int convert_tree(struct cli_convert *c, int pfd, const char *name, const char *rel)
{
	int dfd = cli_open_dir(pfd, name, O_NOFOLLOW), flag, err = 0;
	struct cli_pending *p;

	if (dfd < 0)
		return fail(c, rel, "opening", -errno);
	flag = cli_casefolded(dfd);
	if (flag == 0) {
		struct cli_dirlist l = { 0 };

		/* Empty because a crash came after the moves: resume, not flag. */
		p = cli_journal_pending(c->j, rel);
		err = p && p->temp ? 0 : cli_dirlist_read(&l, dfd);
		if (!err && l.n == 0 && !(p && p->temp)) {
			err = cli_set_casefold(dfd);
			step(c);
		} else if (!err) {
			/* Our parent's times change with ours: keep them first. */
			if (*rel) {
				const char *slash = strrchr(rel, '/');
				char *up = strndup(rel, slash ? (size_t)(slash - rel) : 0);

				err = up ? keep_times(c, pfd, up) : -ENOMEM;
				free(up);
			}
			close(dfd);
			dfd = -1;
			if (!err)
				err = replace_dir(c, pfd, name, rel);
			if (!err && (dfd = cli_open_dir(pfd, name, O_NOFOLLOW)) < 0)
				err = -errno;
		}
		cli_dirlist_free(&l);
	} else if (flag < 0) {
		err = flag;
	}
	if (!err)
		err = convert_children(c, dfd, rel);
	p = cli_journal_pending(c->j, rel);
	if (!err && p) {
		if (futimens(dfd, p->times) < 0)
			err = -errno;
		step(c);
		if (!err)
			err = cli_journal_done(c->j, rel);
		step(c);
	}
	if (dfd >= 0)
		close(dfd);
	return err < 0 ? fail(c, rel, "converting", err) : 0;
}

int cli_convert_run(struct cli_convert *c)
{
	int err = finish_interrupted(c);

	if (!err)
		err = convert_tree(c, c->top, c->base, "");
	cli_progress_clear(&c->progress);
	return err;
}

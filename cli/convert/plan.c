/*
 * Planning a conversion.  The walk visits directories in pre-order, so a
 * stack of the directories on the current branch, each with its planned
 * renames, turns an original path into its final one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "convert/plan.h"
#include "diag.h"
#include "quote.h"
#include "tree/dirmeta.h"
#include "tree/walk.h"

/* A directory on the current branch. */
struct level {
	char *orig, *final;         /* paths relative to the root ("" for it) */
	struct cli_rename *renames; /* its own renames, sorted by old (strings: the journal's) */
	size_t nrenames;
};

struct planner {
	struct cli_plan *p;
	size_t rootlen;
	struct level *stack;
	size_t depth, cap;
	/* The directory being visited, for the finding callback. */
	const char *path;
	const struct cli_dirlist *list;
	size_t **sets;              /* its collision sets: count, then members */
	size_t nsets;
};

void cli_plan_suffix(char *out, const char *name, unsigned k)
{
	char suffix[16];
	size_t n = strlen(name), s = (size_t)snprintf(suffix, sizeof(suffix), "~%u", k);

	if (n + s > 255) {
		n = 255 - s;
		while (n > 0 && ((unsigned char)name[n] & 0xC0) == 0x80)
			n--;
	}
	memcpy(out, name, n);
	memcpy(out + n, suffix, s + 1);
}

static int by_old(const void *a, const void *b)
{
	return strcmp(((const struct cli_rename *)a)->old, ((const struct cli_rename *)b)->old);
}

/* Pop the levels that are not ancestors of orig; push orig.  0 or -ENOMEM. */
static int enter_level(struct planner *pl, const char *orig)
{
	const char *base = strrchr(orig, '/');
	struct level *up, *l;
	const char *name, *final;
	size_t flen;

	while (pl->depth > 1) {
		const char *o = pl->stack[pl->depth - 1].orig;
		size_t n = strlen(o);

		if ((n == 0 || (strncmp(orig, o, n) == 0 && orig[n] == '/')))
			break;
		pl->depth--;
		free(pl->stack[pl->depth].orig);
		free(pl->stack[pl->depth].final);
		free(pl->stack[pl->depth].renames);
	}
	if (pl->depth == pl->cap) {
		size_t cap = pl->cap ? 2 * pl->cap : 32;
		struct level *s = realloc(pl->stack, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		pl->stack = s;
		pl->cap = cap;
	}
	l = &pl->stack[pl->depth];
	*l = (struct level){ strdup(orig), NULL, NULL, 0 };
	if (!pl->depth) {
		l->final = strdup("");
	} else {
		struct cli_rename key = { NULL, NULL, NULL }, *r;

		up = &pl->stack[pl->depth - 1];
		name = base ? base + 1 : orig;
		key.old = (char *)name;
		/* (bsearch and memcpy want real pointers even for no elements.) */
		r = up->nrenames ? bsearch(&key, up->renames, up->nrenames, sizeof(key), by_old)
				 : NULL;
		final = r ? r->new : name;
		flen = strlen(up->final) + strlen(final) + 2;
		l->final = malloc(flen);
		if (l->final)
			snprintf(l->final, flen, "%s%s%s", up->final, *up->final ? "/" : "", final);
	}
	if (!l->orig || !l->final) {
		free(l->orig);
		free(l->final);
		return -ENOMEM;
	}
	pl->depth++;
	return 0;
}

static int found(void *ctx, const struct cli_finding *f)
{
	struct planner *pl = ctx;
	size_t **s;

	if (f->kind == CLI_INVALID) {
		const char *name = cli_dirlist_name(pl->list, f->idx[0]);
		size_t n = strlen(pl->path) + strlen(name) + 2;
		char **v = realloc(pl->p->invalid_paths, (pl->p->invalid + 2) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		pl->p->invalid_paths = v;
		if (!(v[pl->p->invalid] = malloc(n)))
			return -ENOMEM;
		snprintf(v[pl->p->invalid], n, "%s/%s", pl->path, name);
		v[++pl->p->invalid] = NULL;
		return 0;
	}
	pl->p->collisions++;
	if (!pl->p->rename) {
		cli_audit_finding(pl->p->report, pl->path, pl->list, f);
		return 0;
	}
	s = realloc(pl->sets, (pl->nsets + 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	pl->sets = s;
	if (!(s[pl->nsets] = malloc((f->n + 1) * sizeof(**s))))
		return -ENOMEM;
	s[pl->nsets][0] = f->n;
	memcpy(s[pl->nsets] + 1, f->idx, f->n * sizeof(**s));
	pl->nsets++;
	return 0;
}

/* The names a directory will hold, to find free ones: hashed with the rule. */
struct taken {
	struct slot { uint64_t hash; const char *name; } *slot;
	size_t mask;
};

static void take(struct taken *t, const struct cli_rules *r, const char *name)
{
	uint64_t h = 0;
	size_t i;

	cf_name_hash(&r->rule, name, strlen(name), &h);
	for (i = h & t->mask; t->slot[i].name; i = (i + 1) & t->mask)
		;
	t->slot[i] = (struct slot){ h, name };
}

static bool is_taken(const struct taken *t, const struct cli_rules *r, const char *name)
{
	uint64_t h = 0;

	cf_name_hash(&r->rule, name, strlen(name), &h);
	for (size_t i = h & t->mask; t->slot[i].name; i = (i + 1) & t->mask)
		if (t->slot[i].hash == h &&
		    cf_name_match(&r->rule, t->slot[i].name, strlen(t->slot[i].name), name,
				  strlen(name)) == 1)
			return true;
	return false;
}

static void print_rename(FILE *f, const char *dir, const char *old, const char *new)
{
	size_t n = strlen(dir) + strlen(old) + 2;
	char *path = malloc(n);

	if (path)
		snprintf(path, n, "%s/%s", dir, old);
	fputs("rename ", f);
	cli_quote_shell(f, path ? path : old, strlen(path ? path : old));
	fputs(" -> ", f);
	cli_quote_shell(f, new, strlen(new));
	putc('\n', f);
	free(path);
}

/* Choose new names for all but the first of each set of this directory. */
static int plan_renames(struct planner *pl, struct level *lv)
{
	const struct cli_dirlist *l = pl->list;
	struct cli_journal *j = pl->p->j;
	struct taken t = { 0 };
	bool *moved = calloc(l->n, sizeof(*moved));
	size_t size = 16, first = j->nrenames;
	int err = 0;

	if (!moved)
		return -ENOMEM;
	for (size_t i = 0; i < pl->nsets; i++)
		for (size_t m = 2; m <= pl->sets[i][0]; m++)
			moved[pl->sets[i][m]] = true;
	while (size < 2 * (l->n + 1))
		size *= 2;
	t.slot = calloc(size, sizeof(*t.slot));
	t.mask = size - 1;
	if (!t.slot) {
		free(moved);
		return -ENOMEM;
	}
	for (size_t i = 0; i < l->n; i++)
		if (!moved[i])
			take(&t, pl->p->rules, cli_dirlist_name(l, i));
	for (size_t i = 0; !err && i < pl->nsets; i++) {
		for (size_t m = 2; !err && m <= pl->sets[i][0]; m++) {
			const char *old = cli_dirlist_name(l, pl->sets[i][m]);
			char cand[256];
			struct cli_rename *r;
			unsigned k = 0;

			do
				cli_plan_suffix(cand, old, k++);
			while (is_taken(&t, pl->p->rules, cand));
			r = realloc(j->renames, (j->nrenames + 1) * sizeof(*r));
			if (!r) {
				err = -ENOMEM;
				break;
			}
			j->renames = r;
			r += j->nrenames;
			*r = (struct cli_rename){ strdup(lv->final), strdup(old), strdup(cand) };
			if (!r->dir || !r->old || !r->new) {
				free(r->dir);
				free(r->old);
				free(r->new);
				err = -ENOMEM;
				break;
			}
			j->nrenames++;
			take(&t, pl->p->rules, r->new);
			print_rename(pl->p->out, pl->path, old, cand);
		}
	}
	free(t.slot);
	free(moved);
	if (!err) {
		lv->nrenames = j->nrenames - first;
		lv->renames = malloc((lv->nrenames ? lv->nrenames : 1) * sizeof(*lv->renames));
		if (!lv->renames)
			return -ENOMEM;
		if (lv->nrenames)
			memcpy(lv->renames, j->renames + first, lv->nrenames * sizeof(*lv->renames));
		qsort(lv->renames, lv->nrenames, sizeof(*lv->renames), by_old);
	}
	return err;
}

static int visit(void *ctx, const char *path, int dirfd, const struct cli_dirlist *l)
{
	struct planner *pl = ctx;
	const char *orig = path + pl->rootlen;
	int flag = cli_casefolded(dirfd), err;

	pl->p->directories++;
	if (flag < 0) {
		pl->p->unsupported = flag;
		return flag;
	}
	if (!flag && l->n) {
		pl->p->convert++;
		pl->p->entries += l->n;
		/* Its entries move out: found now, not halfway through the run. */
		if (faccessat(dirfd, ".", W_OK | X_OK, AT_EACCESS) < 0) {
			cli_error("%s: not writable (%s): its entries must move into its "
				  "casefolded replacement (chmod u+w, or convert as its owner)",
				  path, strerror(errno));
			pl->p->errors++;
		}
	}
	if ((err = enter_level(pl, *orig == '/' ? orig + 1 : orig)) != 0)
		return err;
	pl->path = path;
	pl->list = l;
	pl->nsets = 0;
	err = cli_findings(pl->p->rules, l, CLI_FIND_COLLISIONS | CLI_FIND_INVALID, found, pl);
	if (!err && pl->nsets)
		err = plan_renames(pl, &pl->stack[pl->depth - 1]);
	for (size_t i = 0; i < pl->nsets; i++)
		free(pl->sets[i]);
	return err;
}

static void walk_error(void *ctx, const char *path, int err)
{
	struct planner *pl = ctx;

	cli_audit_error(pl->p->report, path, err);
	pl->p->errors++;
}

static void skipped(void *ctx, const char *path, const char *why)
{
	struct planner *pl = ctx;

	/* A mount point cannot be moved into the new directory. */
	cli_error("%s: %s inside the directory: convert cannot move it", path, why);
	pl->p->errors++;
}

int cli_plan_tree(struct cli_plan *p)
{
	struct planner pl = { .p = p, .rootlen = strlen(p->root) };
	struct cli_walk w = { .visit = visit, .error = walk_error, .skipped = skipped, .ctx = &pl };
	int err = cli_walk(&w, p->root);

	while (pl.depth--) {
		free(pl.stack[pl.depth].orig);
		free(pl.stack[pl.depth].final);
		free(pl.stack[pl.depth].renames);
	}
	free(pl.stack);
	free(pl.sets);
	return err == -ENOMEM ? err : 0;
}

void cli_plan_free(struct cli_plan *p)
{
	for (size_t i = 0; i < p->invalid; i++)
		free(p->invalid_paths[i]);
	free(p->invalid_paths);
}

/*
 * Sets of equal names in one directory.  cf_name_match is an equivalence
 * (identical bytes, or equal nfdicf forms), so within one hash bucket each
 * name either joins the set of an earlier one or starts its own; buckets
 * hold one name except for real matches and rare hash collisions.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tree/findings.h"

void cli_rules_init(struct cli_rules *r, const cf_encoding *chosen)
{
	const char *name = cf_encoding_name(chosen);
	unsigned flags = chosen->flags & ~CF_KEEP_IGNORABLES;

	r->rule = *chosen;
	/* The name came from the library itself: these cannot fail. */
	cf_encoding_load(&r->strip, name, flags);
	cf_encoding_load(&r->keep, name, flags | CF_KEEP_IGNORABLES);
	r->ignorables = cf_encoding_unicode_version(chosen) != 0;
}

struct keyed {
	uint64_t hash;
	size_t idx;
};

static int by_hash(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* A set of entries, as [first, first + n) of a shared index array. */
struct set {
	size_t first, n;
};

static int by_first_name(const void *a, const void *b, void *idx)
{
	const size_t *v = idx;
	size_t x = v[((const struct set *)a)->first], y = v[((const struct set *)b)->first];

	return (x > y) - (x < y);
}

static int by_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

static int match(const cf_encoding *enc, const struct cli_dirlist *l, size_t i, size_t j)
{
	return cf_name_match(enc, cli_dirlist_name(l, i), l->e[i].len,
			     cli_dirlist_name(l, j), l->e[j].len) == 1;
}

/*
 * Partition the entries of one bucket (k[0..n)) into sets of names equal
 * under enc, appending sets of two or more to out (indexes) and sets.
 */
struct sets {
	size_t *idx;     /* the members of every set, set after set */
	size_t nidx;
	struct set *s;
	size_t n;
};

static void partition(const cf_encoding *enc, const struct cli_dirlist *l,
		      size_t *members, size_t n, struct sets *out)
{
	/* members[] is reordered in place: each set ends up contiguous. */
	for (size_t start = 0; start < n;) {
		size_t end = start + 1;

		for (size_t j = start + 1; j < n; j++)
			if (match(enc, l, members[start], members[j])) {
				size_t t = members[end];

				members[end++] = members[j];
				members[j] = t;
			}
		if (end - start > 1) {
			qsort(members + start, end - start, sizeof(*members), by_index);
			memcpy(out->idx + out->nidx, members + start, (end - start) * sizeof(size_t));
			out->s[out->n++] = (struct set){ out->nidx, end - start };
			out->nidx += end - start;
		}
		start = end;
	}
}

static void sets_free(struct sets *s)
{
	free(s->idx);
	free(s->s);
	s->idx = NULL;
	s->s = NULL;
}

/* All sets of two or more entries of l equal under enc, ordered by first name. */
static int equal_sets(const cf_encoding *enc, const struct cli_dirlist *l, struct sets *out)
{
	struct keyed *k = malloc((l->n ? l->n : 1) * sizeof(*k));
	size_t *members = malloc((l->n ? l->n : 1) * sizeof(*members));

	out->idx = malloc((l->n ? l->n : 1) * sizeof(*out->idx));
	out->s = malloc((l->n / 2 + 1) * sizeof(*out->s));
	out->nidx = out->n = 0;
	if (!k || !members || !out->idx || !out->s) {
		free(k);
		free(members);
		sets_free(out);
		return -ENOMEM;
	}
	for (size_t i = 0; i < l->n; i++) {
		k[i].idx = i;
		/* Only a strict encoding can refuse, and ours are not strict. */
		if (cf_name_hash(enc, cli_dirlist_name(l, i), l->e[i].len, &k[i].hash) < 0)
			k[i].hash = i;
	}
	qsort(k, l->n, sizeof(*k), by_hash);
	for (size_t i = 0; i < l->n;) {
		size_t j = i + 1;

		while (j < l->n && k[j].hash == k[i].hash)
			j++;
		if (j - i > 1) {
			for (size_t m = i; m < j; m++)
				members[m - i] = k[m].idx;
			partition(enc, l, members, j - i, out);
		}
		i = j;
	}
	free(k);
	free(members);
	qsort_r(out->s, out->n, sizeof(*out->s), by_first_name, out->idx);
	return 0;
}

static int report_sets(enum cli_finding_kind kind, const struct sets *s,
		       cli_finding_fn *fn, void *ctx)
{
	int r = 0;

	for (size_t i = 0; !r && i < s->n; i++)
		r = fn(ctx, &(struct cli_finding){ kind, s->idx + s->s[i].first, s->s[i].n });
	return r;
}

/*
 * The sets equal with ignorables stripped that hold names still different
 * when they are kept: the names differ by invisible characters.
 */
static int ignorable_sets(const struct cli_rules *r, const struct cli_dirlist *l,
			  const struct sets *strip, struct sets *out)
{
	out->idx = malloc((strip->nidx ? strip->nidx : 1) * sizeof(*out->idx));
	out->s = malloc((strip->n ? strip->n : 1) * sizeof(*out->s));
	out->nidx = out->n = 0;
	if (!out->idx || !out->s) {
		sets_free(out);
		return -ENOMEM;
	}
	for (size_t i = 0; i < strip->n; i++) {
		const size_t *m = strip->idx + strip->s[i].first;
		bool differ = false;

		for (size_t j = 1; j < strip->s[i].n && !differ; j++)
			differ = !match(&r->keep, l, m[0], m[j]);
		if (!differ)
			continue;
		memcpy(out->idx + out->nidx, m, strip->s[i].n * sizeof(*m));
		out->s[out->n++] = (struct set){ out->nidx, strip->s[i].n };
		out->nidx += strip->s[i].n;
	}
	return 0;
}

int cli_findings(const struct cli_rules *r, const struct cli_dirlist *l, unsigned what,
		 cli_finding_fn *fn, void *ctx)
{
	struct sets rule = { 0 }, strip = { 0 }, ign = { 0 };
	bool same = !(r->rule.flags & CF_KEEP_IGNORABLES);
	int err = 0;

	if (what & CLI_FIND_COLLISIONS)
		err = equal_sets(&r->rule, l, &rule);
	if (!err && (what & CLI_FIND_COLLISIONS))
		err = report_sets(CLI_COLLISION, &rule, fn, ctx);
	if (!err && (what & CLI_FIND_IGNORABLES) && r->ignorables) {
		/* With ignorables stripped by the rule, its sets are the ones. */
		if (!same || !(what & CLI_FIND_COLLISIONS))
			err = equal_sets(&r->strip, l, &strip);
		if (!err)
			err = ignorable_sets(r, l, same && (what & CLI_FIND_COLLISIONS) ? &rule : &strip,
					     &ign);
		if (!err)
			err = report_sets(CLI_IGNORABLE, &ign, fn, ctx);
	}
	sets_free(&rule);
	sets_free(&strip);
	sets_free(&ign);
	for (size_t i = 0; !err && (what & CLI_FIND_INVALID) && i < l->n; i++)
		if (cf_validate(&r->rule, cli_dirlist_name(l, i), l->e[i].len) < 0)
			err = fn(ctx, &(struct cli_finding){ CLI_INVALID, &i, 1 });
	return err;
}

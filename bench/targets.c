/* The targets, each a ratio measured in this run, with met or the gap. */
#include <stdio.h>

#include "results.h"
#include "unicode_tables.h" /* CF_TABLE_BYTES */

static const struct group *groups;
static size_t ngroups;

/* im's cell on set in the group over `on` whose first row is self; NULL if not measured. */
static const struct cell *cell(enum on on, const struct impl *self, const struct impl *im,
			       int set)
{
	for (size_t g = 0; g < ngroups; g++) {
		const struct cell *c;

		if (groups[g].on != on || groups[g].impls[0] != self)
			continue;
		c = group_cell(&groups[g], im, set);
		return c && c->shown && !c->v.errors ? c : NULL;
	}
	return NULL;
}

/* im's time over self's, paired within rounds; -1 if not measured. */
static double ratio(enum on on, const struct impl *self, const struct impl *im, int set)
{
	const struct cell *c = cell(on, self, im, set);

	return c ? c->t.ratio : -1;
}

/* The smallest ratio among the peers doing self's job: the fastest peer. */
static double fastest_peer(enum on on, const struct impl *self, int set, const char **name)
{
	double best = -1;

	for (size_t g = 0; g < ngroups; g++) {
		if (groups[g].on != on || groups[g].impls[0] != self)
			continue;
		for (size_t i = 1; i < groups[g].k; i++) {
			double r = ratio(on, self, groups[g].impls[i], set);

			if (groups[g].impls[i]->role == ROLE_PEER && r > 0 && (best < 0 || r < best)) {
				best = r;
				*name = groups[g].impls[i]->name;
			}
		}
	}
	return best;
}

/* One row: the measured value v against want, "at least" if atleast, else "at most". */
static void row(const char *what, double v, double want, int atleast, const char *unit,
		const char *vs)
{
	printf("| %s | %s %g%s |", what, atleast ? "≥" : "≤", want, unit);
	if (v <= 0) {
		printf(" not measured | — |\n");
		return;
	}
	printf(" %.2f%s%s%s | %s |\n", v, unit, vs ? " vs " : "", vs ? vs : "",
	       (atleast ? v >= want : v <= want) ? "met" : "**not met**");
}

static double inverse(double r)
{
	return r > 0 ? 1 / r : -1;
}

static double min_pos(double a, double b)
{
	return a > 0 && (b <= 0 || a < b) ? a : b;
}

void report_targets(const struct group *g, size_t ng, long kernel_table)
{
	static const char *set_name[] = {"A", "B", "C"};
	const struct cell *c, *b;
	const char *peer = NULL;
	char what[128];

	groups = g;
	ngroups = ng;
	printf("### Targets of issue 6, as ratios in this run\n\n");
	printf("| target | wanted | measured | |\n|---|--:|--:|---|\n");
	row("casefold A: time over memcpy's", inverse(ratio(ON_NAMES, &self_fold, &bound_memcpy, 0)),
	    2, 0, "×", NULL);
	for (int s = 0; s < 2; s++) {
		snprintf(what, sizeof(what), "casefold %s: faster than ICU's fastest C path",
			 set_name[s]);
		double r8 = ratio(ON_NAMES, &self_fold, &icu_fold8, s);
		double r16 = ratio(ON_NAMES, &self_fold, &icu_fold16, s);

		row(what, min_pos(r8, r16), s ? 3 : 5, 1, "×",
		    min_pos(r8, r16) == r8 ? icu_fold8.name : icu_fold16.name);
	}
	row("casefold B: faster than the kernel algorithm (libext2fs)",
	    ratio(ON_NAMES, &self_fold, &e2_fold, 1), 8, 1, "×", NULL);
	for (int on = ON_VARIANT; on <= ON_SAME; on++)
		for (int s = 0; s < 2; s++) {
			double best = fastest_peer((enum on)on, &self_cmp, s, &peer);

			snprintf(what, sizeof(what),
				 "compare %s, equal pairs (%s): faster than the fastest peer",
				 set_name[s], on == ON_VARIANT ? "case variants" : "identical bytes");
			row(what, best, 5, 1, "×", peer);
		}
	/* Exiting early, a 4 KiB pair that differs at once costs a tiny part of an equal one. */
	c = cell(ON_DIFFER, &self_cmp, &self_cmp, 2);
	b = cell(ON_VARIANT, &self_cmp, &self_cmp, 2);
	row("unequal pairs exit early: C unequal over C equal (case variants)",
	    c && b ? c->t.ns / b->t.ns : -1, 0.1, 0, "×", NULL);
	snprintf(what, sizeof(what), "unequal pairs B: faster than %s (added: the issue sets none)", e2_cmp.name);
	row(what, ratio(ON_DIFFER, &self_cmp, &e2_cmp, 1), 1, 1, "×", NULL);
	c = cell(ON_NAMES, &self_fold, &self_fold, 2);
	row("casefold C: throughput", c ? c->bytes / c->t.ns : -1, 1, 1, " GB/s", NULL);
	for (int s = 0; s < 2; s++) {
		snprintf(what, sizeof(what),
			 "hash %s: cf_casefold_hash faster than ext2fs_dirhash2 casefold", set_name[s]);
		row(what, ratio(ON_NAMES, &self_hash, &e2_dirhash, s), 8, 1, "×", NULL);
	}
	printf("| tables: libcasefold, Unicode 1.1–17.0 (CF_TABLE_BYTES) | < %ld | %d bytes | %s |\n",
	       kernel_table, CF_TABLE_BYTES, CF_TABLE_BYTES < kernel_table ? "met" : "**not met**");
	printf("\nThe kernel's (and libext2fs') utf8data trie, Unicode 12.1 only: %ld bytes"
	       " (nm of libext2fs.a).\n\n",
	       kernel_table);
}

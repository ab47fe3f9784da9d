/* The targets, each a ratio measured in this run, with met or the gap. */
#include <stdio.h>

#include "results.h"
#include "unicode_tables.h" /* CF_TABLE_BYTES */

static const struct group *groups;
static size_t ngroups;

/* Median ns of im on set in the group over `on` that holds it; -1 if not measured. */
static double ns(enum on on, const struct impl *im, int set)
{
	for (size_t g = 0; g < ngroups; g++) {
		const struct cell *c = groups[g].on == on ? group_cell(&groups[g], im, set) : NULL;

		if (c)
			return c->shown && !c->v.errors ? c->ns : -1;
	}
	return -1;
}

/* The fastest peer doing the same job as impls[0] of the group over `on`. */
static double fastest_peer(enum on on, const struct impl *self, int set, const char **name)
{
	double best = -1;

	for (size_t g = 0; g < ngroups; g++) {
		if (groups[g].on != on || groups[g].impls[0] != self)
			continue;
		for (size_t i = 0; i < groups[g].k; i++) {
			const struct cell *c = &groups[g].cell[i][set];

			if (groups[g].impls[i]->role == ROLE_PEER && c->shown && !c->v.errors &&
			    (best < 0 || c->ns < best)) {
				best = c->ns;
				*name = groups[g].impls[i]->name;
			}
		}
	}
	return best;
}

/* One row: want "at least" (atleast) or "at most" the ratio. */
static void row(const char *what, double num, double den, double want, int atleast,
		const char *unit, const char *vs)
{
	double r = num > 0 && den > 0 ? num / den : -1;

	printf("| %s | %s %.1f%s |", what, atleast ? "≥" : "≤", want, unit);
	if (r < 0) {
		printf(" not measured | — |\n");
		return;
	}
	printf(" %.2f%s%s%s | %s |\n", r, unit, vs ? " vs " : "", vs ? vs : "",
	       (atleast ? r >= want : r <= want) ? "met" : "**not met**");
}

void report_targets(const struct group *g, size_t ng, long kernel_table)
{
	static const char *set_name[] = {"A", "B", "C"};
	const char *peer = NULL;
	char what[128];

	groups = g;
	ngroups = ng;
	printf("### Targets of issue 6, as ratios in this run\n\n");
	printf("| target | wanted | measured | |\n|---|--:|--:|---|\n");
	row("casefold A: time over memcpy", ns(ON_NAMES, &self_fold, 0),
	    ns(ON_NAMES, &bound_memcpy, 0), 2, 0, "×", NULL);
	for (int s = 0; s < 2; s++) {
		double icu = ns(ON_NAMES, &icu_fold8, s), icu16 = ns(ON_NAMES, &icu_fold16, s);

		snprintf(what, sizeof(what), "casefold %s: faster than ICU's fastest C path",
			 set_name[s]);
		row(what, icu16 > 0 && (icu < 0 || icu16 < icu) ? icu16 : icu,
		    ns(ON_NAMES, &self_fold, s), s ? 3 : 5, 1, "×", NULL);
	}
	row("casefold B: faster than the kernel algorithm (libext2fs)", ns(ON_NAMES, &e2_fold, 1),
	    ns(ON_NAMES, &self_fold, 1), 8, 1, "×", NULL);
	for (int on = ON_VARIANT; on <= ON_SAME; on++)
		for (int s = 0; s < 2; s++) {
			double best = fastest_peer((enum on)on, &self_cmp, s, &peer);

			snprintf(what, sizeof(what), "compare %s, equal pairs (%s): faster than the fastest peer",
				 set_name[s], on == ON_VARIANT ? "case variants" : "identical bytes");
			row(what, best, ns((enum on)on, &self_cmp, s), 5, 1, "×", peer);
		}
	row("unequal pairs exit early: C (4 KiB) over B (words) time", ns(ON_DIFFER, &self_cmp, 2),
	    ns(ON_DIFFER, &self_cmp, 1), 2, 0, "×", NULL);
	{
		const struct cell *c = NULL;

		for (size_t i = 0; i < ng && !c; i++)
			c = g[i].on == ON_NAMES ? group_cell(&g[i], &self_fold, 2) : NULL;
		row("casefold C: throughput", c && c->shown ? c->bytes : -1,
		    c && c->shown ? c->ns : -1, 1, 1, " GB/s", NULL);
	}
	for (int s = 0; s < 2; s++) {
		snprintf(what, sizeof(what),
			 "hash %s: cf_casefold_hash faster than ext2fs_dirhash2 casefold", set_name[s]);
		row(what, ns(ON_NAMES, &e2_dirhash, s), ns(ON_NAMES, &self_hash, s), 8, 1, "×", NULL);
	}
	printf("| tables: libcasefold, Unicode 1.1–17.0 (CF_TABLE_BYTES) | < %ld | %d bytes | %s |\n",
	       kernel_table, CF_TABLE_BYTES, CF_TABLE_BYTES < kernel_table ? "met" : "**not met**");
	printf("\nThe kernel's (and libext2fs') utf8data trie, Unicode 12.1 only: %ld bytes.\n\n",
	       kernel_table);
}

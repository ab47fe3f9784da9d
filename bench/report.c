/* Markdown tables on stdout: times with ratios, output checks, noise. */
#include <stdio.h>
#include <string.h>

#include "results.h"

struct input group_input(const struct group *g, const struct corpus *c)
{
	const struct pairs *p[] = {NULL, &c->variant, &c->same, &c->differ};

	return (struct input){g->on == ON_NAMES ? &c->names : NULL, p[g->on]};
}

const struct cell *group_cell(const struct group *g, const struct impl *im, int set)
{
	for (size_t i = 0; i < g->k; i++)
		if (g->impls[i] == im)
			return &g->cell[i][set];
	return NULL;
}

void report_inputs(const struct corpus *sets, const char *const *paths)
{
	printf("### Inputs\n\n");
	for (int s = 0; s < NSETS; s++) {
		const struct corpus *c = &sets[s];

		printf("- **%s**: %zu strings, mean %.1f bytes", c->names.label, c->names.n,
		       (double)c->names.bytes / (double)c->names.n);
		if (paths[s])
			printf(", from %s (refused: %zu)", paths[s], c->skipped);
		printf("; pairs: %zu case variants (%zu strings have none), %zu identical, %zu with"
		       " a different first folded byte\n",
		       c->variant.n, c->no_variant, c->same.n, c->differ.n);
	}
	printf("\n");
}

static void header(const char *first, const struct corpus *sets)
{
	printf("| %s |", first);
	for (int s = 0; s < NSETS; s++)
		printf(" %c: %s |", 'A' + s, sets[s].names.label);
	printf("\n|---|");
	for (int s = 0; s < NSETS; s++)
		printf("--:|");
	printf("\n");
}

static void print_cell(const struct cell *c, const struct cell *self, int set)
{
	if (!c->shown) {
		printf(" — |");
		return;
	}
	if (c->v.errors) {
		printf(" fails on %zu |", c->v.errors);
		return;
	}
	printf(c->t.ns < 10 ? " %.1f" : " %.0f", c->t.ns);
	if (c != self && c->t.ratio > 0)
		printf(c->t.ratio < 1 ? " (%.2f×)" : " (%.1f×)", c->t.ratio);
	if (set == SET_LONG && c->bytes > 0)
		printf(" · %.2f GB/s", c->bytes / c->t.ns);
	printf(" |");
}

void report_group(const struct group *g, const struct corpus *sets)
{
	printf("### %s — median ns per %s (×: median of the time over libcasefold's (first row)"
	       " in the same round; > 1 means libcasefold is faster)\n\n",
	       g->title, g->unit);
	header("implementation", sets);
	for (size_t i = 0; i < g->k; i++) {
		printf("| %s |", g->impls[i]->name);
		for (int s = 0; s < NSETS; s++)
			print_cell(&g->cell[i][s], &g->cell[0][s], s);
		printf("\n");
	}
	printf("\n");
}

static void print_verdict(const struct verdict *v)
{
	printf(" %zu", v->mismatches);
	if (v->errors)
		printf(" + %zu refused", v->errors);
	if (v->mismatches)
		printf(" (first: `%s`)", v->example);
	printf(" |");
}

/* Folds and hashes: one row per implementation with a reference. */
static void check_outputs(const struct group *groups, size_t ng)
{
	printf("| implementation | reference | A | B | C |\n|---|---|--:|--:|--:|\n");
	for (size_t gi = 0; gi < ng; gi++) {
		const struct group *g = &groups[gi];

		for (size_t i = 0; i < g->k; i++) {
			const struct impl *im = g->impls[i];

			if (g->on != ON_NAMES || !g->cell[i][0].v.checked || im->role == ROLE_BOUND)
				continue;
			if (im->fold)
				printf("| %s | libcasefold %s%s |", im->name, im->ref_encoding,
				       im->ref_flags ? " keeping ignorables" : "");
			else
				printf("| %s | %s |", im->name, im->ref_hash->name);
			for (int s = 0; s < NSETS; s++)
				print_verdict(&g->cell[i][s].v);
			printf("\n");
		}
	}
}

/* Compares: one row per implementation, wrong answers on the three kinds of pairs. */
static void check_answers(const struct group *groups, size_t ng)
{
	const struct group *first = NULL;

	for (size_t gi = 0; gi < ng && !first; gi++)
		first = groups[gi].on != ON_NAMES ? &groups[gi] : NULL;
	if (!first)
		return;
	printf("\n| compare: wrong answers on case variants · identical · unequal pairs | A | B | C |\n"
	       "|---|--:|--:|--:|\n");
	for (size_t i = 0; i < first->k; i++) {
		if (first->impls[i]->role == ROLE_BOUND)
			continue;
		printf("| %s |", first->impls[i]->name);
		for (int s = 0; s < NSETS; s++) {
			const char *sep = " ";

			for (size_t gi = 0; gi < ng; gi++) {
				const struct cell *c = groups[gi].on != ON_NAMES
							       ? group_cell(&groups[gi], first->impls[i], s)
							       : NULL;

				if (!c)
					continue;
				printf("%s%zu", sep, c->v.mismatches);
				if (c->v.errors)
					printf("+%zu refused", c->v.errors);
				sep = " · ";
			}
			printf(" |");
		}
		printf("\n");
	}
}

void report_checks(const struct group *groups, size_t ng)
{
	printf("### Same output — items whose output or answer differs from libcasefold's,"
	       " checked before timing\n\n");
	check_outputs(groups, ng);
	check_answers(groups, ng);
	printf("\nBounds are timed only on the sets where they give the right output (— elsewhere).\n\n");
}

void report_noise(const struct group *groups, size_t ng)
{
	double sum = 0, rsum = 0, worst = 0;
	size_t n = 0, rn = 0;
	const char *where = "";

	for (size_t gi = 0; gi < ng; gi++)
		for (size_t i = 0; i < groups[gi].k; i++)
			for (int s = 0; s < NSETS; s++) {
				const struct cell *c = &groups[gi].cell[i][s];

				if (!c->shown || c->v.errors)
					continue;
				sum += c->t.spread;
				n++;
				if (i && c->t.ratio > 0) {
					rsum += c->t.rspread;
					rn++;
					if (c->t.rspread > worst) {
						worst = c->t.rspread;
						where = groups[gi].impls[i]->name;
					}
				}
			}
	printf("Noise (interquartile range over median, %d rounds): times %.1f%% on average;"
	       " paired ratios %.1f%% on average, worst %.1f%% (%s).\n\n",
	       ROUNDS, n ? 100 * sum / (double)n : 0, rn ? 100 * rsum / (double)rn : 0,
	       100 * worst, where);
}

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
			printf(", from %s (%zu lines refused)", paths[s], c->skipped);
		printf("; pairs: %zu case variants (%zu strings have none), %zu identical, %zu with"
		       " a different first folded byte\n",
		       c->variant.n, c->no_variant, c->same.n, c->differ.n);
	}
	printf("\n");
}

static void header(const char *first)
{
	printf("| %s |", first);
	for (int s = 0; s < NSETS; s++)
		printf(" %c |", 'A' + s);
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
	printf(c->ns < 10 ? " %.1f" : " %.0f", c->ns);
	if (c != self && self->shown && !self->v.errors) {
		double r = c->ns / self->ns;

		printf(r < 1 ? " (%.2f×)" : " (%.1f×)", r);
	}
	if (set == SET_LONG && c->bytes > 0)
		printf(" · %.2f GB/s", c->bytes / c->ns);
	printf(" |");
}

void report_group(const struct group *g, const struct corpus *sets)
{
	printf("### %s — ns per %s (×: time over libcasefold's first row; > 1 means libcasefold"
	       " is faster)\n\n",
	       g->title, g->unit);
	header("implementation");
	for (size_t i = 0; i < g->k; i++) {
		printf("| %s |", g->impls[i]->name);
		for (int s = 0; s < NSETS; s++)
			print_cell(&g->cell[i][s], &g->cell[0][s], s);
		printf("\n");
	}
	printf("\nA, B, C = %s; %s; %s.\n\n", sets[0].names.label, sets[1].names.label,
	       sets[2].names.label);
}

static const char *reference(const struct group *g, const struct impl *im, char *buf, size_t n)
{
	if (im->fold)
		snprintf(buf, n, "libcasefold %s%s", im->ref_encoding,
			 im->ref_flags ? " keeping ignorables" : "");
	else if (im->hash)
		snprintf(buf, n, "%s", im->ref_hash->name);
	else
		snprintf(buf, n, "%s (answer: %s)", g->title,
			 g->on == ON_DIFFER ? "different" : "equal");
	return buf;
}

void report_checks(const struct group *groups, size_t ng)
{
	char ref[160];

	printf("### Same output — items whose output (or answer) differs from the reference,"
	       " checked before timing\n\n");
	printf("| implementation | reference | A | B | C |\n|---|---|--:|--:|--:|\n");
	for (size_t gi = 0; gi < ng; gi++) {
		const struct group *g = &groups[gi];

		for (size_t i = 0; i < g->k; i++) {
			if (!g->cell[i][0].v.checked)
				continue;
			printf("| %s | %s |", g->impls[i]->name, reference(g, g->impls[i], ref, sizeof(ref)));
			for (int s = 0; s < NSETS; s++) {
				const struct verdict *v = &g->cell[i][s].v;

				printf(" %zu", v->mismatches);
				if (v->errors)
					printf(" + %zu refused", v->errors);
				if (v->mismatches)
					printf(" (first: `%s`)", v->example);
				printf(" |");
			}
			printf("\n");
		}
	}
	printf("\nA bound with mismatches on a set is not timed there (—).\n\n");
}

void report_noise(const struct group *groups, size_t ng)
{
	double sum = 0, worst = 0;
	size_t n = 0;
	const char *where = "";

	for (size_t gi = 0; gi < ng; gi++)
		for (size_t i = 0; i < groups[gi].k; i++)
			for (int s = 0; s < NSETS; s++) {
				const struct cell *c = &groups[gi].cell[i][s];

				if (!c->shown || c->v.errors)
					continue;
				sum += c->spread;
				n++;
				if (c->spread > worst) {
					worst = c->spread;
					where = groups[gi].impls[i]->name;
				}
			}
	printf("Noise: interquartile range over median of the %d samples, mean %.1f%%, worst"
	       " %.1f%% (%s).\n\n",
	       ROUNDS, n ? 100 * sum / (double)n : 0, 100 * worst, where);
}

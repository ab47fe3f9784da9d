/*
 * The library half of `make bench`: libcasefold against ICU, utf8proc,
 * libunistring and libext2fs, on the same inputs in the same run.
 *   libbench ASCII_NAMES WORDS KERNEL_TABLE_BYTES
 * ASCII_NAMES and WORDS hold one name per line (bench/inputs.sh makes them).
 */
#include <stdio.h>
#include <stdlib.h>

#include "results.h"

#define LONG_BYTES 4096
#define LONG_COUNT 64 /* 256 KiB: a fair sample that keeps the slowest peers' passes short */

/* Every compare group runs the same implementations on its own kind of pairs. */
#define COMPARES \
	{&self_cmp, &self_match, &icu_cmp, &icu_casecmp, &u8p_cmp, &uni_cmp, &e2_cmp, \
	 &bound_memcmp, &bound_asciicmp}

static struct group groups[] = {
	{"casefold into a caller buffer", "name", ON_NAMES,
	 {&self_fold, &icu_fold8, &icu_fold16, &u8p_fold, &uni_fold, &e2_fold, &bound_memcpy,
	  &bound_tolower}, 8, {{{0}}}},
	{"compare equal pairs, case variants", "pair", ON_VARIANT, COMPARES, 9, {{{0}}}},
	{"compare equal pairs, identical bytes", "pair", ON_SAME, COMPARES, 9, {{{0}}}},
	{"compare unequal pairs, first folded byte differs", "pair", ON_DIFFER, COMPARES, 9, {{{0}}}},
	{"hash of the folded name, no buffer", "name", ON_NAMES,
	 {&self_hash, &self_dirhash, &e2_dirhash, &self_dirhash_raw, &e2_dirhash_raw}, 5, {{{0}}}},
};
#define NGROUPS (sizeof(groups) / sizeof(groups[0]))

/* Input bytes read per item, for GB/s; 0 for unequal pairs, which should not be read whole. */
static double bytes_per_item(const struct input *in)
{
	double sum = 0;

	if (in->names)
		return in->names->n ? (double)in->names->bytes / (double)in->names->n : 0;
	if (!in->pairs->want_equal || !in->pairs->n)
		return 0;
	for (size_t i = 0; i < in->pairs->n; i++)
		sum += (double)(in->pairs->alen[i] + in->pairs->blen[i]);
	return sum / (double)in->pairs->n;
}

/* Check every cell, then time each group on each set with its implementations interleaved. */
static void measure(struct group *g, const struct corpus *c, int set)
{
	struct input in = group_input(g, c);
	size_t items = input_items(&in);
	struct timing t[MAXIMPL];
	int skip[MAXIMPL];

	for (size_t i = 0; i < g->k; i++) {
		struct cell *cell = &g->cell[i][set];
		const struct impl *im = g->impls[i];

		check_impl(im, &in, &cell->v);
		/* A bound that gets the answer wrong bounds nothing; a refusal is not a time. */
		skip[i] = !items || cell->v.errors ||
			  (im->role == ROLE_BOUND && cell->v.mismatches);
	}
	time_interleaved(g->impls, g->k, skip, &in, t);
	for (size_t i = 0; i < g->k; i++) {
		struct cell *cell = &g->cell[i][set];

		cell->shown = !skip[i] || cell->v.errors;
		cell->t = t[i];
		cell->bytes = bytes_per_item(&in);
	}
}

int main(int argc, char **argv)
{
	static struct corpus sets[NSETS];
	const char *paths[NSETS];

	if (argc != 4) {
		fprintf(stderr, "usage: libbench ASCII_NAMES WORDS KERNEL_TABLE_BYTES\n");
		return 2;
	}
	if (self_init() || icu_init() || e2_init())
		return 1;
	if (corpus_read(&sets[0], "ASCII file names", argv[1], 1) ||
	    corpus_read(&sets[1], "multilingual words", argv[2], 0))
		return 1;
	corpus_join(&sets[2], "4 KiB strings of words", &sets[1].names, LONG_BYTES, LONG_COUNT);
	for (int s = 0; s < NSETS; s++)
		if (corpus_pair(&sets[s]))
			return 1;
	paths[0] = argv[1];
	paths[1] = argv[2];
	paths[2] = NULL;
	for (size_t g = 0; g < NGROUPS; g++)
		for (int s = 0; s < NSETS; s++)
			measure(&groups[g], &sets[s], s);
	report_inputs(sets, paths);
	for (size_t g = 0; g < NGROUPS; g++)
		report_group(&groups[g], sets);
	report_checks(groups, NGROUPS);
	report_noise(groups, NGROUPS);
	report_targets(groups, NGROUPS, strtol(argv[3], NULL, 10));
	return 0;
}

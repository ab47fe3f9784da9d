/* What one run measured: per operation (group), per implementation and input set, a cell. */
#ifndef CF_BENCH_RESULTS_H
#define CF_BENCH_RESULTS_H

#include "check.h"
#include "corpus.h"

#define NSETS 3   /* A ASCII names, B multilingual words, C 4 KiB strings */
#define SET_LONG 2 /* C: also reported in GB/s */
#define MAXIMPL 10

enum on { ON_NAMES, ON_VARIANT, ON_SAME, ON_DIFFER };

struct cell {
	int shown;            /* 0: a bound that does not apply to this set, or nothing to measure */
	struct timing t;
	double bytes;         /* input bytes per item, for GB/s */
	struct verdict v;
};

struct group {
	const char *title;
	const char *unit; /* "name" or "pair" */
	enum on on;
	const struct impl *impls[MAXIMPL]; /* impls[0] is libcasefold: every ratio divides by it */
	size_t k;
	struct cell cell[MAXIMPL][NSETS];
};

/* The input of group g on corpus c. */
struct input group_input(const struct group *g, const struct corpus *c);

/* g's cell for im on set, or NULL if im is not in g. */
const struct cell *group_cell(const struct group *g, const struct impl *im, int set);

void report_inputs(const struct corpus *sets, const char *const *paths);
void report_group(const struct group *g, const struct corpus *sets);
void report_checks(const struct group *groups, size_t ng);
void report_noise(const struct group *groups, size_t ng);
/* The targets as ratios measured in this run; kernel_table is libext2fs's utf8data size. */
void report_targets(const struct group *groups, size_t ng, long kernel_table);

#endif

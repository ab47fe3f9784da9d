/* Interleaved repetitions and medians: the only way to compare on a noisy machine. */
#ifndef CF_BENCH_TIMING_H
#define CF_BENCH_TIMING_H

#include "bench.h"

#define ROUNDS 15 /* samples per measurement; the median is reported */

/* One input of a measurement: a name set (fold, hash) or a pair set (compare). */
struct input {
	const struct names *names;
	const struct pairs *pairs;
};

size_t input_items(const struct input *in);

/* The statistics of one implementation's samples. */
struct timing {
	double ns;     /* median nanoseconds per item */
	double spread; /* interquartile range of the samples over their median */
	double ratio;  /* median over rounds of (its time / impls[0]'s time in the same round) */
	double rspread; /* interquartile range of those ratios over their median */
};

/*
 * Time each of impls[0..k) (skipping those with skip[i]) on in.  Every round
 * runs each implementation once, in an order rotated from round to round, so
 * that drift in machine speed touches all alike; ratios are paired within a
 * round, so that load that slows a whole round cancels out.  t[i] is -1 for
 * skipped implementations (ratio -1 also when impls[0] is skipped).
 */
void time_interleaved(const struct impl *const *impls, size_t k, const int *skip,
		      const struct input *in, struct timing *t);

#endif

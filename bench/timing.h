/* Interleaved repetitions and medians: the only way to compare on a noisy machine. */
#ifndef CF_BENCH_TIMING_H
#define CF_BENCH_TIMING_H

#include "bench.h"

#define ROUNDS 11 /* samples per measurement; the median is reported */

/* One input of a measurement: a name set (fold, hash) or a pair set (compare). */
struct input {
	const struct names *names;
	const struct pairs *pairs;
};

size_t input_items(const struct input *in);

/*
 * Time each of impls[0..k) (skipping those with skip[i]) on in.  Every round
 * runs each implementation once, in an order rotated from round to round, so
 * that drift in machine speed touches all alike.  Writes the median
 * nanoseconds per item to ns[i] and the interquartile range over the median
 * to spread[i].
 */
void time_interleaved(const struct impl *const *impls, size_t k, const int *skip,
		      const struct input *in, double *ns, double *spread);

#endif

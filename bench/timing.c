#include <stdlib.h>
#include <time.h>

#include "timing.h"

/* Long enough to swamp the clock's cost, short enough that a burst of load spoils few samples. */
#define PASS_NS 6e6

/* Where checksums go, so that no pass can be optimised away. */
static volatile uint64_t sink;

size_t input_items(const struct input *in)
{
	return in->names ? in->names->n : in->pairs->n;
}

/*
 * The thread's CPU time, not the wall clock: on a shared two-core machine the
 * time spent preempted by other work would otherwise dominate the noise.
 */
static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Run im over every item of in, reps times; a checksum keeps the work observable. */
static uint64_t pass(const struct impl *im, const struct input *in, size_t reps)
{
	static _Alignas(16) char out[BENCH_OUT_MAX];
	const struct names *w = in->names;
	const struct pairs *p = in->pairs;
	uint64_t sum = 0;
	uint32_t h[2];

	for (size_t r = 0; r < reps; r++) {
		if (im->fold)
			for (size_t i = 0; i < w->n; i++)
				sum += (uint64_t)im->fold(w->s[i], w->len[i], out, sizeof(out));
		else if (im->hash)
			for (size_t i = 0; i < w->n; i++)
				sum += (uint64_t)im->hash(w->s[i], w->len[i], h) + h[0] + h[1];
		else
			for (size_t i = 0; i < p->n; i++)
				sum += (uint64_t)im->cmp(p->a[i], p->alen[i], p->b[i], p->blen[i]);
	}
	return sum;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts v; its median, and its interquartile range over the median in *spread. */
static double median(double *v, double *spread)
{
	double m;

	qsort(v, ROUNDS, sizeof(double), by_value);
	m = v[ROUNDS / 2];
	*spread = (v[3 * ROUNDS / 4] - v[ROUNDS / 4]) / m;
	return m;
}

void time_interleaved(const struct impl *const *impls, size_t k, const int *skip,
		      const struct input *in, struct timing *t)
{
	double samples[k][ROUNDS], ratios[ROUNDS];
	size_t reps[k], items = input_items(in);

	/* Warm up each implementation once and size its passes from that. */
	for (size_t i = 0; i < k; i++) {
		double t0;

		if (skip[i])
			continue;
		t0 = now_ns();
		sink += pass(impls[i], in, 1);
		t0 = now_ns() - t0;
		reps[i] = t0 >= PASS_NS ? 1 : (size_t)(PASS_NS / (t0 > 1 ? t0 : 1)) + 1;
	}
	for (size_t r = 0; r < ROUNDS; r++) {
		for (size_t j = 0; j < k; j++) {
			size_t i = (j + r) % k;
			double t0;

			if (skip[i])
				continue;
			t0 = now_ns();
			sink += pass(impls[i], in, reps[i]);
			samples[i][r] = (now_ns() - t0) / (double)(reps[i] * items);
		}
	}
	/* Ratios first: sorting the samples for their medians loses the pairing. */
	for (size_t i = 0; i < k; i++) {
		t[i].ns = t[i].spread = t[i].ratio = t[i].rspread = -1;
		if (skip[i] || skip[0])
			continue;
		for (size_t r = 0; r < ROUNDS; r++)
			ratios[r] = samples[i][r] / samples[0][r];
		t[i].ratio = median(ratios, &t[i].rspread);
	}
	for (size_t i = 0; i < k; i++)
		if (!skip[i])
			t[i].ns = median(samples[i], &t[i].spread);
}

#include <stdlib.h>
#include <time.h>

#include "timing.h"

#define PASS_NS 20e6 /* long enough per sample to swamp clock and cache-warming effects */

size_t input_items(const struct input *in)
{
	return in->names ? in->names->n : in->pairs->n;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
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

void time_interleaved(const struct impl *const *impls, size_t k, const int *skip,
		      const struct input *in, double *ns, double *spread)
{
	static volatile uint64_t sink;
	double samples[k][ROUNDS];
	size_t reps[k], items = input_items(in);

	/* Warm up each implementation once and size its passes from that. */
	for (size_t i = 0; i < k; i++) {
		double t;

		if (skip[i])
			continue;
		t = now_ns();
		sink += pass(impls[i], in, 1);
		t = now_ns() - t;
		reps[i] = t >= PASS_NS ? 1 : (size_t)(PASS_NS / (t > 1 ? t : 1)) + 1;
	}
	for (size_t r = 0; r < ROUNDS; r++) {
		for (size_t j = 0; j < k; j++) {
			size_t i = (j + r) % k;
			double t;

			if (skip[i])
				continue;
			t = now_ns();
			sink += pass(impls[i], in, reps[i]);
			samples[i][r] = (now_ns() - t) / (double)(reps[i] * items);
		}
	}
	for (size_t i = 0; i < k; i++) {
		if (skip[i]) {
			ns[i] = spread[i] = -1;
			continue;
		}
		qsort(samples[i], ROUNDS, sizeof(double), by_value);
		ns[i] = samples[i][ROUNDS / 2];
		spread[i] = (samples[i][3 * ROUNDS / 4] - samples[i][ROUNDS / 4]) / ns[i];
	}
}

/* Same inputs, same output bytes: what each implementation gets wrong, counted before timing. */
#ifndef CF_BENCH_CHECK_H
#define CF_BENCH_CHECK_H

#include "timing.h"

struct verdict {
	int checked;       /* 0: nothing to check against */
	size_t mismatches; /* items whose output or answer differs from the reference */
	size_t errors;     /* items the implementation refused (negative return) */
	char example[96];  /* the first mismatching item, as hex, for the report */
};

/*
 * Check im on in: a fold against libcasefold with im->ref_encoding, a hash
 * against im->ref_hash, a compare against the pair set's known answer.
 */
void check_impl(const struct impl *im, const struct input *in, struct verdict *v);

#endif

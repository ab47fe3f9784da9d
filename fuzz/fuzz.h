/*
 * Shared by the libFuzzer targets: how an input becomes an encoding and one
 * or two names, and the property checks' failure path.
 *
 * Input layout: byte 0 picks the encoding (its low bits index the list of
 * cf_encoding_list, so every version and ascii are reached) and byte 1 its
 * flags; the rest is the name, or two names separated by the first 0xFF
 * byte (0xFF never occurs in UTF-8, so both halves stay arbitrary).
 */
#ifndef CF_FUZZ_H
#define CF_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casefold.h"

#define FUZZ_ASSERT(cond, what)                                                  \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "property violated: %s (%s)\n", what, #cond); \
			abort();                                                 \
		}                                                                \
	} while (0)

/* The entry point libFuzzer calls. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_input {
	cf_encoding enc;
	const char *a, *b;
	size_t alen, blen;
};

/* 0 if the input is too short to use. */
static inline int fuzz_split(const uint8_t *data, size_t size, struct fuzz_input *in)
{
	size_t n = 0;

	if (size < 2)
		return 0;
	while (cf_encoding_list(n))
		n++;
	if (cf_encoding_load(&in->enc, cf_encoding_list(data[0] % n), data[1] & 3))
		abort();
	in->a = (const char *)data + 2;
	in->alen = size - 2;
	const uint8_t *sep = memchr(in->a, 0xFF, in->alen);
	if (sep) {
		in->b = (const char *)sep + 1;
		in->blen = in->alen - (size_t)((const char *)sep + 1 - in->a);
		in->alen = (size_t)((const char *)sep - in->a);
	} else {
		in->b = in->a;
		in->blen = in->alen;
	}
	return 1;
}

static inline int is_kernel_encoding(const cf_encoding *e)
{
	return !strcmp(cf_encoding_name(e), "utf8-12.1.0") && !(e->flags & CF_KEEP_IGNORABLES);
}

#endif

/* GNU libunistring 1.0: u8_casefold to NFD into the caller's buffer, u8_casecmp. */
#include <stdlib.h>
#include <unicase.h>
#include <uninorm.h>

#include "bench.h"
#include "casefold.h"

static ssize_t fold(const char *s, size_t len, char *out, size_t cap)
{
	size_t n = cap;
	uint8_t *r = u8_casefold((const uint8_t *)s, len, NULL, UNINORM_NFD, (uint8_t *)out, &n);

	if (r == (uint8_t *)out)
		return (ssize_t)n;
	free(r); /* it allocated: the result did not fit */
	return -1;
}

static int cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int r;

	if (u8_casecmp((const uint8_t *)a, alen, (const uint8_t *)b, blen, NULL, UNINORM_NFD, &r))
		return -1;
	return r != 0;
}

/* libunistring 1.0 has Unicode 14.0 and keeps ignorables. */
const struct impl uni_fold = {"libunistring u8_casefold NFD", ROLE_PEER, .fold = fold,
			      .ref_encoding = "utf8-14.0.0", .ref_flags = CF_KEEP_IGNORABLES};
const struct impl uni_cmp = {"libunistring u8_casecmp NFD", ROLE_PEER, .cmp = cmp};

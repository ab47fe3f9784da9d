/*
 * utf8proc 2.8: decompose with case folding into the caller's buffer (as
 * code points), then re-encode in place to UTF-8.  It has no comparison
 * function; a user folds both names and compares the bytes, as here.
 */
#include <string.h>
#include <utf8proc.h>

#include "bench.h"
#include "casefold.h"

#define OPTIONS (UTF8PROC_CASEFOLD | UTF8PROC_DECOMPOSE)

static ssize_t fold(const char *s, size_t len, char *out, size_t cap)
{
	utf8proc_int32_t *cps = (utf8proc_int32_t *)(void *)out;
	utf8proc_ssize_t n = utf8proc_decompose((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)len,
						cps, (utf8proc_ssize_t)(cap / sizeof(*cps)), OPTIONS);

	if (n < 0 || (size_t)n > cap / sizeof(*cps))
		return -1;
	return utf8proc_reencode(cps, n, OPTIONS);
}

static int cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	static utf8proc_int32_t fa[BENCH_OUT_MAX / 4], fb[BENCH_OUT_MAX / 4];
	ssize_t na = fold(a, alen, (char *)fa, sizeof(fa));
	ssize_t nb = fold(b, blen, (char *)fb, sizeof(fb));

	if (na < 0 || nb < 0)
		return -1;
	return na != nb || memcmp(fa, fb, (size_t)na);
}

/* utf8proc 2.8 has Unicode 15.0 and keeps ignorables (without UTF8PROC_IGNORE). */
const struct impl u8p_fold = {"utf8proc decompose CASEFOLD + reencode", ROLE_PEER, .fold = fold,
			      .ref_encoding = "utf8-15.0.0", .ref_flags = CF_KEEP_IGNORABLES};
const struct impl u8p_cmp = {"utf8proc fold both + memcmp", ROLE_PEER, .cmp = cmp};

/* compare, folded compare, hash and the matching rule agree with each
 * other: cmp equal <=> folded bytes equal => hashes equal. */
#include <errno.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char fa[16384], fb[16384];
	struct fuzz_input in;
	uint64_t ha, hb;

	if (!fuzz_split(data, size, &in))
		return 0;
	const cf_encoding *e = &in.enc;
	ssize_t na = cf_casefold(e, in.a, in.alen, fa, sizeof(fa));
	ssize_t nb = cf_casefold(e, in.b, in.blen, fb, sizeof(fb));
	int eq = cf_casefold_equal(e, in.a, in.alen, in.b, in.blen);
	FUZZ_ASSERT(eq == 0 || eq == 1 || eq == -EINVAL, "equal range");
	if (na >= 0 && nb >= 0) {
		int same = na == nb && !memcmp(fa, fb, (size_t)na);
		FUZZ_ASSERT((eq == 1) == same, "equal <=> folded bytes");
		FUZZ_ASSERT(cf_casefold_equal_folded(e, fa, (size_t)na, in.b, in.blen) == same,
			    "folded compare");
		FUZZ_ASSERT(cf_casefold_hash(e, in.a, in.alen, &ha) == 0 &&
				    cf_casefold_hash(e, in.b, in.blen, &hb) == 0,
			    "hash of foldable names");
		FUZZ_ASSERT(!same || ha == hb, "equal => same hash");
	} else {
		FUZZ_ASSERT(eq != 1 || (in.alen == in.blen && !memcmp(in.a, in.b, in.alen)),
			    "unfoldable names compare equal only to themselves");
	}
	int m = cf_name_match(e, in.a, in.alen, in.b, in.blen);
	FUZZ_ASSERT(m == 0 || m == 1 || (m == -EINVAL && (e->flags & CF_STRICT)), "match range");
	if (m == 1)
		FUZZ_ASSERT(cf_name_hash(e, in.a, in.alen, &ha) == 0 &&
				    cf_name_hash(e, in.b, in.blen, &hb) == 0 && ha == hb,
			    "match => same name hash");
	FUZZ_ASSERT(cf_normalize_equal(e, in.a, in.alen, in.a, in.alen) != 0, "reflexive");
	return 0;
}

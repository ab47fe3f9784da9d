/* validate: a valid name always folds and normalizes, never to -EINVAL;
 * validation stops at NUL; ascii validity implies UTF-8 validity. */
#include <errno.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char out[16384];
	struct fuzz_input in;

	if (!fuzz_split(data, size, &in))
		return 0;
	int v = cf_validate(&in.enc, in.a, in.alen);
	FUZZ_ASSERT(v == 0 || v == -EINVAL, "range");
	if (v == 0) {
		FUZZ_ASSERT(cf_casefold(&in.enc, in.a, in.alen, out, sizeof(out)) >= 0, "valid folds");
		FUZZ_ASSERT(cf_normalize(&in.enc, in.a, in.alen, out, sizeof(out)) >= 0,
			    "valid normalizes");
	}
	const char *nul = memchr(in.a, 0, in.alen);
	if (nul)
		FUZZ_ASSERT(v == cf_validate(&in.enc, in.a, (size_t)(nul - in.a)), "stops at NUL");
	cf_encoding ascii, utf8;
	cf_encoding_load(&ascii, "ascii", 0);
	cf_encoding_load(&utf8, "utf8", 0);
	if (cf_validate(&ascii, in.a, in.alen) == 0)
		FUZZ_ASSERT(cf_validate(&utf8, in.a, in.alen) == 0, "ascii is utf8");
	return 0;
}

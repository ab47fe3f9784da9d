/* casefold and normalize: results are the kernel's (libext2fs) for
 * utf8-12.1.0/strip, valid UTF-8 for valid input, the same through the
 * cursor, and stable under refolding where the kernel's algorithm is. */
#include <errno.h>

#include "../tests/unit/ext2fs_oracle.h"
#include "fuzz.h"

static char out[16384], again[16384];

static void check_form(const struct fuzz_input *in, enum cf_form form)
{
	ssize_t n = form == CF_NFDICF ? cf_casefold(&in->enc, in->a, in->alen, out, sizeof(out))
				      : cf_normalize(&in->enc, in->a, in->alen, out, sizeof(out));
	cf_cursor cur;
	ssize_t i = 0;
	int c = -EINVAL;

	FUZZ_ASSERT(n >= 0 || n == -EINVAL, "error codes (the buffer is big enough)");
	if (cf_cursor_init(&cur, &in->enc, form, in->a, in->alen) == 0)
		while ((c = cf_cursor_next(&cur)) > 0) {
			FUZZ_ASSERT(n < 0 || (i < n && out[i] == (char)c), "cursor bytes");
			i++;
		}
	FUZZ_ASSERT(n >= 0 ? c == 0 && i == n : c < 0, "cursor and whole-name agree");
	if (n < 0 || cf_validate(&in->enc, in->a, in->alen))
		return;
	FUZZ_ASSERT(cf_validate(&in->enc, out, (size_t)n) == 0, "valid in, valid out");
	/* Refolding is stable unless a stripped ignorable separated marks
	 * (documented in casefold.h): then skip. */
	cf_encoding keep = in->enc;
	static char kept[16384];
	cf_encoding_load(&keep, cf_encoding_name(&in->enc), in->enc.flags | CF_KEEP_IGNORABLES);
	ssize_t nk = form == CF_NFDICF ? cf_casefold(&keep, in->a, in->alen, kept, sizeof(kept))
				       : cf_normalize(&keep, in->a, in->alen, kept, sizeof(kept));
	if (nk != n || memcmp(kept, out, (size_t)n))
		return;
	ssize_t m = form == CF_NFDICF ? cf_casefold(&in->enc, out, (size_t)n, again, sizeof(again))
				      : cf_normalize(&in->enc, out, (size_t)n, again, sizeof(again));
	FUZZ_ASSERT(m == n && !memcmp(again, out, (size_t)n), "idempotent");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int oracle_ok = -1;
	struct fuzz_input in;

	if (!fuzz_split(data, size, &in))
		return 0;
	check_form(&in, CF_NFDICF);
	check_form(&in, CF_NFDI);
	if (oracle_ok < 0)
		oracle_ok = oracle_open() == 0;
	if (oracle_ok && is_kernel_encoding(&in.enc) && in.alen <= 1024) {
		static unsigned char want[16384];
		int w = oracle_fold(in.a, in.alen, want, sizeof(want));
		ssize_t n = cf_casefold(&in.enc, in.a, in.alen, out, sizeof(out));
		FUZZ_ASSERT((w < 0) == (n < 0), "kernel agrees on validity");
		FUZZ_ASSERT(w < 0 || (w == n && !memcmp(want, out, (size_t)n)), "kernel bytes");
	}
	return 0;
}

/*
 * utf8-15.0.0 with ignorables kept against ICU (Debian's libicu, Unicode
 * 15.0): for every code point, nfdicf equals ICU's full case folding
 * followed by NFD, and nfdi equals ICU's NFD.  Skipped if the ICU build here
 * is not Unicode 15.0.
 */
#include <stdint.h>
#include <string.h>
#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/ustring.h>

#include "casefold.h"
#include "check.h"

static int icu_fold_nfd(const UNormalizer2 *nfd, UChar32 c, int fold, char *out, int cap)
{
	UChar src[4], tmp[64], norm[64];
	int32_t n = 0, len;
	UErrorCode err = U_ZERO_ERROR;

	U16_APPEND_UNSAFE(src, n, c);
	if (fold) {
		len = u_strFoldCase(tmp, 64, src, n, U_FOLD_CASE_DEFAULT, &err);
	} else {
		memcpy(tmp, src, sizeof(UChar) * (size_t)n);
		len = n;
	}
	len = unorm2_normalize(nfd, tmp, len, norm, 64, &err);
	int32_t olen = 0;
	u_strToUTF8(out, cap, &olen, norm, len, &err);
	return U_FAILURE(err) ? -1 : olen;
}

int main(void)
{
	UVersionInfo v;
	UErrorCode err = U_ZERO_ERROR;
	const UNormalizer2 *nfd = unorm2_getNFDInstance(&err);
	cf_encoding enc;
	unsigned long diffs = 0;

	u_getUnicodeVersion(v);
	if (v[0] != 15 || v[1] != 0) {
		printf("ICU has Unicode %d.%d, not 15.0\n", v[0], v[1]);
		return 77;
	}
	CHECK(U_SUCCESS(err), "ICU NFD instance");
	CHECK(cf_encoding_load(&enc, "utf8-15.0.0", CF_KEEP_IGNORABLES) == 0, "load");
	for (UChar32 c = 1; c <= 0x10FFFF; c++) {
		char s[4], want[256], got[256];
		int32_t n = 0;
		UBool bad = 0;

		if (c >= 0xD800 && c <= 0xDFFF)
			continue;
		U8_APPEND((uint8_t *)s, n, 4, c, bad);
		CHECK(!bad, "encode U+%04X", (unsigned)c);
		for (int fold = 0; fold <= 1; fold++) {
			int w = icu_fold_nfd(nfd, c, fold, want, sizeof(want));
			ssize_t g = fold ? cf_casefold(&enc, s, (size_t)n, got, sizeof(got))
					 : cf_normalize(&enc, s, (size_t)n, got, sizeof(got));
			if (w != g || memcmp(want, got, (size_t)w)) {
				diffs++;
				CHECK(0, "U+%04X %s: ICU %s, ours %s", (unsigned)c, fold ? "nfdicf" : "nfdi",
				      hexs(want, w), hexs(got, g));
			}
		}
	}
	printf("every code point vs ICU %d.%d: %lu differences\n", v[0], v[1], diffs);
	return test_done("icu");
}

/*
 * ICU 72 through its C API.  ICU's UTF-8 normalizer (Normalizer2::normalizeUTF8)
 * is C++ only, so the fold has two C paths, both measured: fold in UTF-8 with
 * ucasemap_utf8FoldCase then NFD in UTF-16; or everything in UTF-16.  Both
 * convert to and from UTF-16 because the names are UTF-8 and so is the output.
 */
#include <stdio.h>
#include <unicode/ucasemap.h>
#include <unicode/unorm.h>
#include <unicode/unorm2.h>
#include <unicode/ustring.h>

#include "bench.h"
#include "casefold.h"

#define UMAX (BENCH_OUT_MAX / 2)

static UCaseMap *csm;
static const UNormalizer2 *nfd;
static char tmp8[BENCH_OUT_MAX];
static UChar u1[UMAX], u2[UMAX];

int icu_init(void)
{
	UErrorCode err = U_ZERO_ERROR;

	csm = ucasemap_open("", U_FOLD_CASE_DEFAULT, &err);
	nfd = unorm2_getNFDInstance(&err);
	if (U_FAILURE(err)) {
		fprintf(stderr, "ICU: %s\n", u_errorName(err));
		return -1;
	}
	return 0;
}

/* NFD of u1[0..n) to UTF-8 in out. */
static ssize_t nfd_to_utf8(int32_t n, char *out, size_t cap, UErrorCode *err)
{
	int32_t m = unorm2_normalize(nfd, u1, n, u2, UMAX, err), olen = 0;

	u_strToUTF8(out, (int32_t)cap, &olen, u2, m, err);
	return U_FAILURE(*err) ? -1 : olen;
}

static ssize_t fold8(const char *s, size_t len, char *out, size_t cap)
{
	UErrorCode err = U_ZERO_ERROR;
	int32_t n8 = ucasemap_utf8FoldCase(csm, tmp8, sizeof(tmp8), s, (int32_t)len, &err), n = 0;

	u_strFromUTF8(u1, UMAX, &n, tmp8, n8, &err);
	return nfd_to_utf8(n, out, cap, &err);
}

static ssize_t fold16(const char *s, size_t len, char *out, size_t cap)
{
	UErrorCode err = U_ZERO_ERROR;
	int32_t n = 0;

	u_strFromUTF8(u2, UMAX, &n, s, (int32_t)len, &err);
	n = u_strFoldCase(u1, UMAX, u2, n, U_FOLD_CASE_DEFAULT, &err);
	return nfd_to_utf8(n, out, cap, &err);
}

/* Both names to UTF-16 (u1, u2); 0 or -1. */
static int to_utf16(const char *a, size_t alen, const char *b, size_t blen, int32_t *na,
		    int32_t *nb)
{
	UErrorCode err = U_ZERO_ERROR;

	u_strFromUTF8(u1, UMAX, na, a, (int32_t)alen, &err);
	u_strFromUTF8(u2, UMAX, nb, b, (int32_t)blen, &err);
	return U_FAILURE(err) ? -1 : 0;
}

/* Whether a and b differ once ICU folds them: canonically too, or case only. */
static int icu_differ(const char *a, size_t alen, const char *b, size_t blen, bool canonical)
{
	UErrorCode err = U_ZERO_ERROR;
	int32_t na, nb, r;

	if (to_utf16(a, alen, b, blen, &na, &nb))
		return -1;
	r = canonical ? unorm_compare(u1, na, u2, nb, U_COMPARE_IGNORE_CASE, &err)
		      : u_strCaseCompare(u1, na, u2, nb, U_FOLD_CASE_DEFAULT, &err);
	return U_FAILURE(err) ? -1 : r != 0;
}

/* Canonical and case-insensitive: the same question cf_casefold_equal answers. */
static int cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	return icu_differ(a, alen, b, blen, true);
}

/* Case only: "Å" (U+00C5) and "A U+030A" differ here. */
static int casecmp(const char *a, size_t alen, const char *b, size_t blen)
{
	return icu_differ(a, alen, b, blen, false);
}

/* ICU 72 has Unicode 15.0 and keeps ignorables. */
const struct impl icu_fold8 = {"ICU utf8FoldCase + UTF-16 NFD", ROLE_PEER, .fold = fold8,
			       .ref_encoding = "utf8-15.0.0", .ref_flags = CF_KEEP_IGNORABLES};
const struct impl icu_fold16 = {"ICU UTF-16 u_strFoldCase + NFD", ROLE_PEER, .fold = fold16,
				.ref_encoding = "utf8-15.0.0", .ref_flags = CF_KEEP_IGNORABLES};
const struct impl icu_cmp = {"ICU unorm_compare IGNORE_CASE", ROLE_PEER, .cmp = cmp};
const struct impl icu_casecmp = {"ICU u_strCaseCompare (no NFD)", ROLE_PARTIAL, .cmp = casecmp};

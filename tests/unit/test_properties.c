/*
 * Properties that must hold for every encoding and policy, on random names
 * (same mix of characters as the oracle test, including invalid bytes):
 *   - folding and normalizing are idempotent on valid names, except where
 *     stripping an ignorable changed the result (the kernel orders marks as
 *     if the removed ignorable were a starter; see casefold.h);
 *   - cf_casefold_equal says equal <=> folded bytes are equal, and then the
 *     hashes are equal; cf_casefold_equal_folded agrees with cf_casefold_equal;
 *   - the streaming cursor yields exactly cf_casefold's bytes;
 *   - cf_name_match and cf_name_hash agree;
 *   - results written into a buffer of exactly their length, placed right
 *     before a guard page, never touch the page (and any smaller buffer
 *     gives -ENAMETOOLONG).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "casefold.h"
#include "check.h"
#include "utf8enc.h"

#define RND_SEED 0x2545F4914F6CDD1Dull
#include "rnd.h"

static const uint32_t pool[] = { 'A', 'a', 'Z', 'z', '0', 0x00C5, 0x212B, 0x00E5, 0x030A, 0x0301,
				 0x0316, 0x0345, 0x03B9, 0x0399, 0x00DF, 0x1E9E, 0x0130, 0x0390,
				 0x1F88, 0x200D, 0xFE0F, 0x00AD, 0xAC00, 0xD55C, 0x1100, 0x1161,
				 0x11AB, 0x13A0, 0xAB70, 0x1C90, 0x10D0, 0xA7C0, 0x1E921, 0x0F73,
				 0x0F71, 0x0F72, 0x1D15E, 0x1D165, 0xFB03, 0x212A };

static size_t random_name(char *s)
{
	size_t n = 0, want = rnd(20);

	while (n < want) {
		uint32_t k = rnd(100);
		if (k < 10)
			for (uint32_t r = rnd(16); r > 0 && n < 100; r--)
				s[n++] = (char)('A' + rnd(58));
		else if (k < 60)
			n += (size_t)put_utf8(pool[rnd(sizeof(pool) / sizeof(pool[0]))], s + n);
		else if (k < 95) {
			uint32_t c = rnd(0x110000);
			n += (size_t)put_utf8(c >= 0xD800 && c <= 0xDFFF ? 'x' : c, s + n);
		} else
			s[n++] = (char)(0x80 + rnd(0x80));
	}
	return n;
}

/* Does stripping ignorables change the fold of s? */
static int strips_ignorable(const cf_encoding *e, const char *s, size_t n)
{
	cf_encoding keep = *e;
	char a[1024], b[1024];

	if (e->flags & CF_KEEP_IGNORABLES)
		return 0;
	cf_encoding_load(&keep, cf_encoding_name(e), e->flags | CF_KEEP_IGNORABLES);
	ssize_t ra = cf_casefold(e, s, n, a, sizeof(a)), rb = cf_casefold(&keep, s, n, b, sizeof(b));
	return ra != rb || memcmp(a, b, (size_t)ra);
}

/* A buffer of exactly n bytes that ends where an unmapped page begins. */
static char *guarded(char *page, size_t pagesz, size_t n)
{
	return page + pagesz - n;
}

static void one_encoding(const char *name, unsigned flags, unsigned long count, char *page,
			 size_t pagesz)
{
	cf_encoding e;
	unsigned long equal = 0;

	CHECK(cf_encoding_load(&e, name, flags) == 0, "load %s", name);
	for (unsigned long i = 0; i < count; i++) {
		char a[128], b[128], fa[1024], fb[1024], ff[1024], na[1024];
		size_t la = random_name(a), lb;
		/* Half the time b is a case variant of a. */
		if (rnd(2)) {
			lb = la;
			for (size_t k = 0; k < la; k++)
				b[k] = (a[k] >= 'a' && a[k] <= 'z') ? (char)(a[k] ^ 0x20) : a[k];
		} else {
			lb = random_name(b);
		}
		ssize_t ra = cf_casefold(&e, a, la, fa, sizeof(fa));
		ssize_t rb = cf_casefold(&e, b, lb, fb, sizeof(fb));
		int eq = cf_casefold_equal(&e, a, la, b, lb);
		uint64_t ha = 0, hb = 0;

		if (ra >= 0 && cf_validate(&e, a, la) == 0 && !strips_ignorable(&e, a, la)) {
			ssize_t r2 = cf_casefold(&e, fa, (size_t)ra, ff, sizeof(ff));
			CHECK(r2 == ra && !memcmp(ff, fa, (size_t)ra), "%s: fold not idempotent on %s",
			      name, hexs(a, (long)la));
			ssize_t rn = cf_normalize(&e, a, la, na, sizeof(na));
			ssize_t r3 = cf_normalize(&e, na, (size_t)rn, ff, sizeof(ff));
			CHECK(rn >= 0 && r3 == rn && !memcmp(ff, na, (size_t)rn),
			      "%s: normalize not idempotent on %s", name, hexs(a, (long)la));
		}
		if (ra >= 0) {
			cf_cursor cur;
			ssize_t k = 0;
			int c;
			CHECK(cf_cursor_init(&cur, &e, CF_NFDICF, a, la) == 0, "cursor init");
			while ((c = cf_cursor_next(&cur)) > 0 && k < ra)
				CHECK(fa[k++] == (char)c, "cursor byte %zd", k);
			CHECK(c == 0 && k == ra, "%s: cursor length on %s", name, hexs(a, (long)la));
			CHECK(cf_casefold_hash(&e, a, la, &ha) == 0, "hash a");
			/* Exactly-sized buffer before a guard page; one less fails. */
			CHECK(cf_casefold(&e, a, la, guarded(page, pagesz, (size_t)ra), (size_t)ra) == ra,
			      "exact buffer");
			if (ra > 0)
				CHECK(cf_casefold(&e, a, la, guarded(page, pagesz, (size_t)ra - 1),
						  (size_t)ra - 1) == -ENAMETOOLONG, "short buffer");
		}
		if (ra >= 0 && rb >= 0) {
			int same = ra == rb && !memcmp(fa, fb, (size_t)ra);
			CHECK((eq == 1) == same, "%s: equal %d vs bytes on %s / %s", name, eq,
			      hexs(a, (long)la), hexs(b, (long)lb));
			CHECK(cf_casefold_equal_folded(&e, fa, (size_t)ra, b, lb) == same,
			      "%s: folded compare", name);
			CHECK(cf_casefold_hash(&e, b, lb, &hb) == 0, "hash b");
			CHECK(!same || ha == hb, "%s: equal names hash differently", name);
			equal += same;
		} else {
			CHECK(eq != 1 || (la == lb && !memcmp(a, b, la)), "%s: invalid compared equal",
			      name);
		}
		int m = cf_name_match(&e, a, la, b, lb);
		uint64_t na_h, nb_h;
		if (m == 1)
			CHECK(cf_name_hash(&e, a, la, &na_h) == 0 && cf_name_hash(&e, b, lb, &nb_h) == 0 &&
				      na_h == nb_h, "%s: matching names hash differently: %s / %s", name,
			      hexs(a, (long)la), hexs(b, (long)lb));
		CHECK(m == 1 || m == 0 || (m == -EINVAL && (flags & CF_STRICT)), "match result %d", m);
	}
	printf("%s flags %u: %lu names, %lu equal pairs\n", name, flags, count, equal);
	CHECK(equal > count / (strcmp(name, "ascii") ? 10 : 100), "%s: too few equal pairs (%lu)",
	      name, equal);
}

int main(void)
{
	static const char *const encs[] = { "utf8-12.1.0", "utf8-17.0.0", "utf8-5.0.0", "utf8-15.0.0",
					    "ascii" };
	size_t pagesz = (size_t)sysconf(_SC_PAGESIZE);
	char *map = mmap(NULL, 2 * pagesz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(map != MAP_FAILED && mprotect(map + pagesz, pagesz, PROT_NONE) == 0, "guard page");
	for (size_t i = 0; i < sizeof(encs) / sizeof(encs[0]); i++)
		for (unsigned flags = 0; flags < 4; flags++)
			one_encoding(encs[i], flags, 20000, map, pagesz);
	return test_done("properties");
}

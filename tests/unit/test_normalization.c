/*
 * NormalizationTest.txt through the library's public API, for every UCD
 * version available here: ../shared/ucd/12.1.0 and 17.0.0, and Debian's
 * unicode-data (15.0.0, /usr/share/unicode).  Each file is checked with the
 * encoding of its own version:
 *   - ignorables kept: nfdi is NFD, so c3 == nfdi(c1..c3), c5 == nfdi(c4, c5);
 *   - ignorables stripped: the same with Default_Ignorable code points (of
 *     that version's DerivedCoreProperties.txt) removed from the expectation;
 *   - every code point not listed in part 1 is its own nfdi (kept).
 * Directories can be given as arguments instead.  Unicode 15.0 is required
 * (.ci/run installs it); the shared ones are skipped when absent.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casefold.h"
#include "check.h"
#include "utf8enc.h"
#include "ucdfile.h"

/* Column text ("1E0A 0323") to UTF-8; ignorables dropped if drop is set. */
static size_t column(const char *text, const uint8_t *drop, char *out)
{
	size_t n = 0;
	char *end;

	for (;;) {
		unsigned long c = strtoul(text, &end, 16);
		if (end == text)
			return n;
		if (!drop || !drop[c])
			n += (size_t)put_utf8((uint32_t)c, out + n);
		text = end;
	}
}

/* Returns the number of test lines checked, or -1 if the file is absent. */
static long check_dir(const char *dir, const char *version)
{
	static uint8_t ignorable[0x110000], listed[0x110000];
	struct ucdfile u;
	char line[4096];
	long lines = 0;
	int part = 0;
	cf_encoding keep, strip;

	if (ucd_fopen(&u, dir, "NormalizationTest.txt"))
		return -1;
	memset(ignorable, 0, sizeof(ignorable));
	memset(listed, 0, sizeof(listed));
	CHECK(ucd_property(dir, "Default_Ignorable_Code_Point", ignorable) == 0, "%s: no ignorables", dir);
	CHECK(cf_encoding_load(&keep, version, CF_KEEP_IGNORABLES) == 0, "load %s", version);
	CHECK(cf_encoding_load(&strip, version, 0) == 0, "load %s", version);

	while (fgets(line, sizeof(line), u.f)) {
		char *col[5], in[512], want[512], got[1024];
		if (line[0] == '@') {
			part = atoi(line + 5);
			continue;
		}
		if (line[0] == '#' || line[0] == '\n')
			continue;
		col[0] = line;
		for (int i = 1; i < 5; i++)
			col[i] = strchr(col[i - 1], ';') + 1;
		if (part == 1)
			listed[strtoul(line, NULL, 16)] = 1;
		for (int policy = 0; policy < 2; policy++) {
			const cf_encoding *enc = policy ? &strip : &keep;
			for (int i = 0; i < 5; i++) {
				size_t ni = column(col[i], NULL, in);
				size_t nw = column(col[i < 3 ? 2 : 4], policy ? ignorable : NULL, want);
				ssize_t ng = cf_normalize(enc, in, ni, got, sizeof(got));
				CHECK(ng == (ssize_t)nw && !memcmp(got, want, nw),
				      "%s %s: nfdi(c%d) of line '%.60s' is %s, want %s", version,
				      policy ? "strip" : "keep", i + 1, line, hexs(got, ng),
				      hexs(want, (long)nw));
			}
		}
		lines++;
	}
	ucd_fclose(&u);
	for (uint32_t c = 0; c < 0x110000; c++) {
		char s[4], got[64];
		int n = put_utf8(c, s);
		if (listed[c] || (c >= 0xD800 && c <= 0xDFFF))
			continue;
		ssize_t ng = cf_normalize(&keep, s, (size_t)n, got, sizeof(got));
		CHECK(c == 0 ? ng == 0 : (ng == n && !memcmp(s, got, (size_t)n)),
		      "%s: unlisted U+%04X changes under nfdi", version, c);
	}
	printf("%s (%s): %ld lines, 5 columns, 2 policies\n", version, dir, lines);
	return lines;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *dir, *version;
		int required;
	} sets[] = {
		{ "/usr/share/unicode", "utf8-15.0.0", 1 },
		{ "../shared/ucd/12.1.0", "utf8-12.1.0", 0 },
		{ "../shared/ucd/17.0.0", "utf8-17.0.0", 0 },
	};
	const char *root = getenv("CF_ROOT");
	char dir[4096];

	if (argc == 3)
		return check_dir(argv[1], argv[2]) > 0 ? test_done("normalization") : 1;
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		if (sets[i].dir[0] == '/' || !root)
			snprintf(dir, sizeof(dir), "%s", sets[i].dir);
		else
			snprintf(dir, sizeof(dir), "%s/%s", root, sets[i].dir);
		long n = check_dir(dir, sets[i].version);
		if (n < 0)
			printf("%s: not present, skipped\n", dir);
		CHECK(n > 10000 || (n < 0 && !sets[i].required), "%s: %ld lines", dir, n);
	}
	return test_done("normalization");
}

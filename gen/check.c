/*
 * Self-checks of the generator: the sources must have the shape the library
 * relies on, and the packed tables must reproduce NormalizationTest.txt and
 * CaseFolding.txt.  Checks read the packed tables back, not the UCD structs,
 * so a packing mistake cannot slip through.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "packed.h"

/* The library's cursor assumes that the characters of a mapping need no
 * further mapping and are never ignorable (so one mapping string serves both
 * ignorable policies). */
void check_sources(const struct ucd *u)
{
	uint32_t m[MAX_MAP], mm[MAX_MAP];

	for (uint32_t c = 0; c < NCODEPOINTS; c++)
		for (int fold = 0; fold <= 1; fold++) {
			int n = full_mapping(u, c, fold, m);
			if (n == 1 && m[0] == c)
				continue;
			for (int i = 0; i < n; i++) {
				if (u->cp[m[i]].ignorable)
					fatal("mapping of U+%04X contains ignorable U+%04X", c, m[i]);
				if (is_hangul(m[i]))
					fatal("mapping of U+%04X contains a Hangul syllable", c);
				if (full_mapping(u, m[i], fold, mm) != 1 || mm[0] != m[i])
					fatal("mapping of U+%04X is not a fixed point", c);
			}
		}
}

struct packed {
	uint8_t age, ccc, flags;
	const uint8_t *nfd, *cf; /* NUL-terminated UTF-8, or NULL for identity */
};

static struct packed unpack_value(const struct tables *t, uint16_t v);

static struct packed unpack(const struct tables *t, uint32_t c)
{
	const struct trie *tr = &t->trie;

	if (c >= GAP_FIRST && c < GAP_END)
		return unpack_value(t, gap_nonchar(c) ? t->gap_nonchar_value : t->gap_value);
	c = trie_index(c);
	unsigned mid = ((unsigned)tr->l1[c >> tr->shift1] << (tr->shift1 - tr->shift2)) + ((c >> tr->shift2) & ((1u << (tr->shift1 - tr->shift2)) - 1));
	return unpack_value(t, tr->l3[tr->l2[mid] + (c & ((1u << tr->shift2) - 1))]);
}

static struct packed unpack_value(const struct tables *t, uint16_t v)
{
	struct packed p = { 0 };

	if (v < 0x8000) {
		p.age = t->classes[v][0];
		p.ccc = t->classes[v][1];
		p.flags = t->classes[v][2];
		return p;
	}
	const uint8_t *e = t->pool + (v & 0x7FFF);
	p.age = t->classes[e[0]][0];
	p.ccc = t->classes[e[0]][1];
	p.flags = t->classes[e[0]][2];
	p.nfd = e + 1;
	p.cf = (p.flags & F_CF_IS_NFD) ? p.nfd : p.nfd + strlen((const char *)p.nfd) + 1;
	if (!(p.flags & F_NFD))
		p.nfd = NULL;
	if (!(p.flags & F_CF))
		p.cf = NULL;
	return p;
}

static uint32_t utf8_get(const uint8_t **s)
{
	const uint8_t *p = *s;
	uint32_t c = p[0];
	int n = c < 0x80 ? 0 : c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;

	if (n)
		c &= 0x3Fu >> n;
	for (int i = 1; i <= n; i++)
		c = c << 6 | (p[i] & 0x3F);
	*s = p + n + 1;
	return c;
}

/* Reference normalization from the packed tables: decompose every character
 * (ignorables removed unless keep), then order each run of non-starters by
 * combining class (a stable insertion sort).  Returns the length. */
static int normalize(const struct tables *t, const uint32_t *in, int n, int fold, int keep,
		     uint32_t *out)
{
	int len = 0;

	for (int i = 0; i < n; i++) {
		struct packed p = unpack(t, in[i]);
		const uint8_t *m = fold ? p.cf : p.nfd;

		if ((p.flags & F_IGNORABLE) && !keep)
			continue;
		if (p.flags & F_HANGUL) {
			uint32_t s = in[i] - HANGUL_FIRST;
			out[len++] = 0x1100 + s / 588;
			out[len++] = 0x1161 + (s % 588) / 28;
			if (s % 28)
				out[len++] = 0x11A7 + s % 28;
		} else if (m) {
			while (*m)
				out[len++] = utf8_get(&m);
		} else {
			out[len++] = in[i];
		}
	}
	for (int i = 1; i < len; i++) {
		uint32_t c = out[i];
		uint8_t cc = unpack(t, c).ccc;
		int j = i;

		while (cc && j > 0 && unpack(t, out[j - 1]).ccc > cc) {
			out[j] = out[j - 1];
			j--;
		}
		out[j] = c;
	}
	return len;
}

static int parse_cps(char *s, uint32_t *out)
{
	int n = 0;
	char *end;

	while (*s == ' ')
		s++;
	while (*s) {
		out[n++] = (uint32_t)strtoul(s, &end, 16);
		if (end == s)
			fatal("bad NormalizationTest field");
		s = end;
		while (*s == ' ')
			s++;
	}
	return n;
}

static int same(const uint32_t *a, int na, const uint32_t *b, int nb)
{
	return na == nb && !memcmp(a, b, (size_t)na * sizeof(*a));
}

/* NormalizationTest.txt: c3 == NFD(c1) == NFD(c2) == NFD(c3) and
 * c5 == NFD(c4) == NFD(c5); with ignorables stripped the same holds for the
 * expected strings with their ignorables removed.  Every code point not listed
 * in part 1 must be its own NFD. */
static void check_normalization_test(struct ucd *u, const struct tables *t, const char *dir)
{
	FILE *f = ucd_open(u, dir, "NormalizationTest.txt");
	static uint8_t listed[NCODEPOINTS];
	char line[4096];
	unsigned lines = 0;
	int part = 0;

	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '@') {
			part = atoi(line + 5);
			continue;
		}
		if (line[0] == '#' || line[0] == '\n')
			continue;
		char *col[6];
		uint32_t c[5][64], got[256], want[64];
		int n[5];
		col[0] = line;
		for (int i = 1; i < 6; i++) {
			col[i] = strchr(col[i - 1], ';');
			if (!col[i])
				fatal("bad NormalizationTest line: %s", line);
			*col[i]++ = '\0';
		}
		for (int i = 0; i < 5; i++)
			n[i] = parse_cps(col[i], c[i]);
		if (part == 1)
			listed[c[0][0]] = 1;
		for (int keep = 0; keep <= 1; keep++)
			for (int i = 0; i < 5; i++) {
				int e = i < 3 ? 2 : 4, nw = 0;
				for (int k = 0; k < n[e]; k++)
					if (keep || !(unpack(t, c[e][k]).flags & F_IGNORABLE))
						want[nw++] = c[e][k];
				int ng = normalize(t, c[i], n[i], 0, keep, got);
				if (!same(got, ng, want, nw))
					fatal("NormalizationTest: NFD of column %d differs (%s policy): %s",
					      i + 1, keep ? "keep" : "strip", col[0]);
			}
		lines++;
	}
	fclose(f);
	for (uint32_t cp = 0; cp < NCODEPOINTS; cp++) {
		uint32_t got[MAX_MAP];
		if (!listed[cp] && (cp < 0xD800 || cp > 0xDFFF) &&
		    (normalize(t, &cp, 1, 0, 1, got) != 1 || got[0] != cp))
			fatal("U+%04X is not listed in NormalizationTest part 1 but decomposes", cp);
	}
	if (lines < 10000)
		fatal("NormalizationTest.txt has only %u test lines", lines);
	fprintf(stderr, "mktables: NormalizationTest.txt: %u lines x 5 columns x 2 policies ok\n", lines);
}

/* Every code point: the packed mappings equal the full mappings derived from
 * UnicodeData.txt and CaseFolding.txt, and folding is idempotent. */
static void check_every_code_point(const struct ucd *u, const struct tables *t)
{
	for (uint32_t c = 0; c < NCODEPOINTS; c++) {
		struct packed p = unpack(t, c);
		const struct ucd_char *ch = &u->cp[c];

		if (p.age != ch->age || p.ccc != ch->ccc || !(p.flags & F_IGNORABLE) != !ch->ignorable)
			fatal("U+%04X: properties lost in packing", c);
		if (is_hangul(c))
			continue;
		for (int fold = 0; fold <= 1; fold++) {
			uint32_t want[MAX_MAP], got[MAX_MAP], again[MAX_MAP];
			int nw = full_mapping(u, c, fold, want);
			int ng = normalize(t, &c, 1, fold, 1, got);
			/* The reference orders by combining class; so must the source. */
			int no = normalize(t, want, nw, fold, 1, again);
			if (!same(got, ng, again, no))
				fatal("U+%04X: %s differs from %s", c, fold ? "folding" : "decomposition",
				      fold ? "CaseFolding.txt" : "UnicodeData.txt");
			if (fold && (normalize(t, got, ng, 1, 1, again) != ng || !same(again, ng, got, ng)))
				fatal("U+%04X: folding is not idempotent", c);
		}
	}
	fprintf(stderr, "mktables: CaseFolding.txt and UnicodeData.txt: every code point ok\n");
}

void check_tables(struct ucd *u, const struct tables *t, const char *dir)
{
	check_every_code_point(u, t);
	check_normalization_test(u, t, dir);
}

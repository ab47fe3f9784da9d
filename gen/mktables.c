/*
 * mktables: build libcasefold's Unicode tables from a UCD directory.
 *
 *   mktables UCD_DIR OUT_DIR   writes OUT_DIR/unicode_tables.{h,c}
 *
 * One table serves every Unicode version: each code point carries the index
 * of the version that assigned it, and the library treats characters newer
 * than the selected version as unassigned (the kernel's "maxage" scheme).
 *
 * Per code point the library needs its age, its canonical combining class,
 * whether it is Default_Ignorable, and two fully expanded mappings:
 *   nfd  its full canonical decomposition,
 *   cf   its full case folding (C+F), each folded character decomposed
 *        and folded again until nothing changes.
 * Hangul syllables are flagged and decomposed by the library.
 *
 * Layout (see lib/tables.h): a three-level trie maps a code point to a 16-bit
 * value.  Values below 0x8000 index a small array of {age, ccc, flags}
 * classes (characters without a mapping); values from 0x8000 are offsets into
 * a byte pool holding {class, nfd NUL-terminated, cf NUL-terminated unless it
 * equals nfd}.  The pool's strings are UTF-8.  The first level holds block
 * numbers (bytes), the others offsets.
 *
 * Before writing anything the tables are checked against NormalizationTest.txt
 * and CaseFolding.txt (check.c); any failure is fatal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "packed.h"

static int utf8_put(uint32_t c, uint8_t *p)
{
	if (c < 0x80) {
		p[0] = (uint8_t)c;
		return 1;
	}
	if (c < 0x800) {
		p[0] = (uint8_t)(0xC0 | c >> 6);
		p[1] = (uint8_t)(0x80 | (c & 0x3F));
		return 2;
	}
	if (c < 0x10000) {
		p[0] = (uint8_t)(0xE0 | c >> 12);
		p[1] = (uint8_t)(0x80 | (c >> 6 & 0x3F));
		p[2] = (uint8_t)(0x80 | (c & 0x3F));
		return 3;
	}
	p[0] = (uint8_t)(0xF0 | c >> 18);
	p[1] = (uint8_t)(0x80 | (c >> 12 & 0x3F));
	p[2] = (uint8_t)(0x80 | (c >> 6 & 0x3F));
	p[3] = (uint8_t)(0x80 | (c & 0x3F));
	return 4;
}

static int is_identity(const uint32_t *m, int n, uint32_t c) { return n == 1 && m[0] == c; }

/* A mapping made only of starters can be copied out without reordering. */
static int all_starters(const struct ucd *u, const uint32_t *m, int n)
{
	for (int i = 0; i < n; i++)
		if (u->cp[m[i]].ccc)
			return 0;
	return 1;
}

/* Append a NUL-terminated UTF-8 string to the pool. */
static void pool_string(struct tables *t, const uint32_t *m, int n)
{
	unsigned start = t->npool;

	for (int i = 0; i < n; i++) {
		if (t->npool + 5 > POOL_MAX)
			fatal("mapping pool overflow");
		t->npool += (unsigned)utf8_put(m[i], t->pool + t->npool);
	}
	if (t->npool - start > t->map_max)
		t->map_max = t->npool - start;
	t->pool[t->npool++] = 0;
}

/* Index of the {age, ccc, flags} class, created on first use. */
static unsigned class_of(struct tables *t, uint8_t age, uint8_t ccc, uint8_t flags, uint8_t flags2)
{
	const uint8_t want[4] = { age, ccc, flags, flags2 };

	for (unsigned i = 0; i < t->nclasses; i++)
		if (!memcmp(t->classes[i], want, 4))
			return i;
	if (t->nclasses == CLASS_MAX)
		fatal("more than %d character classes", CLASS_MAX);
	memcpy(t->classes[t->nclasses], want, 4);
	return t->nclasses++;
}

/* Starters, then non-starters in non-decreasing class order, none assigned
 * after c itself: the kernel would emit such a mapping unchanged when the
 * name goes on with a starter. */
static int ordered_tail(const struct ucd *u, uint32_t c, const uint32_t *m, int n)
{
	int i = 0;

	while (i < n && !u->cp[m[i]].ccc)
		i++;
	for (int j = i + 1; j < n; j++)
		if (!u->cp[m[j]].ccc || u->cp[m[j]].ccc < u->cp[m[j - 1]].ccc)
			return 0;
	for (int j = 0; j < n; j++)
		if (u->cp[m[j]].age > u->cp[c].age)
			return 0;
	return 1;
}

/* The 16-bit value of one code point, creating its class or pool entry. */
static uint16_t value_of(const struct ucd *u, struct tables *t, uint32_t c)
{
	const struct ucd_char *ch = &u->cp[c];
	uint32_t nfd[MAX_MAP], cf[MAX_MAP];
	int nn = full_mapping(u, c, 0, nfd), nc = full_mapping(u, c, 1, cf);
	uint8_t flags = (uint8_t)((ch->ignorable ? F_IGNORABLE : 0) | (is_hangul(c) ? F_HANGUL : 0));

	if (!is_identity(nfd, nn, c))
		flags |= F_NFD;
	if (!is_identity(cf, nc, c))
		flags |= F_CF;
	if (!(flags & (F_NFD | F_CF)))
		return (uint16_t)class_of(t, ch->age, ch->ccc, flags, 0);

	int same = nn == nc && !memcmp(nfd, cf, (size_t)nn * sizeof(*nfd));
	if (same)
		flags |= F_CF_IS_NFD;
	if ((flags & F_NFD) && all_starters(u, nfd, nn))
		flags |= F_NFD_FLAT;
	if ((flags & F_CF) && all_starters(u, cf, nc))
		flags |= F_CF_FLAT;
	uint8_t flags2 = 0;
	if ((flags & F_NFD) && ordered_tail(u, c, nfd, nn))
		flags2 |= F2_NFD_TAIL;
	if ((flags & F_CF) && ordered_tail(u, c, cf, nc))
		flags2 |= F2_CF_TAIL;
	if ((flags & F_NFD) && nn && !u->cp[nfd[0]].ccc)
		flags2 |= F2_NFD_LEAD;
	if ((flags & F_CF) && nc && !u->cp[cf[0]].ccc)
		flags2 |= F2_CF_LEAD;
	uint16_t v = (uint16_t)(0x8000 | t->npool);
	if (t->npool + 1 > POOL_MAX)
		fatal("mapping pool overflow");
	t->pool[t->npool++] = (uint8_t)class_of(t, ch->age, ch->ccc, flags, flags2);
	pool_string(t, nfd, (flags & F_NFD) ? nn : 0);
	if (!same)
		pool_string(t, cf, (flags & F_CF) ? nc : 0);
	return v;
}

/* Blocks of a trie level, deduplicated through a hash of their contents. */
#define SLOTS (1u << 17)
struct dedup {
	uint16_t *arr;  /* the level being built */
	unsigned *len;  /* its length in entries */
	unsigned slot[SLOTS]; /* start + 1 of a block, 0 = empty */
};

static uint32_t block_hash(const uint16_t *blk, unsigned n)
{
	uint32_t h = 2166136261u;

	for (unsigned i = 0; i < n; i++)
		h = (h ^ blk[i]) * 16777619u;
	return h;
}

/* Find or append a block of n entries; returns its start. */
static unsigned intern(struct dedup *d, const uint16_t *blk, unsigned n)
{
	for (uint32_t i = block_hash(blk, n) & (SLOTS - 1);; i = (i + 1) & (SLOTS - 1)) {
		if (!d->slot[i]) {
			memcpy(d->arr + *d->len, blk, n * sizeof(*blk));
			*d->len += n;
			d->slot[i] = *d->len - n + 1;
			return *d->len - n;
		}
		if (!memcmp(d->arr + d->slot[i] - 1, blk, n * sizeof(*blk)))
			return d->slot[i] - 1;
	}
}

/* Pack the per-code-point values into the three-level trie with the given
 * shifts; returns its size in bytes (or a huge number if it cannot fit). */
static size_t pack(const uint16_t *values, struct trie *tr, unsigned s1, unsigned s2)
{
	static struct dedup d2, d3;
	unsigned n3 = 1u << s2, n2 = 1u << (s1 - s2);

	tr->shift1 = s1;
	tr->shift2 = s2;
	tr->n1 = tr->n2 = tr->n3 = 0;
	memset(&d2, 0, sizeof(d2));
	memset(&d3, 0, sizeof(d3));
	d2.arr = tr->l2, d2.len = &tr->n2;
	d3.arr = tr->l3, d3.len = &tr->n3;
	for (uint32_t hi = 0; hi < TRIE_SPAN; hi += 1u << s1) {
		uint16_t l2[1u << 12];
		for (unsigned j = 0; j < n2; j++) {
			unsigned at = intern(&d3, values + hi + (j << s2), n3);
			if (at > 0xFFFF)
				return (size_t)-1;
			l2[j] = (uint16_t)at;
		}
		unsigned at = intern(&d2, l2, n2);
		if (at > 0xFFFF)
			return (size_t)-1;
		if ((at >> (s1 - s2)) > 0xFF)
			return (size_t)-1;
		tr->l1[tr->n1++] = (uint8_t)(at >> (s1 - s2));
	}
	return tr->n1 + 2 * ((size_t)tr->n2 + tr->n3);
}

static void build(const struct ucd *u, struct tables *t)
{
	uint16_t *values = malloc(NCODEPOINTS * sizeof(*values));
	size_t best = (size_t)-1;
	unsigned b1 = 0, b2 = 0;

	if (!values)
		fatal("out of memory");
	t->gap_value = value_of(u, t, GAP_FIRST);
	t->gap_nonchar_value = value_of(u, t, GAP_FIRST | 0xFFFE);
	for (uint32_t c = 0; c < NCODEPOINTS; c++) {
		uint16_t v = value_of(u, t, c);
		if (c >= GAP_FIRST && c < GAP_END) {
			if (v != (gap_nonchar(c) ? t->gap_nonchar_value : t->gap_value))
				fatal("U+%04X is assigned: planes 4..13 are no longer empty", c);
			continue;
		}
		values[trie_index(c)] = v;
	}
	memcpy(t->direct2, values + DIRECT2_FIRST, sizeof(t->direct2));
	/* Choose the shifts giving the smallest trie: deterministic. */
	for (unsigned s1 = 8; s1 <= 16; s1++)
		for (unsigned s2 = 3; s2 < s1 && s1 - s2 <= 12; s2++) {
			size_t sz = pack(values, &t->trie, s1, s2);
			if (sz < best) {
				best = sz;
				b1 = s1;
				b2 = s2;
			}
		}
	pack(values, &t->trie, b1, b2);
	free(values);
}

int main(int argc, char **argv)
{
	static struct ucd u;
	static struct tables t;

	if (argc != 3) {
		fprintf(stderr, "usage: mktables UCD_DIR OUT_DIR\n");
		return 2;
	}
	ucd_load(&u, argv[1]);
	check_sources(&u);
	build(&u, &t);
	check_tables(&u, &t, argv[1]);
	emit(&u, &t, argv[2]);
	return 0;
}

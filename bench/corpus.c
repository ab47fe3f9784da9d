/*
 * Builds the inputs once, before any timing.  Case variants come from ICU's
 * upper- and lower-casing and are kept only where libcasefold (utf8-12.1.0)
 * says they are equal: uppercasing is not the inverse of folding (Turkish
 * dotless ı uppercases to I, which folds to i).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unicode/ucasemap.h>

#include "casefold.h"
#include "corpus.h"

#define NAME_MAX_BYTES 255

/* Strings live in large chunks, never freed: the process lives for one run. */
static char *store(const char *s, size_t len)
{
	static char *chunk;
	static size_t left;
	char *p;

	if (len + 1 > left) {
		left = len + 1 > (1u << 20) ? len + 1 : 1u << 20;
		chunk = malloc(left);
		if (!chunk) {
			perror("bench");
			exit(1);
		}
	}
	p = chunk;
	memcpy(p, s, len);
	p[len] = 0;
	chunk += len + 1;
	left -= len + 1;
	return p;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p) {
		perror("bench");
		exit(1);
	}
	return p;
}

static void add(struct names *set, const char *s, size_t len)
{
	set->s[set->n] = store(s, len);
	set->len[set->n++] = len;
	set->bytes += len;
}

static int is_ascii(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] >= 0x80)
			return 0;
	return 1;
}

int corpus_read(struct corpus *c, const char *label, const char *path, int ascii)
{
	cf_encoding strict;
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, lines = 0;
	ssize_t len;

	memset(c, 0, sizeof(*c));
	c->names.label = label;
	if (!f) {
		perror(path);
		return -1;
	}
	while (getline(&line, &cap, f) >= 0)
		lines++;
	rewind(f);
	c->names.s = xcalloc(lines, sizeof(*c->names.s));
	c->names.len = xcalloc(lines, sizeof(*c->names.len));
	cf_encoding_load(&strict, cf_encoding_latest(), CF_STRICT);
	while ((len = getline(&line, &cap, f)) >= 0) {
		if (len && line[len - 1] == '\n')
			len--;
		if (len == 0 || len > NAME_MAX_BYTES || memchr(line, 0, (size_t)len) ||
		    cf_validate(&strict, line, (size_t)len) || (ascii && !is_ascii(line, (size_t)len)))
			c->skipped++;
		else
			add(&c->names, line, (size_t)len);
	}
	free(line);
	fclose(f);
	if (!c->names.n) {
		fprintf(stderr, "%s: no usable names\n", path);
		return -1;
	}
	return 0;
}

void corpus_join(struct corpus *c, const char *label, const struct names *w, size_t size,
		 size_t n)
{
	/* Enough words for n strings, taken evenly from the whole list: every language. */
	size_t needed = n * size / (w->bytes / w->n + 1) + 1;
	size_t step = w->n > needed ? w->n / needed : 1, len = 0;
	char *buf = xcalloc(size, 1);

	memset(c, 0, sizeof(*c));
	c->names.label = label;
	c->names.s = xcalloc(n, sizeof(*c->names.s));
	c->names.len = xcalloc(n, sizeof(*c->names.len));
	for (size_t i = 0; c->names.n < n; i = (i + step) % w->n) {
		if (len + 1 + w->len[i] > size) {
			add(&c->names, buf, len);
			len = 0;
		}
		if (len)
			buf[len++] = ' ';
		memcpy(buf + len, w->s[i], w->len[i]);
		len += w->len[i];
	}
	free(buf);
}

static void alloc_pairs(struct pairs *p, const char *label, size_t n, int want_equal)
{
	p->label = label;
	p->want_equal = want_equal;
	p->a = xcalloc(n, sizeof(*p->a));
	p->b = xcalloc(n, sizeof(*p->b));
	p->alen = xcalloc(n, sizeof(*p->alen));
	p->blen = xcalloc(n, sizeof(*p->blen));
}

static void add_pair(struct pairs *p, const char *a, size_t alen, const char *b, size_t blen)
{
	p->a[p->n] = a;
	p->alen[p->n] = alen;
	p->b[p->n] = b;
	p->blen[p->n++] = blen;
}

/* ICU's full upper (or lower) case of s into out; its length or -1. */
static int32_t recase(const UCaseMap *csm, int upper, const char *s, size_t len, char *out,
		      int32_t cap)
{
	UErrorCode err = U_ZERO_ERROR;
	int32_t n = upper ? ucasemap_utf8ToUpper(csm, out, cap, s, (int32_t)len, &err)
			  : ucasemap_utf8ToLower(csm, out, cap, s, (int32_t)len, &err);

	return U_FAILURE(err) ? -1 : n;
}

/* A case variant of s that folds equal but differs in bytes: stored, or NULL. */
static const char *variant(const cf_encoding *enc, const UCaseMap *csm, const char *s,
			   size_t len, size_t max, size_t *vlen)
{
	static char buf[BENCH_OUT_MAX];

	for (int upper = 1; upper >= 0; upper--) {
		int32_t n = recase(csm, upper, s, len, buf, sizeof(buf));

		if (n < 0 || (size_t)n > max || ((size_t)n == len && !memcmp(buf, s, len)))
			continue;
		if (cf_casefold_equal(enc, s, len, buf, (size_t)n) != 1)
			return NULL;
		*vlen = (size_t)n;
		return store(buf, (size_t)n);
	}
	return NULL;
}

int corpus_pair(struct corpus *c)
{
	const struct names *w = &c->names;
	UErrorCode err = U_ZERO_ERROR;
	UCaseMap *csm = ucasemap_open("", 0, &err);
	static char out[BENCH_OUT_MAX];
	unsigned char *first = xcalloc(w->n, 1);
	size_t max = 0;
	cf_encoding enc;

	if (U_FAILURE(err) || cf_encoding_load(&enc, "utf8-12.1.0", 0)) {
		fprintf(stderr, "bench: cannot set up case mapping\n");
		return -1;
	}
	for (size_t i = 0; i < w->n; i++) {
		max = w->len[i] > max ? w->len[i] : max;
		first[i] = cf_casefold(&enc, w->s[i], w->len[i], out, sizeof(out)) > 0 ? (unsigned char)out[0] : 0;
	}
	/* Names stay names after recasing; long strings may grow a little (ß -> SS). */
	max = max <= NAME_MAX_BYTES ? NAME_MAX_BYTES : 2 * max;
	alloc_pairs(&c->variant, "equal, case variants", w->n, 1);
	alloc_pairs(&c->same, "equal, identical bytes", w->n, 1);
	alloc_pairs(&c->differ, "different first byte", w->n, 0);
	for (size_t i = 0; i < w->n; i++) {
		size_t vlen;
		const char *v = variant(&enc, csm, w->s[i], w->len[i], max, &vlen);

		if (v)
			add_pair(&c->variant, w->s[i], w->len[i], v, vlen);
		else
			c->no_variant++;
		add_pair(&c->same, w->s[i], w->len[i], store(w->s[i], w->len[i]), w->len[i]);
		/* A partner from the other half of the set whose fold starts differently. */
		for (size_t k = 0; k < w->n; k++) {
			size_t j = (i + w->n / 2 + k) % w->n;

			if (first[j] != first[i]) {
				add_pair(&c->differ, w->s[i], w->len[i], w->s[j], w->len[j]);
				break;
			}
		}
	}
	free(first);
	ucasemap_close(csm);
	return 0;
}

#include <stdio.h>
#include <string.h>

#include "casefold.h"
#include "check.h"

static void note(struct verdict *v, const char *s, size_t len)
{
	size_t o = 0;

	if (v->mismatches++)
		return;
	for (size_t i = 0; i < len && o + 4 < sizeof(v->example); i++)
		o += (size_t)snprintf(v->example + o, sizeof(v->example) - o, "%02x",
				      (unsigned char)s[i]);
}

static void check_fold(const struct impl *im, const struct names *w, struct verdict *v)
{
	static _Alignas(16) char got[BENCH_OUT_MAX];
	static char want[BENCH_OUT_MAX];
	cf_encoding enc;

	if (!im->ref_encoding || cf_encoding_load(&enc, im->ref_encoding, im->ref_flags))
		return;
	v->checked = 1;
	for (size_t i = 0; i < w->n; i++) {
		ssize_t g = im->fold(w->s[i], w->len[i], got, sizeof(got));
		ssize_t e = cf_casefold(&enc, w->s[i], w->len[i], want, sizeof(want));

		if (g < 0)
			v->errors++;
		else if (g != e || memcmp(got, want, (size_t)g))
			note(v, w->s[i], w->len[i]);
	}
}

static void check_hash(const struct impl *im, const struct names *w, struct verdict *v)
{
	if (!im->ref_hash)
		return;
	v->checked = 1;
	for (size_t i = 0; i < w->n; i++) {
		uint32_t g[2], e[2];

		if (im->hash(w->s[i], w->len[i], g) < 0)
			v->errors++;
		else if (im->ref_hash->hash(w->s[i], w->len[i], e) < 0 || g[0] != e[0] || g[1] != e[1])
			note(v, w->s[i], w->len[i]);
	}
}

static void check_cmp(const struct impl *im, const struct pairs *p, struct verdict *v)
{
	v->checked = 1;
	for (size_t i = 0; i < p->n; i++) {
		int r = im->cmp(p->a[i], p->alen[i], p->b[i], p->blen[i]);

		if (r < 0)
			v->errors++;
		else if ((r == 0) != p->want_equal)
			note(v, p->a[i], p->alen[i]);
	}
}

void check_impl(const struct impl *im, const struct input *in, struct verdict *v)
{
	memset(v, 0, sizeof(*v));
	if (im->fold)
		check_fold(im, in->names, v);
	else if (im->hash)
		check_hash(im, in->names, v);
	else
		check_cmp(im, in->pairs, v);
}

/*
 * The streaming normalizer: one byte of nfdi/nfdicf at a time, no buffer.
 *
 * This follows the kernel's algorithm step for step, because its output on
 * every input — malformed ones included — is an on-disk format.  Canonical
 * ordering is done by rescanning: when a non-starter appears, the cursor
 * remembers where the run of non-starters began (ss/sp/slen), makes one pass
 * to find the lowest combining class present, then one pass per class,
 * emitting the characters of that class, until a starter or the end of the
 * name closes the run.  Decompositions are read from the tables while the
 * position in the name waits in p.
 *
 * State:
 *   s      next byte to read: in the name, or in a mapping string if p != NULL
 *   p      where to resume in the name after the mapping string, or NULL
 *   len    bytes of the name left (mapping bytes do not count)
 *   ss, sp, slen   saved s, p, len at the start of the current run
 *   ccc    class being emitted: STOPPER outside a run, -1 on the first pass
 *   nccc   lowest class above ccc seen in this pass (the next to emit)
 */
#include <errno.h>
#include <stdint.h>

#include "cursor.h"
#include "encoding.h"
#include "hangul.h"
#include "tables.h"
#include "utf8.h"

#define STOPPER 0   /* class of starters; also "not in a run" */
#define MAXCCC 254  /* highest real combining class */
#define DECOMPOSE 255

/* What the cursor needs of one character: its age, and either its combining
 * class or DECOMPOSE with the string it becomes. */
struct leaf {
	int age;
	int ccc;
	const unsigned char *str;
};

static const unsigned char empty[1];

/* Look up the character at s; 0 if the bytes there are not a character. */
static int lookup(struct cfi_cursor *cur, const unsigned char *s, size_t len, struct leaf *lf)
{
	uint32_t c;

	if (!cf_utf8_decode(s, len, &c))
		return 0;
	struct cf_char ch = cf_char_lookup(c);
	lf->age = ch.age;
	lf->ccc = ch.ccc;
	if ((ch.flags & CF_F_IGNORABLE) && !cur->keep) {
		lf->ccc = DECOMPOSE;
		lf->str = empty;
	} else if (ch.flags & CF_F_HANGUL) {
		*cf_hangul_decompose(c, cur->hangul) = 0;
		lf->ccc = DECOMPOSE;
		lf->str = cur->hangul;
	} else if (cur->form == CF_NFDICF ? (ch.flags & CF_F_CF) : (ch.flags & CF_F_NFD)) {
		lf->ccc = DECOMPOSE;
		lf->str = cur->form == CF_NFDICF ? ch.cf : ch.nfd;
	}
	return 1;
}

int cfi_cursor_start(struct cfi_cursor *cur, const cf_encoding *enc, enum cf_form form,
		    const char *s, size_t len)
{
	cur->s = (const unsigned char *)s;
	cur->p = cur->ss = cur->sp = NULL;
	cur->len = len;
	cur->slen = 0;
	cur->ccc = cur->nccc = STOPPER;
	cur->age = enc->age;
	cur->form = (uint8_t)form;
	cur->kind = enc->kind;
	cur->keep = !!(enc->flags & CF_KEEP_IGNORABLES);
	/* A name may not begin in the middle of a character. */
	if (len > 0 && (cur->s[0] & 0xC0) == 0x80)
		return -EINVAL;
	return 0;
}

static int ascii_next(struct cfi_cursor *cur)
{
	unsigned char c;

	if (cur->len == 0 || !(c = *cur->s))
		return 0;
	if (c >= 0x80)
		return -EINVAL;
	cur->s++;
	cur->len--;
	if (cur->form == CF_NFDICF && c >= 'A' && c <= 'Z')
		c += 'a' - 'A';
	return c;
}

/* Advance past the character at s during a scan. */
static void skip_char(struct cfi_cursor *cur)
{
	size_t n = cf_utf8_clen(*cur->s);

	if (!cur->p)
		cur->len -= n;
	cur->s += n;
}

int cfi_cursor_next(struct cfi_cursor *cur)
{
	struct leaf lf;
	int ccc;

	if (cur->kind == CF_KIND_ASCII)
		return ascii_next(cur);
	for (;;) {
		/* End of a mapping string: back to the name. */
		if (cur->p && *cur->s == 0) {
			cur->s = cur->p;
			cur->p = NULL;
		}
		if (!cur->p && (cur->len == 0 || *cur->s == 0)) {
			if (cur->ccc == STOPPER)
				return 0;
			/* The end of the name closes a run like a starter. */
			ccc = STOPPER;
			goto mismatch;
		}
		if ((*cur->s & 0xC0) == 0x80) {
			/* Continuation bytes go out as they come, even stray ones. */
			if (!cur->p)
				cur->len--;
			return *cur->s++;
		}
		/* ASCII outside a run is a starter with no mapping but case. */
		if (!cur->p && cur->ccc == STOPPER && *cur->s < 0x80) {
			unsigned char c = *cur->s++;
			cur->len--;
			if (cur->form == CF_NFDICF && c >= 'A' && c <= 'Z')
				c += 'a' - 'A';
			return c;
		}

		if (!lookup(cur, cur->s, cur->p ? SIZE_MAX : cur->len, &lf))
			return -EINVAL;
		ccc = lf.ccc;
		if (lf.age > cur->age) {
			/* Too new for this version: an unassigned starter. */
			ccc = STOPPER;
		} else if (ccc == DECOMPOSE) {
			cur->len -= cf_utf8_clen(*cur->s);
			cur->p = cur->s + cf_utf8_clen(*cur->s);
			cur->s = lf.str;
			if (*cur->s == 0) {
				/* Removed (an ignorable): invisible outside a run,
				 * a starter inside one. */
				if (cur->ccc == STOPPER)
					continue;
				ccc = STOPPER;
				goto mismatch;
			}
			if (!lookup(cur, cur->s, SIZE_MAX, &lf))
				return -EINVAL;
			ccc = lf.ccc;
		}

		if (ccc != STOPPER && cur->ccc < ccc && ccc < cur->nccc)
			cur->nccc = (int16_t)ccc;
		if (ccc == cur->ccc) {
			if (!cur->p)
				cur->len--;
			return *cur->s++;
		}
mismatch:
		if (cur->nccc == STOPPER) {
			/* First non-starter of a run: remember where it began and
			 * make a first pass to find its lowest class. */
			cur->ccc = -1;
			cur->nccc = (int16_t)ccc;
			cur->sp = cur->p;
			cur->ss = cur->s;
			cur->slen = cur->len;
			skip_char(cur);
		} else if (ccc != STOPPER) {
			skip_char(cur);
		} else if (cur->nccc != MAXCCC + 1) {
			/* End of the run: emit the next class from its start. */
			cur->ccc = cur->nccc;
			cur->nccc = MAXCCC + 1;
			cur->s = cur->ss;
			cur->p = cur->sp;
			cur->len = cur->slen;
		} else {
			/* Every class emitted: go on after the run. */
			cur->ccc = cur->nccc = STOPPER;
			cur->sp = cur->ss = NULL;
			cur->slen = 0;
		}
	}
}

/* A cf_cursor is storage for a struct cfi_cursor: callers allocate it, only
 * the library reads it, and only its size and alignment are ABI. */
_Static_assert(sizeof(struct cfi_cursor) <= sizeof(cf_cursor) &&
		       _Alignof(struct cfi_cursor) <= _Alignof(cf_cursor),
	       "struct cfi_cursor outgrew cf_cursor: an ABI change (casefold.h)");

int cf_cursor_init(cf_cursor *cur, const cf_encoding *enc, enum cf_form form,
		   const char *s, size_t len)
{
	if (!cur || !enc || (!s && len) || (form != CF_NFDI && form != CF_NFDICF))
		return -EINVAL;
	return cfi_cursor_start((struct cfi_cursor *)cur, enc, form, s ? s : "", len);
}

int cf_cursor_next(cf_cursor *cur)
{
	return cfi_cursor_next((struct cfi_cursor *)cur);
}

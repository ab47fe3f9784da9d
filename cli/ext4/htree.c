/*
 * Reading an htree index.  Layout (little-endian): block 0 holds the "."
 * and ".." entries, then dx_root_info at byte 24 (hash_version at 28,
 * info_length at 29, indirect_levels at 30), then the entries; an interior
 * node holds an empty 8-byte entry, then its entries.  The entries are
 * 8-byte {hash, block} pairs, where the first one's hash is replaced by
 * {limit, count}: it covers everything below the second one's hash.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ext4/htree.h"

#define ROOT_INFO 24
#define NODE_ENTRIES 8
#define BLOCK_MASK 0x0fffffffu /* the top bits of a block number are reserved */

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

struct walk {
	struct cli_htree *t;
	size_t bs, cap;
	cli_htree_read_fn *read;
	void *ctx;
	char *err;
	size_t errlen;
};

static int add_leaf(struct walk *w, uint32_t lblk, uint64_t lo, uint64_t hi)
{
	if (w->t->nleaves == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		struct cli_htree_leaf *l = realloc(w->t->leaves, cap * sizeof(*l));

		if (!l) {
			snprintf(w->err, w->errlen, "out of memory");
			return -1;
		}
		w->t->leaves = l;
		w->cap = cap;
	}
	w->t->leaves[w->t->nleaves++] = (struct cli_htree_leaf){ lblk, lo, hi };
	return 0;
}

/* The entries of one index block at e, covering [lo, hi); levels below it. */
static int walk(struct walk *w, const unsigned char *block, size_t off, int levels,
		uint64_t lo, uint64_t hi)
{
	const unsigned char *e = block + off;
	unsigned limit = e[0] | e[1] << 8, count = e[2] | e[3] << 8;
	unsigned char *child = NULL;
	int r = 0;

	if (count == 0 || count > limit || off + 8 * (size_t)limit > w->bs) {
		snprintf(w->err, w->errlen, "index block with count %u, limit %u", count, limit);
		return -1;
	}
	if (levels > 0 && !(child = malloc(w->bs))) {
		snprintf(w->err, w->errlen, "out of memory");
		return -1;
	}
	for (unsigned i = 0; i < count && r == 0; i++) {
		uint32_t lblk = le32(e + 8 * i + 4) & BLOCK_MASK;
		uint64_t from = i ? le32(e + 8 * i) : lo;
		uint64_t to = i + 1 < count ? le32(e + 8 * (i + 1)) : hi;

		if (from > to || from < lo || to > hi) {
			snprintf(w->err, w->errlen, "index hashes out of order at block %u", lblk);
			r = -1;
		} else if (levels == 0) {
			r = add_leaf(w, lblk, from, to);
		} else if (w->read(w->ctx, lblk, child) < 0) {
			snprintf(w->err, w->errlen, "cannot read index block %u", lblk);
			r = -1;
		} else {
			r = walk(w, child, NODE_ENTRIES, levels - 1, from, to);
		}
	}
	free(child);
	return r;
}

static int by_lblk(const void *a, const void *b)
{
	const struct cli_htree_leaf *x = a, *y = b;

	return (x->lblk > y->lblk) - (x->lblk < y->lblk);
}

int cli_htree_read(struct cli_htree *t, const unsigned char *root, size_t bs, int max_depth,
		   cli_htree_read_fn *read, void *ctx, char *err, size_t errlen)
{
	struct walk w = { t, bs, 0, read, ctx, err, errlen };
	unsigned info_length = root[ROOT_INFO + 5], levels = root[ROOT_INFO + 6];

	*t = (struct cli_htree){ .hash_version = root[ROOT_INFO + 4] };
	if (info_length != 8 || levels >= (unsigned)max_depth) {
		snprintf(err, errlen, "index root with info length %u, %u levels", info_length,
			 levels + 1);
		return -1;
	}
	if (walk(&w, root, ROOT_INFO + info_length, (int)levels, 0, (uint64_t)1 << 32) < 0) {
		free(t->leaves);
		t->leaves = NULL;
		t->nleaves = 0;
		return -1;
	}
	qsort(t->leaves, t->nleaves, sizeof(*t->leaves), by_lblk);
	return 0;
}

const struct cli_htree_leaf *cli_htree_leaf(const struct cli_htree *t, uint32_t lblk)
{
	struct cli_htree_leaf key = { .lblk = lblk };

	return t->nleaves ? bsearch(&key, t->leaves, t->nleaves, sizeof(key), by_lblk) : NULL;
}

int cli_htree_fits(const struct cli_htree_leaf *leaf, uint32_t h)
{
	/* A bound with the low bit set continues a run of equal hashes across
	 * blocks: the lookup of that hash searches both sides of it. */
	uint64_t lo = leaf->lo & ~(uint64_t)1, hi = leaf->hi & ~(uint64_t)1;

	return h >= lo && (h < hi || (h == hi && (leaf->hi & 1)));
}

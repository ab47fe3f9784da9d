/*
 * An ext4 htree directory index, read into the hash range of each leaf
 * block: where a hashed lookup of a name goes to find it.
 */
#ifndef CLI_EXT4_HTREE_H
#define CLI_EXT4_HTREE_H

#include <stddef.h>
#include <stdint.h>

/*
 * A leaf block and the index hashes around it: names with a major hash H
 * where lo <= H < hi belong in it.  Both bounds are index hashes, whose low
 * bit says that a run of equal hashes continues from the previous block;
 * hi is 2^32 for the last block.
 */
struct cli_htree_leaf {
	uint32_t lblk;   /* logical block in the directory */
	uint64_t lo, hi;
};

/* Read logical block lblk of the directory into buf.  0, or -1. */
typedef int cli_htree_read_fn(void *ctx, uint32_t lblk, unsigned char *buf);

struct cli_htree {
	unsigned hash_version;         /* as dx_root records it */
	struct cli_htree_leaf *leaves; /* sorted by lblk; free() them */
	size_t nleaves;
};

/*
 * Read the index whose root is block 0 (root, bs bytes).  max_depth is the
 * deepest index the file system allows (2 levels, 3 with large_dir).
 * Returns 0, or -1 with a description of the damage in err.
 */
int cli_htree_read(struct cli_htree *t, const unsigned char *root, size_t bs, int max_depth,
		   cli_htree_read_fn *read, void *ctx, char *err, size_t errlen);

/* The leaf range of block lblk, or NULL if the index does not lead there. */
const struct cli_htree_leaf *cli_htree_leaf(const struct cli_htree *t, uint32_t lblk);

/* Whether a lookup of major hash h searches this leaf. */
int cli_htree_fits(const struct cli_htree_leaf *leaf, uint32_t h);

#endif

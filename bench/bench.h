/*
 * The library benchmark's shared types: input sets, and one "implementation"
 * per (library, operation) so that libcasefold, its peers and the bounds all
 * run through the same timing loop with the same indirect call.
 */
#ifndef CF_BENCH_H
#define CF_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Output buffers hold the fold of a 4 KiB string (at most 3 bytes out per byte in, with room). */
#define BENCH_OUT_MAX (64 * 1024)

/* A set of names (or long strings), each a (pointer, length). */
struct names {
	const char *label;
	size_t n;
	const char **s;
	size_t *len;
	size_t bytes; /* sum of len */
};

/* Pairs to compare; want_equal is the answer every implementation should give. */
struct pairs {
	const char *label;
	size_t n;
	const char **a, **b;
	size_t *alen, *blen;
	int want_equal;
};

/* Fold s into out (capacity cap, int32-aligned); the output length or < 0. */
typedef ssize_t (*fold_fn)(const char *s, size_t len, char *out, size_t cap);
/* 0 if a and b match, > 0 if they differ, < 0 on error. */
typedef int (*cmp_fn)(const char *a, size_t alen, const char *b, size_t blen);
/* Hash s into h[0..1]; 0 or < 0 on error. */
typedef int (*hash_fn)(const char *s, size_t len, uint32_t h[2]);

enum role {
	ROLE_SELF,    /* libcasefold: the row every ratio divides by */
	ROLE_PEER,    /* another library doing the same job */
	ROLE_PARTIAL, /* a peer doing less (e.g. case only, no normalization) */
	ROLE_BOUND,   /* what no folding can beat: memcpy, memcmp, ASCII */
};

struct impl {
	const char *name;
	enum role role;
	fold_fn fold; /* exactly one of fold, cmp, hash is set */
	cmp_fn cmp;
	hash_fn hash;
	/*
	 * Checks of equal output.  fold: libcasefold's encoding (and flags) whose
	 * output this implementation must reproduce byte for byte; hash: the
	 * implementation whose hash values it must reproduce.  NULL: no check.
	 * Compares are checked against the pair set's known answer.  A bound that
	 * fails its check on an input set is not shown for that set.
	 */
	const char *ref_encoding;
	unsigned ref_flags;
	const struct impl *ref_hash;
};

/* Each peer's setup; 0 or -1 with a message on stderr. */
int self_init(void);
int icu_init(void);
int e2_init(void);

extern const struct impl self_fold, self_cmp, self_match, self_hash, self_dirhash,
	self_dirhash_raw;
extern const struct impl icu_fold8, icu_fold16, icu_cmp, icu_casecmp;
extern const struct impl u8p_fold, u8p_cmp;
extern const struct impl uni_fold, uni_cmp;
extern const struct impl e2_fold, e2_cmp, e2_dirhash, e2_dirhash_raw;
extern const struct impl bound_memcpy, bound_tolower, bound_memcmp, bound_asciicmp;

#endif

/*
 * libcasefold — Linux fs/unicode name folding and comparison, in user space.
 *
 * Everything the library exports is declared here (and in casefold_ext4.h),
 * marked CF_API, with the prefix cf_.  The library's private functions that
 * its files share are named cfi_; static inline helpers and the generated
 * tables keep cf_ but live in lib/ only, hidden from the shared library.
 *
 * Two normalization forms, exactly as the kernel defines them:
 *   nfdi    canonical decomposition (NFD; Hangul decomposed algorithmically;
 *           canonical ordering) with every Default_Ignorable_Code_Point removed;
 *   nfdicf  nfdi plus full case folding (CaseFolding.txt statuses C and F).
 *
 * Encodings are named "utf8-X.Y.Z" (or "X.Y.Z", or "utf8" = utf8-12.1.0, the
 * only encoding ext4 knows on disk) for every Unicode version from 1.1.0 to
 * the latest, and "ascii".  Version V treats characters assigned after V as
 * unassigned: they pass through unchanged, as in the kernel.
 *
 * Return values are negative errno codes:
 *   -EINVAL        the input is not valid for the encoding (or bad argument);
 *   -ENAMETOOLONG  the caller's buffer is too small for the result;
 *   -ENOENT        an encoding name this build does not know.
 *
 * Byte-for-byte compatibility with the kernel (utf8-12.1.0, ignorables
 * stripped) includes its treatment of malformed input.  The quirks are:
 *   - A NUL byte ends the name, whatever length was given: "ab\0cd" folds,
 *     compares, hashes and validates as "ab".
 *   - A name may not begin with a continuation byte (0x80-0xBF): -EINVAL.
 *   - A continuation byte elsewhere that does not belong to a character is
 *     passed through unchanged by fold/normalize/compare/hash (the kernel's
 *     cursor does so), while cf_validate rejects it.  Inside a run of
 *     combining marks it comes out once per reordering pass: U+00E9 0xA9
 *     folds to "e" 0xA9 U+0301 0xA9.
 *   - Any other ill-formed sequence (overlong, surrogate, beyond U+10FFFF,
 *     truncated) is -EINVAL.  Unassigned code points and noncharacters are
 *     valid.
 *   - A removed Default_Ignorable still ends a run of combining marks: they
 *     are ordered on each side of it separately, so folding is not
 *     idempotent there (a U+0301 U+200D U+0316 -> a U+0301 U+0316, whose
 *     own fold is a U+0316 U+0301).
 *   - Canonical ordering happens after folding: a character's folded form
 *     sorts by its own combining class, so "A U+0345 U+0301" folds to
 *     "a U+03B9 U+0301" (Unicode's NFD(fold(NFD(x))) would give
 *     "a U+0301 U+03B9").
 *
 * All functions are thread-safe, use no global mutable state and never
 * allocate.  Inputs are length-limited (ptr, len); outputs are not
 * NUL-terminated.
 */
#ifndef CASEFOLD_H
#define CASEFOLD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * API version of this header: MINOR grows when functions, flags or
 * encodings are added, PATCH for fixes; 1.0.0 will be the first API kept
 * stable (semantic versioning from then on).
 *
 * ABI policy.  The shared library is libcasefold.so.0 (SOMAJOR in the
 * Makefile) and every symbol carries the version node CASEFOLD_0
 * (lib/libcasefold.map).  The soname changes — to libcasefold.so.1 at 1.0,
 * later whenever it must — only when a program built against an earlier
 * release of the same soname could break:
 *   - an exported function removed, or its arguments, return values or
 *     meaning changed (including the bytes it produces for any input);
 *   - a constant, flag or enum value renumbered;
 *   - the size or alignment of cf_encoding or cf_cursor changed;
 *   - the hash values of cf_casefold_hash / cf_name_hash changed.
 * Adding functions, flags, constants or encodings does not change it.  A
 * renamed function therefore stays exported under its old name, declared
 * at the end of this header and marked deprecated, until the next soname
 * change drops it.  tests/install/install.sh checks the soname and that the
 * library exports exactly the CF_API functions of these headers.
 */
#define CF_VERSION_MAJOR 0
#define CF_VERSION_MINOR 2
#define CF_VERSION_PATCH 0
#define CF_VERSION_STRING "0.2.0"

#if defined(CF_BUILDING_LIBRARY) && defined(__GNUC__)
#define CF_API __attribute__((visibility("default")))
#else
#define CF_API
#endif

/* Uses of a deprecated name warn, naming its replacement, unless
 * CF_ALLOW_DEPRECATED is defined (for code not migrated yet). */
#if defined(__GNUC__) && !defined(CF_ALLOW_DEPRECATED)
#define CF_DEPRECATED(replacement) __attribute__((deprecated("use " replacement)))
#else
#define CF_DEPRECATED(replacement)
#endif

/*
 * Room for the result of any valid name of up to 255 bytes (no character
 * grows more than threefold).  Malformed names can grow more: stray
 * continuation bytes inside a run of combining marks repeat once per
 * reordering pass (see the quirks above).
 */
#define CF_FOLD_MAX 1024

/* ---- Encodings ---------------------------------------------------------- */

/* Flags for cf_encoding_load(). */
#define CF_STRICT           0x1u /* unfoldable names are errors, not opaque bytes */
#define CF_KEEP_IGNORABLES  0x2u /* Default_Ignorable code points are ordinary */

/* A loaded encoding: a small value, cheap to copy, never freed. */
typedef struct cf_encoding {
	uint8_t kind;   /* private: utf8 or ascii */
	uint8_t age;    /* private: index of the Unicode version */
	uint16_t flags; /* CF_STRICT | CF_KEEP_IGNORABLES */
} cf_encoding;

/*
 * Load the encoding called name ("utf8-12.1.0", "12.1.0", "utf8", "ascii", ...)
 * with the given flags.  Returns 0, -ENOENT for an unknown name or -EINVAL
 * for unknown flags.
 */
CF_API int cf_encoding_load(cf_encoding *enc, const char *name, unsigned flags);

/* Canonical name of a loaded encoding: "utf8-12.1.0" or "ascii". */
CF_API const char *cf_encoding_name(const cf_encoding *enc);

/* Unicode version as 0xMMmmrr (0x0c0100 for 12.1.0); 0 for ascii. */
CF_API uint32_t cf_encoding_unicode_version(const cf_encoding *enc);

/* 1 if name is an encoding this build supports, else 0. */
CF_API int cf_encoding_is_supported(const char *name);

/* Canonical name of the newest supported UTF-8 encoding. */
CF_API const char *cf_encoding_latest(void);

/*
 * The i-th supported encoding, newest Unicode version first, "ascii" last;
 * NULL when i is past the end.
 */
CF_API const char *cf_encoding_list(size_t i);

/* Unicode version of the tables compiled into the library ("17.0.0"). */
CF_API const char *cf_unicode_data_version(void);

/* ---- Whole-name operations --------------------------------------------- */

/* 0 if s is valid for the encoding, else -EINVAL (see the quirks above). */
CF_API int cf_validate(const cf_encoding *enc, const char *s, size_t len);

/*
 * Write nfdi(s) (cf_normalize) or nfdicf(s) (cf_casefold) into dst.
 * Returns its length, -EINVAL or -ENAMETOOLONG (dst[0..dlen) may then hold a
 * partial result).  dlen == length of the result is enough.
 */
CF_API ssize_t cf_normalize(const cf_encoding *enc, const char *s, size_t len,
			    char *dst, size_t dlen);
CF_API ssize_t cf_casefold(const cf_encoding *enc, const char *s, size_t len,
			   char *dst, size_t dlen);

/*
 * Whether nfdi (cf_normalize_equal) or nfdicf (cf_casefold_equal) of two
 * names are equal, by streaming, stopping at the first difference.  Like
 * cf_name_match: 1 equal, 0 different, -EINVAL if either is invalid before
 * a difference was found.  (Equality only: no directory sorts names by
 * these forms, so an order would have no use.)
 */
CF_API int cf_normalize_equal(const cf_encoding *enc, const char *a, size_t alen,
			      const char *b, size_t blen);
CF_API int cf_casefold_equal(const cf_encoding *enc, const char *a, size_t alen,
			     const char *b, size_t blen);

/* As cf_casefold_equal, where folded is already the output of cf_casefold. */
CF_API int cf_casefold_equal_folded(const cf_encoding *enc, const char *folded,
				    size_t flen, const char *b, size_t blen);

/*
 * 64-bit hash of nfdicf(s) computed without a buffer: names that compare
 * equal under cf_casefold_equal hash equal.  Returns 0 or -EINVAL.  The hash is
 * SipHash-2-4 of the folded bytes, with the given 128-bit key (the unkeyed
 * call uses a zero key); it will not change within a major version.  Use a
 * secret random key where an adversary chooses the names (hash tables).
 */
CF_API int cf_casefold_hash(const cf_encoding *enc, const char *s, size_t len,
			    uint64_t *hash);
CF_API int cf_casefold_hash_keyed(const cf_encoding *enc, const uint64_t key[2],
				  const char *s, size_t len, uint64_t *hash);

/*
 * The file-name matching rule of a case-insensitive directory (the kernel's
 * generic_ci_match): identical bytes match; otherwise the names match when
 * their nfdicf forms are equal.  A name the cursor cannot read matches only
 * itself, byte for byte.  With CF_STRICT, a name that cannot be folded is an
 * error, as the kernel refuses to look it up; a name whose only fault is a
 * stray continuation byte folds, so it matches as usual (the kernel refuses
 * to create it: check cf_validate before creating).
 * Returns 1 match, 0 no match, -EINVAL (strict and a name cannot be folded).
 */
CF_API int cf_name_match(const cf_encoding *enc, const char *a, size_t alen,
			 const char *b, size_t blen);

/*
 * Hash consistent with cf_name_match: names that match hash equal.  Valid
 * names hash as cf_casefold_hash; names that cannot be folded hash their raw
 * bytes.  Returns 0, or -EINVAL where cf_name_match would.
 */
CF_API int cf_name_hash(const cf_encoding *enc, const char *s, size_t len,
			uint64_t *hash);
CF_API int cf_name_hash_keyed(const cf_encoding *enc, const uint64_t key[2],
			      const char *s, size_t len, uint64_t *hash);

/* ---- Streaming cursor --------------------------------------------------- */

enum cf_form {
	CF_NFDI = 0,
	CF_NFDICF = 1,
};

/*
 * State of a streaming normalization: storage the caller provides (on the
 * stack, say) and only the library reads.  Its size and alignment are ABI;
 * what the library keeps in it is not, and may change in any release.
 */
typedef struct cf_cursor {
	const void *private_ptr[5];
	size_t private_size[2];
	int16_t private_short[2];
	uint8_t private_byte[16];
} cf_cursor;

/* Start normalizing s.  Returns 0, or -EINVAL if s starts with a
 * continuation byte. */
CF_API int cf_cursor_init(cf_cursor *cur, const cf_encoding *enc,
			  enum cf_form form, const char *s, size_t len);

/* Next byte of the result (1..255), 0 at the end, or -EINVAL. */
CF_API int cf_cursor_next(cf_cursor *cur);

/* Message for a negative return value of this library. */
CF_API const char *cf_strerror(int err);

/* ---- Deprecated: the names of 0.1, until the soname changes ------------ */

/* cf_encoding_load. */
CF_API int cf_encoding_init(cf_encoding *enc, const char *name, unsigned flags)
	CF_DEPRECATED("cf_encoding_load");

/* cf_normalize_equal, cf_casefold_equal and cf_casefold_equal_folded, but
 * 0 equal, 1 different, -EINVAL. */
CF_API int cf_strcmp(const cf_encoding *enc, const char *a, size_t alen,
		     const char *b, size_t blen) CF_DEPRECATED("cf_normalize_equal");
CF_API int cf_strcasecmp(const cf_encoding *enc, const char *a, size_t alen,
			 const char *b, size_t blen) CF_DEPRECATED("cf_casefold_equal");
CF_API int cf_strcasecmp_folded(const cf_encoding *enc, const char *folded,
				size_t flen, const char *b, size_t blen)
	CF_DEPRECATED("cf_casefold_equal_folded");

#ifdef __cplusplus
}
#endif

#endif /* CASEFOLD_H */

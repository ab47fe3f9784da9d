/*
 * libcasefold's ext4 on-disk helpers: the constants of ext4's casefold
 * feature and its directory hashes, byte-for-byte as Linux computes them.
 * Part of libcasefold; everything here is prefixed cf_ext4_.
 */
#ifndef CASEFOLD_EXT4_H
#define CASEFOLD_EXT4_H

#include <stdint.h>

#include "casefold.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CF_EXT4_FEATURE_INCOMPAT_CASEFOLD 0x20000   /* s_feature_incompat */
#define CF_EXT4_CASEFOLD_FL 0x40000000              /* i_flags, FS_IOC_GETFLAGS */
#define CF_EXT4_SB_OFFSET 1024                      /* superblock in the device */
#define CF_EXT4_SB_ENCODING 0x27C                   /* __le16 s_encoding */
#define CF_EXT4_SB_ENCODING_FLAGS 0x27E             /* __le16 s_encoding_flags */
#define CF_EXT4_ENC_UTF8_12_1 1                     /* the one encoding magic */
#define CF_EXT4_ENC_STRICT_FL 0x1                   /* reject invalid names */
#define CF_EXT4_ENC_NO_COMPAT_FALLBACK_FL 0x2       /* Linux 6.14+ */

/* The other superblock fields a casefold-aware reader needs (offsets in
 * the 1024-byte superblock; every field little-endian). */
#define CF_EXT4_SB_SIZE 1024
#define CF_EXT4_SB_MAGIC 0x38                       /* __le16 s_magic */
#define CF_EXT4_SUPER_MAGIC 0xEF53
#define CF_EXT4_SB_FEATURE_COMPAT 0x5C              /* __le32 */
#define CF_EXT4_SB_FEATURE_INCOMPAT 0x60            /* __le32 */
#define CF_EXT4_SB_FEATURE_RO_COMPAT 0x64           /* __le32 */
#define CF_EXT4_SB_HASH_SEED 0xEC                   /* __u8[16] s_hash_seed */
#define CF_EXT4_SB_DEF_HASH_VERSION 0xFC            /* __u8 s_def_hash_version */
#define CF_EXT4_SB_FLAGS 0x160                      /* __le32 s_flags */
#define CF_EXT4_SB_CHECKSUM 0x3FC                   /* __le32 crc32c of the rest */
#define CF_EXT4_FEATURE_COMPAT_DIR_INDEX 0x20
#define CF_EXT4_FEATURE_RO_COMPAT_METADATA_CSUM 0x400
#define CF_EXT4_FLAGS_SIGNED_HASH 0x1               /* s_flags: hashes use signed char */
#define CF_EXT4_FLAGS_UNSIGNED_HASH 0x2             /* s_flags: ... unsigned char */
#define CF_EXT4_INDEX_FL 0x1000                     /* i_flags: htree directory */

/* Directory hash algorithms (s_def_hash_version / dx_root hash_version). */
enum cf_ext4_hash {
	CF_EXT4_HASH_LEGACY = 0,
	CF_EXT4_HASH_HALF_MD4 = 1,
	CF_EXT4_HASH_TEA = 2,
	CF_EXT4_HASH_LEGACY_UNSIGNED = 3,
	CF_EXT4_HASH_HALF_MD4_UNSIGNED = 4,
	CF_EXT4_HASH_TEA_UNSIGNED = 5,
};

/*
 * The ext4 directory hash of a name.  enc is the file system's encoding
 * when the name lives in a casefolded directory, NULL otherwise: then its
 * nfdicf form is hashed, or — as Linux does for a name it cannot fold
 * (invalid UTF-8 in a non-strict filesystem) — its raw bytes.  (e2fsprogs
 * 1.47's ext2fs_dirhash2 fails with -ENAMETOOLONG there instead.)  seed is
 * the superblock's s_hash_seed as four host-order words (NULL or all zero:
 * the default seed).  Returns 0, or -EINVAL for an unknown algorithm.
 */
CF_API int cf_ext4_name_hash(const cf_encoding *enc, enum cf_ext4_hash alg,
			     const uint32_t seed[4], const char *name, size_t len,
			     uint32_t *major, uint32_t *minor);

/*
 * The seed cf_ext4_name_hash takes, from the 16 bytes of s_hash_seed (also
 * the UUID that dumpe2fs prints as "Directory Hash Seed"): Linux reads them
 * as four little-endian words, whatever the host's byte order.
 */
CF_API void cf_ext4_hash_seed(const unsigned char bytes[16], uint32_t seed[4]);

/*
 * Map a superblock's s_encoding and s_encoding_flags to a loaded encoding
 * (0, or -ENOENT for a magic the kernel would refuse to mount), and back
 * (0, or -ENOENT for an encoding ext4 cannot record).
 */
CF_API int cf_ext4_encoding_load(cf_encoding *enc, uint16_t magic, uint16_t flags);
CF_API int cf_ext4_encoding_magic(const cf_encoding *enc, uint16_t *magic, uint16_t *flags);

/* Deprecated (casefold.h: ABI policy): cf_ext4_name_hash with the encoding
 * fifth, as 0.1 had it. */
CF_API int cf_ext4_dirhash(enum cf_ext4_hash alg, const uint32_t seed[4], const char *name,
			   size_t len, const cf_encoding *enc, uint32_t *major, uint32_t *minor)
	CF_DEPRECATED("cf_ext4_name_hash");

#ifdef __cplusplus
}
#endif

#endif /* CASEFOLD_EXT4_H */

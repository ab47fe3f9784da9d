/*
 * The ext4 superblock as the casefold tool reads it (no libext2fs: a
 * superblock is 1024 bytes at offset 1024), and the names ext4 tools give
 * to its hash algorithms and seeds.
 */
#ifndef CLI_EXT4_SB_H
#define CLI_EXT4_SB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "casefold_ext4.h"

/* The fields ext4 info reports, in host order. */
struct cli_ext4_sb {
	uint32_t feature_compat, feature_incompat, feature_ro_compat;
	uint32_t flags;             /* s_flags: signed or unsigned hashes */
	uint16_t encoding;          /* s_encoding magic, 0 if none */
	uint16_t encoding_flags;
	uint8_t def_hash_version;   /* enum cf_ext4_hash, 6 = siphash */
	unsigned char hash_seed[16];
};

/*
 * Read the superblock of an image or device.  Returns 0, or -1 after
 * reporting why (unreadable, truncated, no ext4 magic, bad checksum).
 */
int cli_ext4_sb_read(const char *path, struct cli_ext4_sb *sb);

/* "half_md4" for 1, as dumpe2fs and debugfs name them; NULL if unknown. */
const char *cli_ext4_hash_name(unsigned version);

/* The version named name ("tea", "half_md4_unsigned", ...), or -1. */
int cli_ext4_hash_parse(const char *name);

/* A UUID's 16 bytes from its 36-character text form (as libuuid's
 * uuid_parse accepts it).  Returns 0, or -1 if s is not one. */
int cli_uuid_parse(const char *s, unsigned char bytes[16]);

/* The 36-character text form, lowercase, into buf (37 bytes). */
void cli_uuid_format(const unsigned char bytes[16], char buf[37]);

#endif

/* Reading an ext4 superblock directly, with the checks that tell a
 * truncated or corrupt image from a healthy one. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "ext4/sb.h"

#define SB_LOG_BLOCK_SIZE 0x18 /* __le32: block size is 1024 << this */

static const char *const hash_names[] = {
	"legacy", "half_md4", "tea", "legacy_unsigned", "half_md4_unsigned", "tea_unsigned",
	"siphash",
};
#define NHASHES (sizeof(hash_names) / sizeof(hash_names[0]))

const char *cli_ext4_hash_name(unsigned version)
{
	return version < NHASHES ? hash_names[version] : NULL;
}

int cli_ext4_hash_parse(const char *name)
{
	for (size_t i = 0; i < NHASHES; i++)
		if (strcmp(name, hash_names[i]) == 0)
			return (int)i;
	return -1;
}

static uint16_t le16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* CRC-32C as ext4's metadata_csum uses it: seed ~0, no final inversion.
 * Bitwise: one superblock per run does not need a table. */
static uint32_t crc32c(uint32_t crc, const unsigned char *p, size_t len)
{
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82F63B78u & -(crc & 1));
	}
	return crc;
}

/* 0, or -1 after saying what is wrong with the raw superblock. */
static int check(const char *path, const unsigned char *raw)
{
	uint32_t log_block = le32(raw + SB_LOG_BLOCK_SIZE);

	if (le16(raw + CF_EXT4_SB_MAGIC) != CF_EXT4_SUPER_MAGIC) {
		cli_error("%s: not an ext2/ext3/ext4 file system (no magic 0xEF53 at byte %d)",
			  path, CF_EXT4_SB_OFFSET + CF_EXT4_SB_MAGIC);
		return -1;
	}
	/* Linux mounts blocks of 1 KiB to 64 KiB. */
	if (log_block > 6) {
		cli_error("%s: corrupt superblock: block size 1024 << %u", path, log_block);
		return -1;
	}
	if (le32(raw + CF_EXT4_SB_FEATURE_RO_COMPAT) & CF_EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) {
		uint32_t want = le32(raw + CF_EXT4_SB_CHECKSUM);
		uint32_t got = crc32c(~0u, raw, CF_EXT4_SB_CHECKSUM);

		if (got != want) {
			cli_error("%s: corrupt superblock: checksum 0x%08x, computed 0x%08x",
				  path, want, got);
			return -1;
		}
	}
	return 0;
}

int cli_ext4_sb_read(const char *path, struct cli_ext4_sb *sb)
{
	unsigned char raw[CF_EXT4_SB_SIZE];
	ssize_t n = 0, got;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		cli_error("%s: %s", path, strerror(errno));
		return -1;
	}
	/* A device may return the superblock in pieces. */
	while (n < (ssize_t)sizeof(raw) &&
	       (got = pread(fd, raw + n, sizeof(raw) - (size_t)n, CF_EXT4_SB_OFFSET + n)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			cli_error("%s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		n += got;
	}
	close(fd);
	if (n < (ssize_t)sizeof(raw)) {
		cli_error("%s: truncated: %zd of the superblock's %d bytes at offset %d",
			  path, n, CF_EXT4_SB_SIZE, CF_EXT4_SB_OFFSET);
		return -1;
	}
	if (check(path, raw) < 0)
		return -1;
	sb->feature_compat = le32(raw + CF_EXT4_SB_FEATURE_COMPAT);
	sb->feature_incompat = le32(raw + CF_EXT4_SB_FEATURE_INCOMPAT);
	sb->feature_ro_compat = le32(raw + CF_EXT4_SB_FEATURE_RO_COMPAT);
	sb->flags = le32(raw + CF_EXT4_SB_FLAGS);
	sb->encoding = le16(raw + CF_EXT4_SB_ENCODING);
	sb->encoding_flags = le16(raw + CF_EXT4_SB_ENCODING_FLAGS);
	sb->def_hash_version = raw[CF_EXT4_SB_DEF_HASH_VERSION];
	memcpy(sb->hash_seed, raw + CF_EXT4_SB_HASH_SEED, sizeof(sb->hash_seed));
	return 0;
}

/* Dashes after bytes 4, 6, 8 and 10: 8-4-4-4-12 hex digits. */
static int dash_after(int i) { return i == 4 || i == 6 || i == 8 || i == 10; }

int cli_uuid_parse(const char *s, unsigned char bytes[16])
{
	if (strlen(s) != 36)
		return -1;
	for (int i = 0; i < 16; i++) {
		unsigned v;

		if (dash_after(i) && *s++ != '-')
			return -1;
		if (!isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1]) ||
		    sscanf(s, "%2x", &v) != 1)
			return -1;
		bytes[i] = (unsigned char)v;
		s += 2;
	}
	return 0;
}

void cli_uuid_format(const unsigned char bytes[16], char buf[37])
{
	char *p = buf;

	for (int i = 0; i < 16; i++) {
		if (dash_after(i))
			*p++ = '-';
		p += sprintf(p, "%02x", bytes[i]);
	}
}

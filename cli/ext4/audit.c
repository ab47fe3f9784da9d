/*
 * ext4 audit: a read-only walk of an image with libext2fs.  Every inode is
 * scanned for casefolded directories; each is read block by block (so that
 * an htree entry's block is known) and checked with the library's matching
 * rule and ext4 hash.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ext2fs/ext2fs.h>
#include <et/com_err.h>

#include "diag.h"
#include "ext4/ext4.h"
#include "ext4/htree.h"
#include "ext4/report.h"

struct entry {
	size_t off, len;  /* of the name in the audit's arena */
	uint32_t ino;
	uint32_t lblk;    /* directory block holding it */
	uint64_t key;     /* cf_name_hash: equal for names that match */
};

struct audit {
	ext2_filsys fs;
	struct cli_ext4_report report;
	cf_encoding enc;      /* the file system's, not strict: the kernel's matching */
	cf_encoding other;    /* the same with the other ignorable policy */
	bool strict;          /* the file system refuses invalid names */
	bool casefold;        /* the superblock has the feature */
	uint32_t seed[4];
	int hash_unsigned;    /* 3 if the superblock says unsigned hashes */
	size_t dirs, names, encrypted;
	bool tty;             /* a progress line on standard error */
	unsigned shown;       /* percentage on it; ~0u: none shown */
	/* The directory being read, reused from one to the next. */
	struct cli_ext4_report_dir dir;
	char *path;
	unsigned char *block;
	char *arena;
	size_t arena_len, arena_cap;
	struct entry *entries;
	size_t nentries, entries_cap;
};

/* p grown to hold want items of size sz; exits on failure like an allocator. */
static void *grow(void *p, size_t *cap, size_t want, size_t sz)
{
	if (want <= *cap)
		return p;
	while (*cap < want)
		*cap = *cap ? 2 * *cap : 256;
	if (!(p = realloc(p, *cap * sz))) {
		cli_error("out of memory");
		exit(CLI_EXIT_TROUBLE);
	}
	return p;
}

static const char *name_of(const struct audit *a, const struct entry *e)
{
	return a->arena + e->off;
}

/* The directory's path, looked up only when there is something to say. */
static const struct cli_ext4_report_dir *dir(struct audit *a)
{
	/* A finding on the terminal starts on a clean line. */
	if (a->shown != ~0u) {
		fputs("\r\033[K", stderr);
		a->shown = ~0u;
	}
	if (!a->path && ext2fs_get_pathname(a->fs, a->dir.ino, 0, &a->path) != 0)
		a->path = NULL;
	a->dir.path = a->path ? a->path : "?";
	return &a->dir;
}

static void add_entry(struct audit *a, const char *name, size_t len, uint32_t ino, uint32_t lblk)
{
	struct entry *e;

	/* "." and ".." are not looked up by the hashed path. */
	if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
		return;
	a->arena = grow(a->arena, &a->arena_cap, a->arena_len + len, 1);
	a->entries = grow(a->entries, &a->entries_cap, a->nentries + 1, sizeof(*e));
	memcpy(a->arena + a->arena_len, name, len);
	e = &a->entries[a->nentries++];
	*e = (struct entry){ a->arena_len, len, ino, lblk, 0 };
	a->arena_len += len;
}

/* The entries of one directory block.  0, or -1 if the block is damaged. */
static int parse_block(struct audit *a, unsigned char *buf, uint32_t lblk)
{
	size_t bs = a->fs->blocksize;

	for (size_t off = 0; off + 8 <= bs;) {
		struct ext2_dir_entry *d = (struct ext2_dir_entry *)(void *)(buf + off);
		unsigned rec_len;
		int name_len = ext2fs_dirent_name_len(d);

		if (ext2fs_get_rec_len(a->fs, d, &rec_len) || rec_len < 8 || rec_len % 4 ||
		    off + rec_len > bs || (size_t)name_len + 8 > rec_len)
			return -1;
		if (d->inode && name_len)
			add_entry(a, (const char *)buf + off + 8, (size_t)name_len, d->inode, lblk);
		off += rec_len;
	}
	return 0;
}

static int read_block(void *ctx, uint32_t lblk, unsigned char *buf)
{
	struct audit *a = ctx;
	blk64_t pblk = 0;

	if (ext2fs_bmap2(a->fs, a->dir.ino, NULL, NULL, 0, lblk, NULL, &pblk) || !pblk)
		return -1;
	return ext2fs_read_dir_block4(a->fs, pblk, buf, 0, a->dir.ino) ? -1 : 0;
}

static int inline_entry(ext2_ino_t dino, int entry, struct ext2_dir_entry *d, int offset,
			int blocksize, char *buf, void *priv)
{
	struct audit *a = priv;

	(void)dino, (void)entry, (void)offset, (void)blocksize, (void)buf;
	add_entry(a, d->name, (size_t)ext2fs_dirent_name_len(d), d->inode, 0);
	return 0;
}

/* Every entry of the directory into a->entries.  0, or -1 if reported damaged. */
static int read_entries(struct audit *a, const struct ext2_inode *inode)
{
	char what[96];
	uint64_t nblocks = EXT2_I_SIZE(inode) / a->fs->blocksize;
	errcode_t err;

	if (inode->i_flags & EXT4_INLINE_DATA_FL) {
		err = ext2fs_dir_iterate2(a->fs, a->dir.ino, 0, NULL, inline_entry, a);
		if (err) {
			snprintf(what, sizeof(what), "cannot read: %s", error_message(err));
			cli_ext4_report_damage(&a->report, dir(a), what);
			return -1;
		}
		return 0;
	}
	for (uint64_t lblk = 0; lblk < nblocks; lblk++) {
		blk64_t pblk = 0;

		err = ext2fs_bmap2(a->fs, a->dir.ino, NULL, NULL, 0, lblk, NULL, &pblk);
		if (!err && !pblk)
			continue; /* a hole: nothing stored there */
		if (err || ext2fs_read_dir_block4(a->fs, pblk, a->block, 0, a->dir.ino) ||
		    parse_block(a, a->block, (uint32_t)lblk) < 0) {
			snprintf(what, sizeof(what), "block %llu unreadable or damaged",
				 (unsigned long long)lblk);
			cli_ext4_report_damage(&a->report, dir(a), what);
			return -1;
		}
	}
	return 0;
}

static int by_key(const void *x, const void *y)
{
	const struct entry *e = x, *f = y;

	return (e->key > f->key) - (e->key < f->key);
}

static struct cli_ext4_report_name report_name(const struct audit *a, const struct entry *e)
{
	return (struct cli_ext4_report_name){ name_of(a, e), e->len, e->ino };
}

/*
 * Names that fold equal.  Matching names hash equal (cf_name_hash), so
 * only names with the same hash are compared, with cf_name_match.
 */
static void check_fold_equal(struct audit *a)
{
	struct entry *e = a->entries;
	size_t n = a->nentries;
	struct cli_ext4_report_name *group = NULL;
	size_t cap = 0;
	bool *done = calloc(n ? n : 1, sizeof(*done));

	if (!done) {
		cli_error("out of memory");
		exit(CLI_EXIT_TROUBLE);
	}
	for (size_t i = 0; i < n; i++)
		if (cf_name_hash(&a->enc, name_of(a, &e[i]), e[i].len, &e[i].key) < 0)
			e[i].key = 0;
	qsort(e, n, sizeof(*e), by_key);
	for (size_t i = 0; i < n; i++) {
		size_t count = 0;

		for (size_t j = i + 1; j < n && e[j].key == e[i].key; j++) {
			if (done[i] || done[j] ||
			    cf_name_match(&a->enc, name_of(a, &e[i]), e[i].len,
					  name_of(a, &e[j]), e[j].len) != 1)
				continue;
			group = grow(group, &cap, count + 2, sizeof(*group));
			if (!count)
				group[count++] = report_name(a, &e[i]);
			group[count++] = report_name(a, &e[j]);
			done[j] = true;
		}
		if (count)
			cli_ext4_report_fold_equal(&a->report, dir(a), group, count);
	}
	free(group);
	free(done);
}

/* Entries whose htree block is not where their hash leads. */
static void check_positions(struct audit *a)
{
	struct cli_htree t;
	char err[128];
	int depth = ext2fs_has_feature_largedir(a->fs->super) ? 3 : 2;
	enum cf_ext4_hash alg;

	if (read_block(a, 0, a->block) < 0 ||
	    cli_htree_read(&t, a->block, a->fs->blocksize, depth, read_block, a, err,
			   sizeof(err)) < 0) {
		cli_ext4_report_damage(&a->report, dir(a), "htree index unreadable or damaged");
		return;
	}
	alg = (enum cf_ext4_hash)t.hash_version;
	if (alg <= CF_EXT4_HASH_TEA)
		alg += a->hash_unsigned;
	for (size_t i = 0; i < a->nentries; i++) {
		const struct entry *e = &a->entries[i];
		const struct cli_htree_leaf *leaf = cli_htree_leaf(&t, e->lblk);
		struct cli_ext4_report_name n = report_name(a, e);
		uint32_t h, h2;

		if (cf_ext4_name_hash(&a->enc, alg, a->seed, n.name, n.len, &h, NULL) < 0) {
			snprintf(err, sizeof(err), "htree hash version %u unknown", t.hash_version);
			cli_ext4_report_damage(&a->report, dir(a), err);
			break;
		}
		if (leaf && cli_htree_fits(leaf, h))
			continue;
		cf_ext4_name_hash(&a->other, alg, a->seed, n.name, n.len, &h2, NULL);
		cli_ext4_report_misplaced(&a->report, dir(a), &n, e->lblk, h, leaf,
				     leaf && cli_htree_fits(leaf, h2),
				     a->other.flags & CF_KEEP_IGNORABLES);
	}
	free(t.leaves);
}

static void audit_dir(struct audit *a, ext2_ino_t ino, const struct ext2_inode *inode)
{
	a->dir = (struct cli_ext4_report_dir){ NULL, ino };
	ext2fs_free_mem(&a->path);
	a->nentries = a->arena_len = 0;
	a->dirs++;
	if (!a->casefold) {
		cli_ext4_report_damage(&a->report, dir(a),
				  "casefold flag without the casefold feature: Linux refuses it");
		return;
	}
	/* The names are ciphertext, hashed with siphash: nothing to check without the key. */
	if (inode->i_flags & EXT4_ENCRYPT_FL) {
		a->encrypted++;
		return;
	}
	if (read_entries(a, inode) < 0)
		return;
	a->names += a->nentries;
	for (size_t i = 0; i < a->nentries; i++) {
		const struct entry *e = &a->entries[i];
		struct cli_ext4_report_name n = report_name(a, e);

		if (cf_validate(&a->enc, n.name, n.len) < 0)
			cli_ext4_report_invalid(&a->report, dir(a), &n, a->strict);
	}
	if ((inode->i_flags & EXT2_INDEX_FL) && ext2fs_has_feature_dir_index(a->fs->super))
		check_positions(a);
	check_fold_equal(a);
}

/* "NN%" of the inodes on standard error, only for a person watching. */
static void progress(struct audit *a, ext2_ino_t ino)
{
	ext2_ino_t count = a->fs->super->s_inodes_count;
	unsigned pct = count ? (unsigned)((uint64_t)ino * 100 / count) : 100;

	if (pct == a->shown)
		return;
	a->shown = pct;
	fprintf(stderr, "\rcasefold: ext4 audit: %3u%% of inodes", pct);
}

/* Every inode; the casefolded directories audited.  0, or -1 after reporting. */
static int scan(struct audit *a, const char *path)
{
	ext2_inode_scan scan;
	struct ext2_inode inode;
	ext2_ino_t ino;
	errcode_t err = ext2fs_open_inode_scan(a->fs, 0, &scan);

	while (!err) {
		err = ext2fs_get_next_inode(scan, &ino, &inode);
		/* One bad inode is not this tool's business: e2fsck's. */
		if (err == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE || err == EXT2_ET_INODE_CSUM_INVALID ||
		    err == EXT2_ET_INODE_IS_GARBAGE) {
			err = 0;
			continue;
		}
		if (err || ino == 0)
			break;
		if (a->tty && ino % 1024 == 0)
			progress(a, ino);
		if (inode.i_links_count && LINUX_S_ISDIR(inode.i_mode) &&
		    (inode.i_flags & EXT4_CASEFOLD_FL))
			audit_dir(a, ino, &inode);
	}
	if (a->shown != ~0u)
		fputs("\r\033[K", stderr);
	ext2fs_close_inode_scan(scan);
	if (err) {
		cli_error("%s: reading inodes: %s", path, error_message(err));
		return -1;
	}
	return 0;
}

/* The encodings and hash parameters of the superblock.  0, or -1 after reporting. */
static int setup(struct audit *a, const char *path)
{
	struct ext2_super_block *sb = a->fs->super;
	unsigned char seed[16];

	a->casefold = ext2fs_has_feature_casefold(sb);
	a->strict = sb->s_encoding_flags & CF_EXT4_ENC_STRICT_FL;
	/* Matching and hashing ignore strictness, as the kernel's do; it only
	 * decides whether an invalid name is a problem. */
	if (a->casefold &&
	    (cf_ext4_encoding_load(&a->enc, sb->s_encoding,
				   sb->s_encoding_flags & ~CF_EXT4_ENC_STRICT_FL) < 0 ||
	     cf_encoding_load(&a->other, cf_encoding_name(&a->enc),
			      a->enc.flags ^ CF_KEEP_IGNORABLES) < 0)) {
		cli_error("%s: unknown encoding (magic %u): Linux refuses to mount it", path,
			  sb->s_encoding);
		return -1;
	}
	memcpy(seed, sb->s_hash_seed, sizeof(seed));
	cf_ext4_hash_seed(seed, a->seed);
	a->hash_unsigned = sb->s_flags & EXT2_FLAGS_UNSIGNED_HASH ? 3 : 0;
	a->block = malloc(a->fs->blocksize);
	if (!a->block) {
		cli_error("out of memory");
		return -1;
	}
	return 0;
}

int cli_ext4_audit(const struct cli_args *args, const char *path)
{
	struct audit a = { .report = { stdout, args->json, 0, 0, 0 },
			   .tty = isatty(STDERR_FILENO), .shown = ~0u };
	int status = CLI_EXIT_TROUBLE;
	/* Without EXT2_FLAG_RW libext2fs opens the image read-only. */
	errcode_t err = ext2fs_open(path, EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &a.fs);

	if (err) {
		cli_error("%s: %s", path, error_message(err));
		return CLI_EXIT_TROUBLE;
	}
	if (setup(&a, path) == 0) {
		cli_ext4_report_begin(&a.report, path, a.casefold ? cf_encoding_name(&a.enc) : NULL,
				 a.fs->super->s_encoding_flags);
		if (scan(&a, path) == 0) {
			cli_ext4_report_end(&a.report, a.dirs, a.names, a.encrypted,
				       a.fs->super->s_encoding_flags &
				       CF_EXT4_ENC_NO_COMPAT_FALLBACK_FL);
			status = a.report.problems ? CLI_EXIT_FAIL : CLI_EXIT_OK;
		}
	}
	ext2fs_free_mem(&a.path);
	free(a.block);
	free(a.arena);
	free(a.entries);
	ext2fs_close_free(&a.fs);
	return status;
}

/*
 * casefoldfs — ext4-style per-directory case-insensitivity over any directory
 * tree, as a FUSE 3 low-level daemon.
 *
 * Layers, each in its own file:
 *   main.c      command line, mount, session loop
 *   super.c     the superblock record at the backing root (format there)
 *   names.c     the naming rule of a directory; the only caller of libcasefold
 *   dirindex.c  per-directory index of stored names keyed by name hash
 *   inode.c     the node table: locators, lookup/forget counts
 *   fdcache.c   the bounded cache of backing descriptors
 *   flagstore.c where the casefold flag lives (an xattr, trusted or user)
 *   caps.c      what the daemon may do (root, or an ordinary user)
 *   dir.c       the casefold flag and name resolution inside one directory
 *   ops_dir.c   namespace operations (lookup, create, rename, ...)
 *   readdir.c   directory listings, without per-open state
 *   ops_file.c  operations on one object (attributes, I/O, xattrs)
 *   ioctl.c     FS_IOC_GETFLAGS / SETFLAGS / FSGETXATTR (chattr, lsattr)
 *   caller.c    the caller's capabilities, for the checks the kernel leaves to us
 *   dcache.c    what the kernel may cache, and when it must forget
 *
 * Locking, outermost first: a directory's lock (two directories: lower
 * address first), then the table lock, which is never held across a
 * system call that can block on the backing filesystem.  No lock is held while talking
 * to the kernel, so the kernel can never wait on us while we wait on it.
 */
#ifndef CASEFOLDFS_H
#define CASEFOLDFS_H

#define FUSE_USE_VERSION FUSE_MAKE_VERSION(3, 12)

#include <fuse_lowlevel.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "casefold.h"

/* FS_CASEFOLD_FL, as ext4 reports it through FS_IOC_GETFLAGS. */
#define CFS_CASEFOLD_FL 0x40000000u

/*
 * Where the casefold flag of a backing directory lives (flagstore.c): the
 * xattr PREFIX "casefold" (value "1"), PREFIX per store.  Every xattr with
 * either prefix is ours: hidden from listxattr, refused.  Except, under the
 * tree's own prefix, "index" (read-only on directories: the index's
 * statistics) and "stats" (read-only on the root: the node table's figures).
 */
enum cfs_store {
	CFS_STORE_TRUSTED, /* only CAP_SYS_ADMIN may touch it: root's trees */
	CFS_STORE_USER,    /* what an unprivileged daemon can write */
};
#define CFS_TRUSTED_PREFIX "trusted.casefoldfs."
#define CFS_USER_PREFIX "user.casefoldfs."

/* The longest name a directory entry may have, as on ext4. */
#define CFS_NAME_MAX 255

/* How names compare inside one directory. */
enum cfs_rule {
	CFS_EXACT,     /* byte for byte: a plain directory */
	CFS_FOLD,      /* cf_name_match: a casefolded (+F) directory */
	CFS_NORMALIZE, /* canonical equivalence only: plain dirs, normalize_all */
};

/* Mount options that the superblock records. */
struct cfs_options {
	char encoding[32];   /* canonical encoding name, or "none" */
	bool strict;         /* strict_encoding */
	bool keep_ignorables;
	bool normalize_all;
	enum cfs_store store;  /* where directories' flags live */
};

struct cfs_dirindex;

/* What a directory handed out to the kernel's dentry cache (dcache.c). */
enum { CFS_NEG_NONE, CFS_NEG_ONE, CFS_NEG_MANY };
struct cfs_dcache {
	uint64_t epoch;         /* fs->epoch when recorded; older: nothing */
	uint64_t negative;      /* hash of the one negative spelling */
	uint8_t negatives;      /* CFS_NEG_* */
	bool variants;          /* positives under other than stored spellings */
};

/* What only a directory node has. */
struct cfs_dir {
	pthread_mutex_t lock;   /* the directory lock: fields below, and
				   every change to this directory's entries */
	int fd;                 /* backing descriptor, pinned by dir_lock; lock */
	bool casefold;          /* +F, mirrors the flag store; lock */
	bool flag_unknown;      /* the flag could not be read (EACCES); lock */
	bool gone_reported;     /* removed behind our back, and logged; lock */
	struct timespec flag_ctime; /* backing ctime when casefold was read; lock */
	bool acl_known;         /* default_acl read since flag_ctime; lock */
	bool default_acl;       /* the directory has a default ACL; lock */
	bool checked;           /* st, flag and index checked in this lock hold */
	bool changed;           /* entries changed in this hold: restamp at unlock */
	struct stat st;         /* the backing directory's attributes as of the
				   check of this hold (valid when checked); lock */
	struct cfs_dirindex *index; /* NULL until first needed; lock */
	struct cfs_dcache dcache;   /* lock */
};

/*
 * A node: one backing object the kernel remembers.  It holds no descriptor
 * of its own, only a locator to reopen its object with: a file handle, or
 * (handle_len 0) the parent node and the name last seen there.  See
 * fs/README.md, "Nodes and descriptors".  Fields marked "table" are under
 * fs->table_lock.
 */
struct cfs_inode {
	struct cfs_inode *next;   /* hash chain; table */
	struct cfs_dir *d;        /* directories only; immutable */
	struct cfs_inode *parent; /* path locator; table */
	char *name;               /* path locator; table */
	uint64_t nlookup;         /* kernel references; table */
	dev_t dev;                /* backing identity: immutable */
	ino_t ino;
	int fd;                   /* cached or held descriptor, or -1; table */
	int32_t slot;             /* place in the cache, CFS_SLOT_*; table */
	uint32_t pins;            /* operations using fd or reopening; table */
	uint32_t children;        /* path locators naming this as parent; table */
	uint32_t writers;         /* opens for writing (ops_file.c); table */
	mode_t type;              /* S_IFMT bits: immutable */
	bool used;                /* CLOCK: pinned since the hand last passed; table */
	bool unhashed;            /* out of the table (inode_unhash); table */
	uint8_t handle_len;       /* bytes of handle; 0: path locator */
	int handle_type;          /* file handle: immutable */
	unsigned char handle[];
};

#define CFS_SLOT_NONE (-1)  /* no descriptor */
#define CFS_SLOT_HELD (-2)  /* descriptor held until forgotten, not cached */

/* The descriptor cache (fdcache.c): slots of nodes with a cached fd. */
struct cfs_fdcache {
	struct cfs_inode **slot;  /* table lock */
	uint32_t cap, used, hand;
};

/* How positive entries in non-exact directories are cached (dcache.c). */
enum {
	CFS_DCACHE_PROBE,  /* not yet known whether the kernel has the epoch */
	CFS_DCACHE_EPOCH,  /* stored spellings cached, epoch bumped when needed */
	CFS_DCACHE_ZERO,   /* every spelling with entry_timeout 0 */
};

struct cfs {
	/* Immutable once mounted. */
	struct fuse_session *se;
	struct cfs_options opt;
	bool has_encoding;          /* false when opt.encoding is "none" */
	bool can_chown;             /* CAP_CHOWN: new entries go to the caller */
	uid_t euid;                 /* the daemon's own, which never change */
	gid_t egid;
	cf_encoding enc;            /* valid when has_encoding */
	cf_encoding bytes_enc;      /* "ascii", for hashing bytes (names.c) */
	uint64_t hash_key[2];       /* secret per mount: index hashes (getrandom) */
	double attr_timeout;
	double entry_timeout;       /* positive entries in CFS_EXACT dirs */
	bool use_handles;           /* file handles work for the root's mount */
	bool no_opendir;            /* the kernel can do without OPENDIR */
	bool flush_writers;         /* FLUSH at a writer's close (backing_local) */
	int mount_id;               /* the root's, from name_to_handle_at */
	int mount_fd;               /* the root, not O_PATH: open_by_handle_at */
	struct cfs_inode *root;     /* allocated: a node ends in a flexible array */
	struct cfs_dir root_dir;

	_Atomic int dcache_mode;    /* CFS_DCACHE_*: set once by the probe */
	_Atomic uint64_t epoch;     /* dentry epochs bumped, plus one */

	pthread_mutex_t table_lock; /* nodes: table, counts, locators, cache */
	struct cfs_inode **table;   /* table lock */
	struct cfs_inode *unhashed; /* nodes out of the table, chained by next,
				       until forgotten; table lock */
	size_t table_size;          /* buckets; table lock */
	size_t table_count;         /* nodes, root excluded; table lock */
	size_t held_count;          /* descriptors held outside the cache; table lock */
	size_t path_nodes;          /* nodes with a path locator; table lock */
	struct cfs_fdcache fdc;     /* table lock */
};

/* flagstore.c */
void flagstore_use(enum cfs_store s);
const char *flagstore_name(enum cfs_store s);
int flagstore_parse(const char *word, enum cfs_store *s);
int flagstore_get(int fd, bool *on);
int flagstore_set(int fd, bool on);
bool flagstore_hidden(const char *xattr);
bool flagstore_is(const char *xattr, const char *suffix);
int flagstore_probe(int rootfd, char *msg, size_t len);

/* caps.c */
bool caps_have(int cap);

/* super.c */
#define CFS_SUPER_NAME ".casefoldfs"
#define CFS_SUPER_TMP ".casefoldfs.tmp"
int super_load(int rootfd, struct cfs_options *opt, const struct cfs_options *given,
	       bool given_encoding, bool given_store, char *err, size_t errlen);
bool super_hidden(const struct cfs *fs, const struct cfs_inode *dir, const char *name);

/* names.c */
enum cfs_rule names_rule(const struct cfs *fs, bool casefold);
int names_check_create(const struct cfs *fs, enum cfs_rule rule, const char *name);
int names_check_lookup(const struct cfs *fs, enum cfs_rule rule, const char *name);
int names_hash(const struct cfs *fs, enum cfs_rule rule, const char *s, size_t len,
	       uint64_t *hash);
bool names_match(const struct cfs *fs, enum cfs_rule rule, const char *a, size_t alen,
		 const char *b, size_t blen);

/* dirindex.c */
struct cfs_dirindex *dirindex_new(void);
void dirindex_free(struct cfs_dirindex *idx);
int dirindex_refresh(struct cfs_dirindex *idx, const struct cfs *fs, enum cfs_rule rule,
		     const struct cfs_inode *dir, const struct stat *st);
int dirindex_find(const struct cfs_dirindex *idx, const struct cfs *fs,
		  enum cfs_rule rule, const char *name, char *stored, bool *several);
void dirindex_add(struct cfs_dirindex *idx, const struct cfs *fs, enum cfs_rule rule,
		  const char *name);
void dirindex_remove(struct cfs_dirindex *idx, const struct cfs *fs, enum cfs_rule rule,
		     const char *name);
bool dirindex_current(const struct cfs_dirindex *idx, const struct stat *st);
void dirindex_stamp(struct cfs_dirindex *idx, const struct stat *st);
int dirindex_stats(const struct cfs_dirindex *idx, char *buf, size_t len);

/* inode.c */
int inode_table_init(struct cfs *fs, int rootfd, bool handles, uint32_t fd_cache);
void inode_table_destroy(struct cfs *fs);
struct cfs_inode *inode_get(struct cfs *fs, fuse_ino_t ino);
fuse_ino_t inode_id(struct cfs *fs, struct cfs_inode *in);
int inode_lookup(struct cfs *fs, struct cfs_inode *dir, int dfd, const char *name,
		 struct stat *st, struct cfs_inode **out);
int inode_lookup_open(struct cfs *fs, struct cfs_inode *dir, const char *name, int fd,
		      const struct stat *st, struct cfs_inode **out);
int inode_lookup_fd(struct cfs *fs, struct cfs_inode *dir, const char *name, int fd,
		    struct stat *st, struct cfs_inode **out);
void inode_forget(struct cfs *fs, struct cfs_inode *in, uint64_t n);
bool inode_any_path_nodes(struct cfs *fs);
void inode_hold_name(struct cfs *fs, int dfd, const char *name);
int inode_reopen(struct cfs *fs, struct cfs_inode *in);
void inode_moved(struct cfs *fs, const struct stat *st, struct cfs_inode *ndir,
		 const char *name);
void inode_put(struct cfs *fs, struct cfs_inode *in);
int inode_stats(struct cfs *fs, char *buf, size_t len);
void fd_procpath(int fd, char buf[static 32]);

/* fdcache.c */
int fdcache_init(struct cfs_fdcache *c, uint32_t cap);
void fdcache_destroy(struct cfs_fdcache *c);
int inode_pin(struct cfs *fs, struct cfs_inode *in);
void inode_unpin(struct cfs *fs, struct cfs_inode *in, int fd);
int inode_open(struct cfs *fs, struct cfs_inode *in, int flags);
int inode_open_handle(struct cfs *fs, struct cfs_inode *in, int flags);
int fdcache_install(struct cfs *fs, struct cfs_inode *in, int fd);
bool fdcache_shed(struct cfs *fs, int err);
void fdcache_remove(struct cfs *fs, struct cfs_inode *in);
int inode_hold(struct cfs *fs, struct cfs_inode *in);

/* dir.c */
int dir_init(struct cfs_inode *dir, int fd, const struct stat *st);
void dir_fini(struct cfs_inode *dir);
void dir_park_clear(void);
int dir_lock(struct cfs *fs, struct cfs_inode *dir);
void dir_unlock(struct cfs *fs, struct cfs_inode *dir);
int dir_lock2(struct cfs *fs, struct cfs_inode *a, struct cfs_inode *b);
void dir_unlock2(struct cfs *fs, struct cfs_inode *a, struct cfs_inode *b);
int dir_store_flag(struct cfs_inode *dir, bool on);
int dir_check_flag(struct cfs_inode *dir);
bool dir_default_acl(struct cfs_inode *dir);
enum cfs_rule dir_rule(const struct cfs *fs, const struct cfs_inode *dir);
int dir_resolve(struct cfs *fs, struct cfs_inode *dir, const char *name, char *stored);
int dir_resolve_stat(struct cfs *fs, struct cfs_inode *dir, const char *name, char *stored,
		     struct stat *st);
int dir_index_stats(struct cfs *fs, struct cfs_inode *dir, char *buf, size_t len);
void dir_added(struct cfs *fs, struct cfs_inode *dir, const char *name);
void dir_removed(struct cfs *fs, struct cfs_inode *dir, const char *name);
void dir_touched(struct cfs_inode *dir);
int dir_set_times(struct cfs *fs, struct cfs_inode *dir, const struct timespec ts[2]);
int dir_is_empty(const struct cfs *fs, const struct cfs_inode *dir);

/* caller.c */
/* This thread's capabilities, saved while cut to a caller's. */
struct caller_caps {
	struct { uint32_t effective, permitted, inheritable; } data[2];
	bool changed;
};
bool caller_capable(fuse_req_t req, int cap);
int caller_caps_begin(fuse_req_t req, struct caller_caps *saved);
void caller_caps_end(struct caller_caps *saved);
int caller_unlinkat(fuse_req_t req, int dfd, const struct stat *dst, const char *name,
		    int flags);
int caller_renameat2(fuse_req_t req, int dfd, const struct stat *dst, const char *from,
		     int ndfd, const struct stat *ndst, const char *to, unsigned int flags);

/* dcache.c */
double dcache_positive(struct cfs *fs, struct cfs_inode *dir, const char *given,
		       const char *stored);
double dcache_negative(struct cfs *fs, struct cfs_inode *dir, const char *given);
void dcache_created(struct cfs *fs, struct cfs_inode *dir, const char *name);
void dcache_removed(struct cfs *fs, struct cfs_inode *dir, const char *given,
		    const char *stored);
void dcache_rule_changed(struct cfs *fs);

/* ops_dir.c, readdir.c, ops_file.c, ioctl.c */
void ops_dir_fill(struct fuse_lowlevel_ops *ops);
void readdir_fill(struct fuse_lowlevel_ops *ops);
void ops_file_fill(struct fuse_lowlevel_ops *ops);
bool file_noflush(const struct cfs *fs, int flags);
uint64_t file_created(struct cfs *fs, struct cfs_inode *in, int fd, int flags);
void file_closed(struct cfs *fs, struct cfs_inode *in, uint64_t fh);
void cfs_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd, void *arg,
	       struct fuse_file_info *fi, unsigned flags, const void *in_buf,
	       size_t in_bufsz, size_t out_bufsz);

/* The daemon's state, from a request. */
static inline struct cfs *cfs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

#endif /* CASEFOLDFS_H */

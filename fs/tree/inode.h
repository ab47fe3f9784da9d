/*
 * Nodes: one per backing object the kernel remembers (inode.c: the table,
 * lookup and forget counts, locators; locator.c: reopening an object,
 * pinning its descriptor, opening it).  See fs/README.md, "Nodes and
 * descriptors".
 *
 * Fields marked "table" are under the table lock (struct cfs_nodes.lock),
 * which is never held across a system call that can block on the backing
 * filesystem; fields marked "lock" under the directory's own lock, which
 * is taken outside the table lock (dir.c).
 */
#ifndef CFS_INODE_H
#define CFS_INODE_H

#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "common/dentries.h"
#include "common/lowlevel.h"
#include "tree/dirindex.h"
#include "tree/fdcache.h"

/* What only a directory node has (dir.c works on it). */
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
	int wd;                 /* inotify watch, or -1 (watch.c); lock */
	time_t refusal_logged;  /* monotonic seconds of the last refused
				   chattr +F logged (dir_may_casefold); lock */
};

/* An id the kernel knows a node by (ids.c): the node's own, or an alias. */
struct cfs_id {
	struct cfs_id *next;      /* chain of the id set; table */
	fk_ino_t value;         /* immutable, as are: */
	uint32_t generation;
	bool alias;               /* an alias's, not the node's own
				     (struct cfs_inode.id) */
};

/*
 * An alias of -o case_rename: another kernel inode for the same node, one
 * per spelling the kernel holds it by.
 */
struct cfs_alias {
	struct cfs_id id;         /* first: an alias's id is the alias */
	struct cfs_alias *next;   /* the node's other aliases; table */
	struct cfs_inode *node;   /* immutable, as is: */
	uint64_t nlookup;         /* kernel references by this id; table */
	char spelling[];          /* the name it answers for */
};

/*
 * A node holds no descriptor of its own, only a locator to reopen its
 * object with: a file handle, or (handle_len 0) the parent node and the
 * name last seen there.  Its descriptor, when it has one, is an entry of
 * the descriptor cache or of its held pool (the root's alone is FDC_HELD).
 */
struct cfs_inode {
	struct cfs_inode *next;   /* hash chain; table */
	struct cfs_inode *hnext;  /* chain by handle (handles.c); table */
	struct cfs_dir *d;        /* directories only; immutable */
	struct cfs_inode *parent; /* path locator; table */
	char *name;               /* path locator; table */
	uint64_t nlookup;         /* kernel references; table */
	dev_t dev;                /* backing identity: immutable */
	ino_t ino;
	struct fdc_entry fde;     /* descriptor and pins; table */
	uint32_t children;        /* path locators naming this as parent; table */
	uint32_t writers;         /* opens for writing (ops_file.c); table */
	mode_t type;              /* S_IFMT bits: immutable */
	bool unhashed;            /* out of the table (inode_unhash); table */
	bool in_handles;          /* in the handle index; table */
	bool covered;             /* inotify: last found in a watched directory */
	struct cfs_id id;         /* the node's own id (ids.c) */
	struct cfs_alias *aliases; /* its aliases' ids; table */
	struct cfs_inode *kept_next; /* forgotten, kept for NFS handles; table */
	bool kept;                /* on the kept list; table */
	uint8_t handle_len;       /* bytes of handle; 0: path locator */
	int handle_type;          /* file handle: immutable but for the */
	unsigned char handle[];   /* generation (inode_rehandle); table */
};

/* A file handle with room for any filesystem's. */
union inode_handle {
	struct file_handle fh;
	unsigned char bytes[sizeof(struct file_handle) + MAX_HANDLE_SZ];
};

/* The node table of one mount. */
struct cfs_nodes {
	pthread_mutex_t lock;       /* the table lock: everything below */
	struct cfs_inode **table;
	struct cfs_inode *unhashed; /* nodes out of the table, chained by next,
				       until forgotten */
	size_t size;                /* buckets */
	size_t count;               /* nodes, root excluded */
	size_t path_nodes;          /* nodes with a path locator */
	struct cfs_inode **htable;  /* nodes by file handle (handles.c) */
	size_t hsize, hcount;
	union inode_handle root_handle;  /* the root's, not in htable (handle_bytes 0: none) */
	struct cfs_id **ids;        /* every id but the root's, by value (ids.c) */
	size_t ids_size, ids_count; /* buckets, ids */
	fk_ino_t next_counter;    /* the next counter id to try */
	uint32_t counter_generation; /* counter ids': random at mount, never 0 */
	size_t keep_max;            /* -o nfs_nodes=N: forgotten nodes kept */
	size_t kept;                /* nodes on the kept list, oldest first: */
	struct cfs_inode *kept_head, *kept_tail;
	struct fdcache fdc;
	struct cfs_inode *root;     /* allocated: a node ends in a flexible array */
	struct cfs_dir root_dir;
	bool use_handles;           /* file handles work for the root's mount;
				       immutable once mounted, as are: */
	int mount_id;               /* the root's, from name_to_handle_at */
	int mount_fd;               /* the root, not O_PATH: open_by_handle_at */
	bool hold_all;              /* removal holds a descriptor for handle
				       nodes too (files open without OPEN) */
	bool local;                 /* the root's filesystem is a local one
				       (inode_open keeps O_NONBLOCK there) */
};


/* inode.c */
int inode_table_init(struct cfs_nodes *nt, int rootfd, bool handles, uint32_t fd_cache);
void inode_table_destroy(struct cfs_nodes *nt);
int inode_lookup_id(struct cfs_nodes *nt, fk_ino_t id, struct cfs_inode **out,
		    uint64_t *generation);
void inode_ref(struct cfs_nodes *nt, struct cfs_inode *in);
int inode_lookup_parent(struct cfs_nodes *nt, struct cfs_inode *dir, int dfd, struct stat *st,
			struct cfs_inode **out);
int inode_load_flag(struct cfs_dir *d, int fd, const struct stat *st);
int inode_lookup(struct cfs_nodes *nt, struct cfs_inode *dir, int dfd, const char *name,
		 struct stat *st, struct cfs_inode **out);
int inode_lookup_open(struct cfs_nodes *nt, struct cfs_inode *dir, const char *name, int fd,
		      const struct stat *st, struct cfs_inode **out);
int inode_lookup_fd(struct cfs_nodes *nt, struct cfs_inode *dir, const char *name, int fd,
		    struct stat *st, struct cfs_inode **out);
void inode_forget(struct cfs_nodes *nt, struct cfs_inode *in, uint64_t n);
struct cfs_inode *inode_find(struct cfs_nodes *nt, dev_t dev, ino_t ino);
size_t inode_ids(struct cfs_nodes *nt, fk_ino_t **ids);
void inode_put(struct cfs_nodes *nt, struct cfs_inode *in);
void inode_unhash(struct cfs_nodes *nt, struct cfs_inode *in);
void inode_rehandle(struct cfs_nodes *nt, struct cfs_inode *in, int fd);
bool inode_any_path_nodes(struct cfs_nodes *nt);
void inode_hold_name(struct cfs_nodes *nt, int dfd, const char *name);
void inode_moved(struct cfs_nodes *nt, const struct stat *st, struct cfs_inode *ndir,
		 const char *name);
bool inode_writer_open(struct cfs_nodes *nt, struct cfs_inode *in, bool writer);
void inode_writer_close(struct cfs_nodes *nt, struct cfs_inode *in);
bool inode_writing(struct cfs_nodes *nt, struct cfs_inode *in);
int inode_stats(struct cfs_nodes *nt, char *buf, size_t len);

/* ids.c (ids_ref and inode_* take the table lock; the others need it held) */
int ids_init(struct cfs_nodes *nt);
void ids_destroy(struct cfs_nodes *nt);
void ids_assign(struct cfs_nodes *nt, struct cfs_inode *in);
void ids_drop(struct cfs_nodes *nt, struct cfs_inode *in);
void ids_free_aliases(struct cfs_inode *in);
bool ids_derived(fk_ino_t value);
void ids_handle(fk_ino_t value, union inode_handle *h);
struct cfs_inode *ids_ref(struct cfs_nodes *nt, fk_ino_t value, uint64_t *generation);
struct cfs_inode *inode_get(struct cfs_nodes *nt, fk_ino_t ino);
fk_ino_t inode_id(struct cfs_nodes *nt, struct cfs_inode *in);
void inode_entry_id(struct cfs_nodes *nt, struct cfs_inode *in, const char *spelling,
		    fk_ino_t *id, uint64_t *generation);
void inode_forget_id(struct cfs_nodes *nt, fk_ino_t ino, uint64_t n);

/* handles.c (table lock held but for inode_find_handle) */
void handles_add(struct cfs_nodes *nt, struct cfs_inode *in);
void handles_remove(struct cfs_nodes *nt, struct cfs_inode *in);
void handles_destroy(struct cfs_nodes *nt);
struct cfs_inode *inode_find_handle(struct cfs_nodes *nt, const struct file_handle *fh);

/* locator.c */
int inode_pin(struct cfs_nodes *nt, struct cfs_inode *in);
void inode_unpin(struct cfs_nodes *nt, struct cfs_inode *in, int fd);
int inode_open(struct cfs_nodes *nt, struct cfs_inode *in, int flags);
int inode_hold(struct cfs_nodes *nt, struct cfs_inode *in);
bool inode_shed(struct cfs_nodes *nt, int err);

#endif /* CFS_INODE_H */

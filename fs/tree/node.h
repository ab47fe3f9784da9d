/*
 * Nodes: one per backing object the kernel remembers.  The types alone,
 * apart from the functions, so that each file of the node layer (inode.c
 * the table, ids.c the ids, handles.c the nodes by handle, locator.c
 * reaching an object) reaches the others one way.  See fs/tree/DESIGN.md,
 * "Nodes and descriptors".
 *
 * Fields marked "table" are under the table lock (struct cfs_nodes.lock),
 * which is never held across a system call that can block on the backing
 * filesystem; fields marked "lock" under the directory's own lock, which
 * is taken outside the table lock (dir.c).
 */
#ifndef CFS_NODE_H
#define CFS_NODE_H

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
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
	atomic_bool casefold;   /* +F, mirrors the flag store; written under
				   lock, read without by the notice reader */
	bool flag_unknown;      /* the flag could not be read (EACCES); lock */
	bool gone_reported;     /* removed behind our back, and logged; lock */
	struct timespec flag_ctime; /* backing ctime when casefold was read; lock */
	bool flag_racy;         /* flag_ctime was the clock's current tick then: a
				   change in that tick keeps it, so it proves
				   nothing (inode_stamp_flag); lock */
	bool acl_known;         /* default_acl read since flag_ctime; lock */
	bool default_acl;       /* the directory has a default ACL; lock */
	bool checked;           /* st, flag and index checked in this lock hold */
	bool changed;           /* entries changed in this hold: restamp at unlock */
	struct stat st;         /* the backing directory's attributes as of the
				   check of this hold (valid when checked); lock */
	struct cfs_dirindex *index; /* NULL until first needed; lock */
	atomic_bool entries_behind; /* the notice reader saw an entry change that
				   is not ours: the index's mtime stamp, taken in
				   the same clock tick, may not show it; any thread */
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
	_Atomic int64_t told;     /* ctime (ns) of the attributes last answered
				     (dcache_attr), for the notice reader */
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
				       (locator_open keeps O_NONBLOCK there) */
	bool open_by_name;          /* the daemon may open no more than its
				       user could: a path locator's object
				       is opened by name (locator.c) */
};


#endif /* CFS_NODE_H */

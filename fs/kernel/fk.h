/*
 * fk: the kernel's FUSE protocol, spoken by casefoldfs itself (fs/kernel/DESIGN.md,
 * "Our own loop").  The shapes every other wing sees, and nothing else:
 * the request, the operation table, INIT's offer and answer, the loop's
 * options; the session itself is opaque.  The shapes follow libfuse's
 * low-level API, which the handlers were written for, so that a handler
 * reads the same.  The calls are in reply.h (replies, the request's
 * caller), notify.h (notices), session.h (a session made, run, described)
 * and fusermount.h (the mount); what lies below (reading /dev/fuse, INIT,
 * passthrough) is this folder's alone (internal.h).
 *
 * Every request gets exactly one reply (fk_reply_none for FORGET), from
 * the thread that runs its handler, before the handler returns.
 */
#ifndef FK_FK_H
#define FK_FK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>

#include "kernel/proto.h"

typedef uint64_t fk_ino_t;
typedef struct fk_req *fk_req_t;
struct fk_session;

/* Who asks: the calling process, and its umask for creations. */
struct fk_ctx {
	uid_t uid;
	gid_t gid;
	pid_t pid;
	mode_t umask;
};

/* An open file, as OPEN/CREATE/READ/... carry it and OPEN's reply answers. */
struct fk_file_info {
	int flags;                  /* open(2) flags of the open */
	uint64_t fh;                /* the handler's own, given back on each request */
	uint64_t lock_owner;
	unsigned direct_io : 1;     /* replies: FOPEN_DIRECT_IO */
	unsigned keep_cache : 1;    /* FOPEN_KEEP_CACHE */
	unsigned nonseekable : 1;   /* FOPEN_NONSEEKABLE */
	unsigned cache_readdir : 1; /* FOPEN_CACHE_DIR */
	unsigned noflush : 1;       /* FOPEN_NOFLUSH */
	unsigned writepage : 1;     /* requests: a WRITE from the page cache */
	unsigned flush : 1;         /* RELEASE: flush first */
	unsigned kill_suidgid : 1;  /* OPEN with O_TRUNC, WRITE: the caller lacks
				       CAP_FSETID: clear the set-ID bits
				       (fk_options.killpriv) */
	int backing_fd;             /* OPEN/CREATE: the backing file's descriptor
				       for passthrough, -1 none (backing.c) */
};

/* LOOKUP's answer; ino 0 is a negative entry, cached for entry_timeout. */
struct fk_entry_param {
	fk_ino_t ino;
	uint64_t generation;
	struct stat attr;
	double attr_timeout;
	double entry_timeout;
};

/* One node of a BATCH_FORGET: the kernel's fuse_forget_one, as it arrives. */
struct fk_forget_data {
	uint64_t ino;
	uint64_t nlookup;
};

/*
 * INIT: the kernel's offer and our answer, FUSE_* flags with flags2 in the
 * upper 32 bits.  The init handler edits want (filled with the defaults of
 * handshake.c) within capable.
 */
struct fk_conn {
	unsigned proto_major, proto_minor;
	uint64_t capable;
	uint64_t want;
	unsigned max_write;
	unsigned max_readahead;
	unsigned max_pages;
};

struct fk_ops {
	void (*init)(void *data, struct fk_conn *conn);
	void (*lookup)(fk_req_t req, fk_ino_t parent, const char *name);
	void (*forget)(fk_req_t req, fk_ino_t ino, uint64_t nlookup);
	void (*forget_multi)(fk_req_t req, size_t count, struct fk_forget_data *list);
	void (*getattr)(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi);
	void (*setattr)(fk_req_t req, fk_ino_t ino, struct stat *attr, int valid,
			struct fk_file_info *fi);
	void (*readlink)(fk_req_t req, fk_ino_t ino);
	void (*mknod)(fk_req_t req, fk_ino_t parent, const char *name, mode_t mode, dev_t rdev);
	void (*mkdir)(fk_req_t req, fk_ino_t parent, const char *name, mode_t mode);
	void (*unlink)(fk_req_t req, fk_ino_t parent, const char *name);
	void (*rmdir)(fk_req_t req, fk_ino_t parent, const char *name);
	void (*symlink)(fk_req_t req, const char *target, fk_ino_t parent, const char *name);
	void (*rename)(fk_req_t req, fk_ino_t parent, const char *name, fk_ino_t newparent,
		       const char *newname, unsigned int flags);
	void (*link)(fk_req_t req, fk_ino_t ino, fk_ino_t newparent, const char *newname);
	void (*open)(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi);
	void (*read)(fk_req_t req, fk_ino_t ino, size_t size, off_t off, struct fk_file_info *fi);
	void (*write)(fk_req_t req, fk_ino_t ino, const char *buf, size_t size, off_t off,
		      struct fk_file_info *fi);
	void (*flush)(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi);
	void (*release)(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi);
	void (*fsync)(fk_req_t req, fk_ino_t ino, int datasync, struct fk_file_info *fi);
	void (*opendir)(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi);
	void (*readdir)(fk_req_t req, fk_ino_t ino, size_t size, off_t off,
			struct fk_file_info *fi);
	void (*readdirplus)(fk_req_t req, fk_ino_t ino, size_t size, off_t off,
			    struct fk_file_info *fi);
	void (*releasedir)(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi);
	void (*fsyncdir)(fk_req_t req, fk_ino_t ino, int datasync, struct fk_file_info *fi);
	void (*statfs)(fk_req_t req, fk_ino_t ino);
	void (*setxattr)(fk_req_t req, fk_ino_t ino, const char *name, const char *value,
			 size_t size, int flags);
	void (*getxattr)(fk_req_t req, fk_ino_t ino, const char *name, size_t size);
	void (*listxattr)(fk_req_t req, fk_ino_t ino, size_t size);
	void (*removexattr)(fk_req_t req, fk_ino_t ino, const char *name);
	void (*create)(fk_req_t req, fk_ino_t parent, const char *name, mode_t mode,
		       struct fk_file_info *fi);
	void (*ioctl)(fk_req_t req, fk_ino_t ino, unsigned int cmd, void *arg,
		      struct fk_file_info *fi, unsigned flags, const void *in_buf,
		      size_t in_bufsz, size_t out_bufsz);
	void (*fallocate)(fk_req_t req, fk_ino_t ino, int mode, off_t off, off_t len,
			  struct fk_file_info *fi);
};

/* What the command line asks of the loop (session.h's fk_session_new). */
struct fk_options {
	unsigned max_threads;      /* workers at most; 1: a single thread */
	bool passthrough;          /* offer FUSE_PASSTHROUGH (needs CAP_SYS_ADMIN) */
	bool uring;                /* take FUSE_OVER_IO_URING where offered */
	unsigned request_timeout;  /* seconds, 0: none asked */
	bool debug;                /* -d: every request on stderr, as libfuse logged it */
	/*
	 * Take FUSE_HANDLE_KILLPRIV_V2: the handlers clear set-user-ID and
	 * set-group-ID bits where a request's kill_suidgid (or SETATTR's
	 * FATTR_KILL_SUIDGID) says so, and the kernel stops asking for
	 * security.capability before every write (fs/common/DESIGN.md, "Set-ID bits").
	 */
	bool killpriv;
	/*
	 * Called on the main thread once the session is to end, while the
	 * workers still answer (NULL: nothing).  What sends notices outside
	 * requests must stop here, not after the workers: fk_notify_inval_entry
	 * waits for the directory's lock, which a LOOKUP still queued in the
	 * kernel holds, and only a worker can answer it.
	 */
	void (*ending)(void *arg);
	void *ending_arg;
};

#endif /* FK_FK_H */

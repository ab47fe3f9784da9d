/*
 * The parts of the kernel's FUSE protocol (include/uapi/linux/fuse.h,
 * version 7.44 as Linux 6.18 offers) that Debian 12's linux-libc-dev 6.1
 * (protocol 7.38) lacks.  Each is defined only where the installed header
 * has not, so a newer header wins; the two structures whose tail grew are
 * defined here in full under names of our own.
 */
#ifndef FK_PROTO_H
#define FK_PROTO_H

#include <stdint.h>
#include <sys/ioctl.h>
#include <linux/fuse.h>

/* The protocol this daemon speaks; the kernel answers with the lower minor. */
#define FK_PROTO_MAJOR 7
#define FK_PROTO_MINOR 44

/* INIT flags beyond the first 32 bits travel in flags2 (FUSE_INIT_EXT). */
#ifndef FUSE_INIT_EXT
#define FUSE_INIT_EXT (1 << 30)
#endif
#ifndef FUSE_DIRECT_IO_ALLOW_MMAP
#define FUSE_DIRECT_IO_ALLOW_MMAP (1ULL << 36)  /* 7.39 */
#endif
#ifndef FUSE_PASSTHROUGH
#define FUSE_PASSTHROUGH (1ULL << 37)           /* 7.40, Linux 6.9 */
#endif
#ifndef FUSE_NO_EXPORT_SUPPORT
#define FUSE_NO_EXPORT_SUPPORT (1ULL << 38)
#endif
#ifndef FUSE_HAS_RESEND
#define FUSE_HAS_RESEND (1ULL << 39)
#endif
#ifndef FUSE_ALLOW_IDMAP
#define FUSE_ALLOW_IDMAP (1ULL << 40)
#endif
#ifndef FUSE_OVER_IO_URING
#define FUSE_OVER_IO_URING (1ULL << 41)         /* 7.42, Linux 6.14 */
#endif
#ifndef FUSE_REQUEST_TIMEOUT
#define FUSE_REQUEST_TIMEOUT (1ULL << 42)       /* 7.43, Linux 6.14 */
#endif

#ifndef FOPEN_PASSTHROUGH
#define FOPEN_PASSTHROUGH (1 << 7)
#endif

/* Notices beyond 6.1's. */
#define FK_NOTIFY_INC_EPOCH 8                   /* 7.44, Linux 6.16 */
#define FK_MINOR_INC_EPOCH 44

/* fuse_init_out as of 7.43 (6.1's ends in unused[7] after flags2). */
struct fk_init_out {
	uint32_t major;
	uint32_t minor;
	uint32_t max_readahead;
	uint32_t flags;
	uint16_t max_background;
	uint16_t congestion_threshold;
	uint32_t max_write;
	uint32_t time_gran;
	uint16_t max_pages;
	uint16_t map_alignment;
	uint32_t flags2;
	uint32_t max_stack_depth;   /* 7.40: backing files' stacking limit */
	uint16_t request_timeout;   /* 7.43: seconds; 0 none */
	uint16_t unused[11];
};

/* fuse_open_out as of 7.40: the padding became the backing file's id. */
struct fk_open_out {
	uint64_t fh;
	uint32_t open_flags;
	int32_t backing_id;
};

/* Passthrough's backing files (7.40). */
struct fk_backing_map {
	int32_t fd;
	uint32_t flags;
	uint64_t padding;
};
#ifndef FUSE_DEV_IOC_BACKING_OPEN
#define FUSE_DEV_IOC_BACKING_OPEN _IOW(FUSE_DEV_IOC_MAGIC, 1, struct fk_backing_map)
#define FUSE_DEV_IOC_BACKING_CLOSE _IOW(FUSE_DEV_IOC_MAGIC, 2, uint32_t)
#endif

/*
 * FUSE over io_uring (7.42, Linux 6.14): requests come as completions of
 * IORING_OP_URING_CMD commands on /dev/fuse, one entry of a queue each,
 * instead of by read(2).  An entry is two buffers the kernel fills and the
 * daemon answers in place: the header below, and the payload (the request's
 * arguments after the opcode's own structure; the reply's arguments).
 */
#define FK_URING_IN_OUT_SZ 128
#define FK_URING_OP_IN_SZ 128
struct fk_uring_ent_in_out {
	uint64_t flags;
	uint64_t commit_id;         /* the request's, to be named by its commit */
	uint32_t payload_sz;        /* bytes of the payload in use, either way */
	uint32_t padding;
	uint64_t reserved;
};
struct fk_uring_req_header {
	char in_out[FK_URING_IN_OUT_SZ];  /* fuse_in_header; the reply's fuse_out_header */
	char op_in[FK_URING_OP_IN_SZ];    /* the opcode's own structure (fuse_open_in, ...) */
	struct fk_uring_ent_in_out ent;
};
/* The commands (the SQE's cmd_op), and their argument in its 80-byte cmd area. */
#define FK_URING_CMD_REGISTER 1          /* an entry for a queue, fetching */
#define FK_URING_CMD_COMMIT_AND_FETCH 2  /* the answer to its request, fetching again */
struct fk_uring_cmd_req {
	uint64_t flags;
	uint64_t commit_id;
	uint16_t qid;
	uint8_t padding[6];
};

#endif /* FK_PROTO_H */

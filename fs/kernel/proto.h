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

#endif /* FK_PROTO_H */

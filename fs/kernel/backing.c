/*
 * Passthrough (Linux 6.9+, FUSE_PASSTHROUGH): the kernel reads and writes
 * an open file's backing file itself.  The kernel holds every open of a
 * node to one mode, so the session keeps, per node with open files, the
 * backing id they share and how many there are:
 *
 * - the node's first open registers its descriptor (BACKING_OPEN) and
 *   passes it through; the kernel refuses a file on a filesystem stacked
 *   as deep as this mount allows (overlayfs under the tree, max_stack_depth
 *   1), and then that open and every other of the node while it is open go
 *   through the daemon as before;
 * - later opens share the id (the kernel refuses, with EIO to the caller,
 *   an open of a node open for passthrough that is not passthrough, or
 *   that names another backing file); the kernel opens the backing file
 *   anew for each open, with that open's flags and the daemon's
 *   credentials, so the first open's access mode binds no other;
 * - the last RELEASE unregisters the id (BACKING_CLOSE).
 *
 * Passthrough's reads come from the backing file's own pages, so the
 * handlers' FOPEN_DIRECT_IO for readers beside a writer (ops_file.c) is
 * dropped for them, and so is FOPEN_KEEP_CACHE, which the kernel refuses
 * beside FOPEN_PASSTHROUGH (measured on 6.18: EIO).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/ioctl.h>

#include "kernel/backing.h"

/* One open-files record per node with a backing file. */
struct fk_backing {
	uint64_t nodeid;
	int id;                    /* the kernel's backing id; 0: opens without one */
	unsigned opens;
	struct fk_backing *next;
};

#define SLOTS (sizeof(((struct fk_session *)0)->backings) / sizeof(struct fk_backing *))

static struct fk_backing **slot(struct fk_session *se, uint64_t nodeid)
{
	struct fk_backing **p = &se->backings[(nodeid * 0x9E3779B97F4A7C15ull) >> 56 & (SLOTS - 1)];

	while (*p && (*p)->nodeid != nodeid)
		p = &(*p)->next;
	return p;
}

static int backing_open(struct fk_session *se, int fd)
{
	struct fk_backing_map map = { .fd = fd };
	int id = ioctl(se->fd, FUSE_DEV_IOC_BACKING_OPEN, &map);

	return id > 0 ? id : 0;
}

/*
 * Counts the open about to be answered for nodeid and sets its flags:
 * FOPEN_PASSTHROUGH with the id returned, or 0 where the node's first open
 * could not be passed through.  -1 when the session has no passthrough
 * (nothing counted).
 */
int fk_backing_attach(struct fk_req *req, uint64_t nodeid, const struct fk_file_info *fi,
		      uint32_t *open_flags)
{
	struct fk_session *se = req->se;
	struct fk_backing **p, *b;
	int id = 0;

	if (!(se->conn.want & FUSE_PASSTHROUGH))
		return -1;
	pthread_mutex_lock(&se->backing_lock);
	p = slot(se, nodeid);
	b = *p;
	if (!b) {
		b = calloc(1, sizeof(*b));
		if (!b) {
			/* Uncounted: the open is the daemon's, as without passthrough. */
			pthread_mutex_unlock(&se->backing_lock);
			return -1;
		}
		b->nodeid = nodeid;
		*p = b;
		if (fi->backing_fd >= 0) {
			b->id = backing_open(se, fi->backing_fd);
			atomic_fetch_add(b->id ? &se->backing_opened : &se->backing_refused, 1);
		}
	}
	b->opens++;
	if (b->id) {
		id = b->id;
		*open_flags = (*open_flags & ~(FOPEN_DIRECT_IO | FOPEN_KEEP_CACHE)) |
			      FOPEN_PASSTHROUGH;
	}
	pthread_mutex_unlock(&se->backing_lock);
	return id;
}

static void drop(struct fk_session *se, uint64_t nodeid)
{
	struct fk_backing **p, *b;
	uint32_t id;

	pthread_mutex_lock(&se->backing_lock);
	p = slot(se, nodeid);
	b = *p;
	if (b && --b->opens == 0) {
		*p = b->next;
		id = (uint32_t)b->id;
		if (id)
			ioctl(se->fd, FUSE_DEV_IOC_BACKING_CLOSE, &id);
		free(b);
	}
	pthread_mutex_unlock(&se->backing_lock);
}

/* The reply of a counted open did not reach the kernel. */
void fk_backing_undo(struct fk_session *se, uint64_t nodeid)
{
	drop(se, nodeid);
}

void fk_backing_release(struct fk_session *se, uint64_t nodeid)
{
	if (se->conn.want & FUSE_PASSTHROUGH)
		drop(se, nodeid);
}

void fk_backing_forget_all(struct fk_session *se)
{
	for (size_t i = 0; i < SLOTS; i++)
		while (se->backings[i]) {
			struct fk_backing *b = se->backings[i];

			se->backings[i] = b->next;
			free(b);
		}
}

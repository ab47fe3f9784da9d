/*
 * The nodes by file handle (part of the node layer, handles.h): the watcher
 * (notice.c) learns of objects by the handles fanotify reports, and most
 * events on a backing filesystem concern objects the kernel never asked
 * us about — a hash lookup answers those without a system call.  Nodes
 * without a handle (path locators) are not here.  Under the table lock.
 */
#include <stdlib.h>
#include <string.h>

#include "tree/handles.h"

static size_t hash(int type, const unsigned char *bytes, size_t len)
{
	uint64_t h = 0xcbf29ce484222325u ^ (uint64_t)(unsigned)type;

	for (size_t i = 0; i < len; i++)
		h = (h ^ bytes[i]) * 0x100000001b3u;
	return (size_t)(h ^ h >> 32);
}

static struct cfs_inode **slot(struct cfs_nodes *nt, int type, const unsigned char *bytes,
			       size_t len)
{
	return &nt->htable[hash(type, bytes, len) & (nt->hsize - 1)];
}

/* Doubles the buckets when there are as many nodes; a failed grow is harmless. */
static void grow(struct cfs_nodes *nt)
{
	size_t old = nt->hsize, size = old ? old * 2 : 1024;
	struct cfs_inode **prev = nt->htable, *in, *next;

	if (nt->hcount < old || !(nt->htable = calloc(size, sizeof(*nt->htable)))) {
		nt->htable = prev;
		return;
	}
	nt->hsize = size;
	for (size_t i = 0; i < old; i++)
		for (in = prev[i]; in; in = next) {
			struct cfs_inode **s = slot(nt, in->handle_type, in->handle, in->handle_len);

			next = in->hnext;
			in->hnext = *s;
			*s = in;
		}
	free(prev);
}

void handles_add(struct cfs_nodes *nt, struct cfs_inode *in)
{
	struct cfs_inode **s;

	grow(nt);
	if (!nt->htable)
		return;
	s = slot(nt, in->handle_type, in->handle, in->handle_len);
	in->hnext = *s;
	*s = in;
	in->in_handles = true;
	nt->hcount++;
}

void handles_remove(struct cfs_nodes *nt, struct cfs_inode *in)
{
	struct cfs_inode **p;

	if (!in->in_handles)
		return;
	for (p = slot(nt, in->handle_type, in->handle, in->handle_len); *p != in; p = &(*p)->hnext)
		;
	*p = in->hnext;
	in->in_handles = false;
	nt->hcount--;
}

/* The node whose handle is fh, pinned (release with inode_put), or NULL. */
struct cfs_inode *handles_find(struct cfs_nodes *nt, const struct file_handle *fh)
{
	struct cfs_inode *in = NULL;

	const struct file_handle *root = &nt->root_handle.fh;

	pthread_mutex_lock(&nt->lock);
	if (root->handle_bytes && root->handle_type == fh->handle_type &&
	    root->handle_bytes == fh->handle_bytes &&
	    memcmp(root->f_handle, fh->f_handle, fh->handle_bytes) == 0)
		in = nt->root;
	else if (nt->htable && fh->handle_bytes <= MAX_HANDLE_SZ)
		for (in = *slot(nt, fh->handle_type, fh->f_handle, fh->handle_bytes); in;
		     in = in->hnext)
			if (in->handle_type == fh->handle_type && in->handle_len == fh->handle_bytes &&
			    memcmp(in->handle, fh->f_handle, fh->handle_bytes) == 0)
				break;
	if (in)
		in->fde.pins++;
	pthread_mutex_unlock(&nt->lock);
	return in;
}

void handles_destroy(struct cfs_nodes *nt)
{
	free(nt->htable);
	nt->htable = NULL;
}

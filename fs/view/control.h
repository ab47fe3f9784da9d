/*
 * The control of a mounted overlay view (fs/view/DESIGN.md, "Changing the
 * layers of a mounted view"): an ioctl on the view's root directory,
 * which the casefold tool's verb view sends (cli/view.c) and ovl_ops.c
 * answers.  An ioctl, because it is a request of the mount itself: the
 * kernel says who asks (only the daemon's user or root may), it reaches
 * exactly this mount, it needs no name anyone could take first (a socket's)
 * and it holds no lock of the root's inode (a setxattr does, which the
 * notices that follow a change must take).  The reply comes once every
 * name that changed is invalidated: the caller's next lookup sees them.
 */
#ifndef CFS_VIEW_CONTROL_H
#define CFS_VIEW_CONTROL_H

#include <linux/ioctl.h>
#include <stdint.h>

enum view_ctl_op {
	VIEW_CTL_SET = 1,     /* a: a layers file (absolute); its layers replace
				 the lower ones */
	VIEW_CTL_ADD = 2,     /* a: a directory (absolute), added above the
				 layer b names, or on top if b is empty */
	VIEW_CTL_REMOVE = 3,  /* a: the lower layer to remove */
	VIEW_CTL_UPPER = 4,   /* a: the new upper layer, b: its work directory
				 (both absolute); c: a layers file whose
				 layers replace the lower ones in the same
				 change (a profile switch), or empty */
};

/* A layer is named by its path, or by its last component if that is
 * unique among the lower layers.  The reply's a says why a change was
 * refused (the ioctl fails with its errno).  12 KiB: an ioctl's size has
 * 14 bits, and the kernel's FUSE passes up to its max_pages (32). */
struct view_ctl {
	uint32_t op;          /* enum view_ctl_op */
	uint32_t zero;
	char a[4096];
	char b[4096];
	char c[4096];
};

#define VIEW_CTL_IOC _IOWR('C', 0x43, struct view_ctl)

#endif /* CFS_VIEW_CONTROL_H */

/* casefoldfs's command line as data (see usage.h), and its --help text. */
#include <string.h>

#include "main/usage.h"

const struct cfs_usage_opt cfs_usage_opts[] = {
	{ "casefold", "ENCODING",
	  "encoding of a new backing tree: utf8-12.1.0\n"
	  "(the default; what ext4 uses), any utf8-X.Y.Z the\n"
	  "library supports, ascii, or none (no directory\n"
	  "can be casefolded)" },
	{ "strict_encoding", NULL,
	  "invalid UTF-8 in a casefolded directory is EINVAL\n"
	  "on create; on lookup only if it cannot be folded" },
	{ "keep_ignorables", NULL,
	  "Default_Ignorable code points are significant\n"
	  "(Linux strips them)" },
	{ "normalize_all", NULL,
	  "plain directories ignore canonical equivalence\n"
	  "too (still case-sensitive and name-preserving)" },
	{ "noepoch", NULL,
	  "no dentry caching in casefolded directories, even\n"
	  "where the kernel could expire it (Linux 6.16+)" },
	{ "fd_cache", "N",
	  "backing descriptors kept open for reuse, 16 to\n"
	  "1048576 (default 4096, at most a quarter of\n"
	  "RLIMIT_NOFILE), and as many for removed objects\n"
	  "still in use; the daemon's descriptors do not\n"
	  "grow with the tree" },
	{ "index_mem", "MIB",
	  "memory for the name indexes of casefolded\n"
	  "directories (an overlay view's: its merged\n"
	  "directories), in MiB, 1 to 1048576 (default 128,\n"
	  "about a million names of 40 bytes); least\n"
	  "recently used indexes are dropped and rebuilt\n"
	  "when needed" },
	{ "nohandles", NULL,
	  "find objects again by parent and name, never by\n"
	  "file handle (what an unprivileged daemon does)" },
	{ "flagstore", "STORE",
	  "where a new tree keeps its directories' casefold\n"
	  "flags: trusted (trusted.* xattrs, root only; the\n"
	  "default for root) or user (user.* xattrs; the\n"
	  "default for other users, and mountable by both)" },
	{ "cache", "MODE",
	  "how changes made in the backing tree behind the\n"
	  "daemon's back are noticed: fanotify (root: one\n"
	  "mark on the backing filesystem), inotify (a watch\n"
	  "per directory), timeout (not at all), or auto\n"
	  "(the default: the first of these that works).\n"
	  "A watched change shows within 20 ms of its\n"
	  "notice, one that makes none (shared mmap) within\n"
	  "10 s; the rest within the timeout" },
	{ "timeout", "SECONDS",
	  "how long the kernel may cache entries, attributes\n"
	  "and data that no watch covers (default 1): the\n"
	  "bound on how late an unwatched change shows" },
	{ "opens", "WHO",
	  "daemon (the default): every open asks the daemon,\n"
	  "which keeps reads exact while another process\n"
	  "truncates and rewrites the file; kernel: opens\n"
	  "cost no request (root, local backing filesystems\n"
	  "only), but such a read can return zeros" },
	{ "case_rename", NULL,
	  "a rename between two spellings of one name in a\n"
	  "casefolded directory stores the new spelling, as\n"
	  "on Windows (ext4 and the default: nothing changes);\n"
	  "non-directories only.  Other spellings of a file are\n"
	  "then other inodes to the kernel, as hard links on\n"
	  "many FUSE filesystems" },
	{ "casefold_nonempty", NULL,
	  "chattr +F on a non-empty directory succeeds when\n"
	  "no two of its names are equal under folding (ext4\n"
	  "and the default: ENOTEMPTY); else ENOTEMPTY and the\n"
	  "log names them.  Its subdirectories keep their own\n"
	  "flags: casefold convert does a whole tree" },
	{ "nfs_nodes", "N",
	  "for an NFS export of a backing filesystem whose\n"
	  "file handles are not 32-bit inode and generation\n"
	  "(tmpfs, btrfs): keep up to N objects the kernel has\n"
	  "forgotten (about 100 bytes each), so that NFS\n"
	  "clients' file handles of them stay valid (0 to\n"
	  "100000000; default 0: such handles are stale;\n"
	  "needs file handles)" },
	{ "request_timeout", "SECONDS",
	  "a request the daemon has not answered after this\n"
	  "long ends the mount, so that no process waits on\n"
	  "a hung daemon for ever (Linux 6.14+; the kernel\n"
	  "checks every 15 seconds): 0 to 65535, default 600,\n"
	  "0 none" },
	{ "nopassthrough", NULL,
	  "root's daemon leaves reads and writes of open\n"
	  "files to the kernel where it can (passthrough,\n"
	  "Linux 6.9+); with this option the daemon serves\n"
	  "them all, as an ordinary user's daemon does" },
	{ "uring", NULL,
	  "take requests by FUSE over io_uring where the\n"
	  "kernel offers it (Linux 6.14+, once root has set\n"
	  "the fuse module's enable_uring): a system call\n"
	  "less a request; each CPU's queue has its share of\n"
	  "max_threads, each with a thread of its own" },
	{ "logfile", "FILE",
	  "where the detached daemon appends its messages\n"
	  "(default: syslog, or without one the file named\n"
	  "at mount time)" },
	{ "lowerdir", "DIR[:DIR...]",
	  "mount an overlay view instead of BACKING: one\n"
	  "case-insensitive tree over these layers, top first\n"
	  "(as for overlayfs; \\: in a path is a colon).\n"
	  "They are read only; names equal under folding are\n"
	  "one entry, in one layer too: directories merge,\n"
	  "the top layer's smallest spelling of a file wins" },
	{ "layers", "FILE",
	  "the lower layers as a file instead of lowerdir:\n"
	  "one directory a line, top first (a relative path\n"
	  "is taken from FILE's directory); no 4 KiB option\n"
	  "limit: up to 65,535 layers" },
	{ "upperdir", "DIR",
	  "the view's writable layer: what is written, made\n"
	  "or removed through the view lands there (copies of\n"
	  "lower files, whiteouts); without it the view is\n"
	  "read-only" },
	{ "workdir", "DIR",
	  "an empty directory on upperdir's filesystem where\n"
	  "changes are prepared before they land" },
	{ NULL, NULL, NULL },
};

const char *const cfs_usage_notes[] = {
	"A backing tree keeps the encoding, flags and flag store of its first mount\n"
	"(the file .casefoldfs at its root); a later option that contradicts them\n"
	"fails.",
	"Root or an ordinary user may mount (a user's mount goes through\n"
	"fusermount3; unmount with fusermount3 -u).  A user's daemon cannot chown:\n"
	"everything created belongs to that user.",
	"Make an empty directory case-insensitive with chattr +F, and plain again\n"
	"with chattr -F; new subdirectories inherit the flag.  With\n"
	"casefold_nonempty, a directory with entries may become case-insensitive\n"
	"too (Proton does this to a game's drive_c); its subdirectories keep\n"
	"their own flags.",
	"The mount can be exported over NFS (exportfs with fsid=).  Root's daemon\n"
	"on ext2/3/4 (or another filesystem whose file handles are a 32-bit inode\n"
	"number and generation) gives NFS file handles that stay valid as long as\n"
	"their objects exist, across a restart too.  Elsewhere (an ordinary\n"
	"user's daemon, nohandles, tmpfs, btrfs) handles of objects the kernel\n"
	"has forgotten are stale unless nfs_nodes keeps them, and those from\n"
	"before a restart are stale.",
	"Which cache mode a mount is in, and so how late a change made in the\n"
	"backing tree behind its back can show: getfattr -n trusted.casefoldfs.stats\n"
	"MOUNTPOINT (user.casefoldfs.stats for a user's tree) says cache fanotify or\n"
	"cache inotify (at once, but for directories an inotify watch could not\n"
	"cover), or cache timeout (within -o timeout seconds).",
	"An overlay view: casefoldfs -o lowerdir=MOD2:MOD1:GAME,upperdir=U,workdir=W\n"
	"[overlay] MOUNTPOINT.  Every directory of the view is case-insensitive\n"
	"under casefold=ENCODING; the layers need no flags and may be on any\n"
	"filesystems, but must not change while the view is mounted.  Whiteouts\n"
	"and opaque directories are overlayfs's (user.overlay.* xattrs).",
	"Without -f the daemon detaches and logs to syslog (journalctl -t casefoldfs,\n"
	"or /var/log/syslog), or to -o logfile=FILE.  Where no system log listens\n"
	"on /dev/log, it says so at mount time and logs to /var/log/casefoldfs.log\n"
	"(root) or ~/.local/state/casefoldfs.log ($XDG_STATE_HOME; a user).  With\n"
	"-f (or -d) it stays in the foreground and logs to standard error.",
	NULL,
};

/* Help starts in this column, as in the other FUSE tools' --help. */
#define HELP_COLUMN 27

void cfs_usage_line(FILE *f, const char *prog)
{
	fprintf(f, "usage: %s %s\n       %s %s\n", prog, CFS_USAGE_SYNOPSIS, prog,
		CFS_USAGE_VIEW);
}

void cfs_usage(FILE *f, const char *prog)
{
	cfs_usage_line(f, prog);
	fputs("\ncasefoldfs options:\n", f);
	for (const struct cfs_usage_opt *o = cfs_usage_opts; o->name; o++) {
		int width = fprintf(f, "    -o %s%s%s", o->name, o->arg ? "=" : "",
				    o->arg ? o->arg : "");

		for (const char *s = o->help;; s++) {
			size_t n = strcspn(s, "\n");

			fprintf(f, "%*s%.*s\n", width < HELP_COLUMN ? HELP_COLUMN - width : 1, "",
				(int)n, s);
			s += n;
			if (!*s)
				break;
			width = 0;
		}
	}
	for (const char *const *p = cfs_usage_notes; *p; p++)
		fprintf(f, "\n%s\n", *p);
	fputs("\nFUSE options:\n", f);
}

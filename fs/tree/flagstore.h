/*
 * Where the casefold flag of a backing directory lives: the xattr
 * PREFIX "casefold" (value "1"), PREFIX per store.  Every xattr with
 * either prefix is ours: hidden from listxattr, refused.  Except, under the
 * tree's own prefix, "index" (read-only on directories: the index's
 * statistics) and "stats" (read-only on the root: the node table's figures).
 */
#ifndef CFS_FLAGSTORE_H
#define CFS_FLAGSTORE_H

#include <stdbool.h>
#include <stddef.h>

enum cfs_store {
	CFS_STORE_TRUSTED, /* only CAP_SYS_ADMIN may touch it: root's trees */
	CFS_STORE_USER,    /* what an unprivileged daemon can write */
};
#define CFS_TRUSTED_PREFIX "trusted.casefoldfs."
#define CFS_USER_PREFIX "user.casefoldfs."

void flagstore_use(enum cfs_store s);
const char *flagstore_name(enum cfs_store s);
int flagstore_parse(const char *word, enum cfs_store *s);
int flagstore_get(int fd, bool *on);
int flagstore_set(int fd, bool on);
bool flagstore_hidden(const char *xattr);
bool flagstore_is(const char *xattr, const char *suffix);
int flagstore_probe(int rootfd, char *msg, size_t len);

#endif /* CFS_FLAGSTORE_H */

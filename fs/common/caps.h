/*
 * Capabilities: what this daemon may do (root, or an ordinary user), and
 * this thread's sets, which caller.c cuts to a caller's for one call.
 */
#ifndef CFS_CAPS_H
#define CFS_CAPS_H

#include <stdbool.h>
#include <stdint.h>

/* A thread's capability sets, as capget(2) gives them (version 3). */
struct caps_sets {
	struct { uint32_t effective, permitted, inheritable; } data[2];
};

int caps_get(struct caps_sets *s);
int caps_set(const struct caps_sets *s);
bool caps_effective(const struct caps_sets *s, int cap);
void caps_drop_effective(struct caps_sets *s, int cap);
bool caps_have(int cap);

#endif /* CFS_CAPS_H */

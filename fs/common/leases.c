/* The bound on workers waiting for lease breaks (leases.h). */
#include <stdatomic.h>

#include "common/leases.h"

static atomic_uint waiting;
static unsigned waiting_max = 2;

/* At start: a quarter of the worker pool, or less (main.c); 0 means 1. */
void lease_set_waiters(unsigned max)
{
	waiting_max = max ? max : 1;
}

/* Whether one more worker may wait; if so, lease_wait_end when done. */
bool lease_wait_begin(void)
{
	if (atomic_fetch_add(&waiting, 1) < waiting_max)
		return true;
	atomic_fetch_sub(&waiting, 1);
	return false;
}

void lease_wait_end(void)
{
	atomic_fetch_sub(&waiting, 1);
}

/*
 * The session's end, from any thread that sees it: a worker whose read
 * says the mount is gone, an io_uring queue that cannot go on.  The main
 * thread, waiting in sigwait (loop.c), takes it from there.
 */
#include <signal.h>

#include "kernel/internal.h"

void fk_session_end(struct fk_session *se)
{
	if (atomic_exchange(&se->ended, 1) == 0)
		pthread_kill(se->main_thread, SIGUSR1);
}

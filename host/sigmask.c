/*
 * The calling thread's signal mask around the creation of foreign host
 * threads (see sigmask.h).
 */
#include <pthread.h>
#include <signal.h>

#include "host/sigmask.h"

void
host_sigmask_block_all(struct host_sigmask *old)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old->hs_set);
}

void
host_sigmask_restore(const struct host_sigmask *old)
{
	pthread_sigmask(SIG_SETMASK, &old->hs_set, NULL);
}

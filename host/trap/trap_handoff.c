/*
 * Hand-offs between guests on one CPU (latency placement).
 *
 * In latency placement a parked guest thread spins for its reply (the
 * vkernel's CPU answers a system call within microseconds, and a wake-up
 * across cores costs 40-60 us on these hosts), and all the stubs of one
 * CPU share one host core.  When the CPU resumes another guest thread
 * instead (the first blocked: a pipe read, a wait, a futex), the first
 * one's spin holds that core for up to its whole spin while the thread
 * just woken waits behind it, and the CPU, waiting for a report that
 * cannot come, goes to sleep: each hand-off then paid a spin and a
 * wake-up across cores (a pipe round trip took 170 us, against 20-35 us
 * with everything on one core).  So once the new thread is told to go,
 * the old one is told to stop spinning (WW_YIELD on its reply word): it
 * sleeps at once and the host switches its core to the thread just
 * woken, a hand-off on one core, which reports while the CPU still spins.
 */
#include "host/hostsync.h"
#include "host/trap/trap.h"

/*
 * vmspace_ops.yield: thread n, if parked and spinning (its reply word
 * has nothing, not even "sleeping"), stops spinning.  Never blocks:
 * with vh->lock taken elsewhere the hint is dropped.  A guest sees
 * nothing of it but an earlier sleep; a thread resumed meanwhile by
 * another CPU finds the bit at its next wait and only skips that spin.
 */
void
trap_yield(struct vmspace_host *vh, int n)
{
	if (!host_mutex_trylock(&vh->lock))
		return;
	struct trap_thread *t = trap_thread_get(vh, n);
	uint32_t idle = 0;
	if (t != NULL && __atomic_load_n(&t->parked, __ATOMIC_ACQUIRE))
		(void)__atomic_compare_exchange_n(&t->thr->reply, &idle,
		    WW_YIELD, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	host_mutex_unlock(&vh->lock);
}

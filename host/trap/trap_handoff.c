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
 *
 * Still, each such hand-off costs the CPU a futex wake of the new thread
 * (a host system call on another core's run queue, 1-2 us) and the old
 * thread a futex wait.  With WW_POLL the old thread first gives its core
 * away with sched_yield, a few times, looking at its reply in between
 * (host/trap/stub/stub.c): when the CPU comes back to it soon (the other
 * end of a pipe answered), it is still runnable and finds its reply with
 * no wake at all; a pipe round trip between two processes then costs
 * two sched_yields per hand-off and no futex call (8 us against 20 here,
 * quiet).  But a yield puts the yielder behind every other task on its
 * core (the host moves its deadline a time slice on): with other work
 * there, a polling thread waits slices for its turn where a woken
 * sleeper comes back first (a round trip took 200-700 us instead of
 * 50-150 under a load average of 11).  So the CPU asks for polling only
 * while hand-offs come back fast: a run after a polled hand-off whose
 * report takes longer than the CPU's spin turns polling off on this CPU
 * for TRAP_POLL_OFF_NS.
 */
#include "host/clock.h"
#include "host/hostsync.h"
#include "host/trap/trap.h"

#define TRAP_POLL_OFF_NS	100000000UL	/* 100 ms */

/* The calling CPU's: polling is off until then; when it asked for it. */
static __thread uint64_t poll_off_until, polled_at;
static __thread bool polled;

/*
 * vmspace_ops.yield: thread n, if parked and spinning (its reply word
 * has nothing, not even "sleeping"), stops spinning, polling first if
 * the core is quiet.  Never blocks:
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
	uint64_t now = host_nanotime();
	uint32_t idle = 0, bits = now >= poll_off_until ? WW_YIELD | WW_POLL :
	    WW_YIELD;
	if (t != NULL && __atomic_load_n(&t->parked, __ATOMIC_ACQUIRE) &&
	    __atomic_compare_exchange_n(&t->thr->reply, &idle, bits, false,
	    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST) && (bits & WW_POLL)) {
		polled = true;
		polled_at = now;
	}
	host_mutex_unlock(&vh->lock);
}

/*
 * The calling CPU has the first report of the run it began with a
 * hand-off, if any; spin_ns is how long it spins.  A report later than
 * that after a polled hand-off turns polling off for a while.  Costs a
 * thread-local load on every other run.
 */
void
trap_handoff_done(uint64_t spin_ns)
{
	if (!polled)
		return;
	polled = false;
	uint64_t now = host_nanotime();
	if (now - polled_at > spin_ns)
		poll_off_until = now + TRAP_POLL_OFF_NS;
}

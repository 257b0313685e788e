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
 * while polled hand-offs come back fast: each is timed from the yield to
 * the moment the thread resumed took its reply (its reply word cleared,
 * seen while the CPU spins for its report), and when 2 of the last 16
 * took longer than the CPU's spin, polling stays off on this CPU for
 * TRAP_POLL_OFF_NS.  (It went off at the first slow one: one tick or
 * one host daemon on the stubs' core in 100 ms then cost every hand-off
 * of those 100 ms a futex wake and a wait, and a quiet host ran pipe
 * round trips at the futex figure, 15 us, not 8.  A hand-off was also
 * timed to the resumed thread's next report, so a guest computing a
 * while after its reply counted as slow.)
 */
#include "host/clock.h"
#include "host/hostsync.h"
#include "host/trace.h"
#include "host/trap/trap.h"

#define TRAP_POLL_OFF_NS	100000000UL	/* 100 ms */
#define TRAP_POLL_WINDOW	16	/* polled hand-offs looked back on */
#define TRAP_POLL_SLOW_MAX	2	/* slow ones among them: polling off */

/* The calling CPU's polling state: see trap_poll_judge. */
static __thread struct trap_pollstate poll;

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
	uint32_t idle = 0, bits = now >= poll.off_until ? WW_YIELD | WW_POLL :
	    WW_YIELD;
	if (t != NULL && __atomic_load_n(&t->parked, __ATOMIC_ACQUIRE) &&
	    __atomic_compare_exchange_n(&t->thr->reply, &idle, bits, false,
	    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		TRACE(TR_T_YIELDED);
		if (bits & WW_POLL)
			poll.polled_at = now;
	}
	host_mutex_unlock(&vh->lock);
}

/*
 * One polled hand-off took latency_ns (from the yield until the thread
 * resumed had its reply); spin_ns is how long the CPU spins.  Slow is
 * longer than that spin: the core had other work, and a woken sleeper
 * would have come back sooner.  With TRAP_POLL_SLOW_MAX slow ones among
 * the last TRAP_POLL_WINDOW, polling is off until now + TRAP_POLL_OFF_NS
 * and the count starts over.  Pure, for the tests.
 */
void
trap_poll_judge(struct trap_pollstate *ps, uint64_t latency_ns,
    uint64_t spin_ns, uint64_t now)
{
	bool slow = latency_ns > spin_ns;

	ps->history = (ps->history << 1 | slow) &
	    ((1u << TRAP_POLL_WINDOW) - 1);
	if (__builtin_popcount(ps->history) >= TRAP_POLL_SLOW_MAX) {
		ps->off_until = now + TRAP_POLL_OFF_NS;
		ps->history = 0;
	}
}

/*
 * The CPU spins for the report of thread t, resumed with a hand-off: if
 * it was a polled one, and t has taken its reply, that hand-off is
 * judged.  Costs a thread-local load at each turn of the spin, and while
 * such a hand-off is pending a load of the reply word, on the line the
 * spin reads anyway.
 */
void
trap_handoff_poll(struct trap_thread *t, uint64_t now, uint64_t spin_ns)
{
	if (poll.polled_at == 0 ||
	    (__atomic_load_n(&t->thr->reply, __ATOMIC_ACQUIRE) & WW_POSTED))
		return;
	trap_poll_judge(&poll, now - poll.polled_at, spin_ns, now);
	poll.polled_at = 0;
}

/*
 * The calling CPU has the first report of the run it began with a
 * hand-off, if any: a polled hand-off not judged while it spun is judged
 * now (the report proves the reply taken by then).
 */
void
trap_handoff_done(uint64_t spin_ns)
{
	if (poll.polled_at == 0)
		return;
	uint64_t now = host_nanotime();
	trap_poll_judge(&poll, now - poll.polled_at, spin_ns, now);
	poll.polled_at = 0;
}

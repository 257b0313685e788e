/*
 * The stage trace: where the time of a system call, a hand-off or a
 * switch goes, built in only with `make TRACE=1` (-DVK_TRACE; otherwise
 * every TRACE() is nothing).  Each host thread stamps the points it
 * passes with the TSC; the time between two consecutive points of one
 * thread is added to that pair's sum.  The stub stamps its side in its
 * slot (stub_abi.h, struct stub_trace), which the CPU that takes the
 * report puts on its own line of points (TRACE_AT), the TSC being one
 * clock for all cores.  At exit the pairs, their counts and mean times
 * go to standard error, one line each, most time first.
 */
#ifndef HOST_TRACE_H
#define HOST_TRACE_H

#include <stdint.h>

#include "host/clock.h"

enum trace_point {
	TR_NONE,
	TR_K_USERRET,		/* lwp_main: userret done, to run the guest */
	TR_T_RUN,		/* trap_run: entry */
	TR_T_PREP,		/* trap_run: registers written, to lock */
	TR_T_LOCKED,		/* trap_run: locked, to post */
	TR_T_WOKEN,		/* trap_reply_post: the stub woken (futex) */
	TR_T_POSTED,		/* trap_run: the reply posted */
	TR_T_YIELDED,		/* trap_yield: the previous guest told to yield */
	TR_T_HANDOFF,		/* trap_run: the previous guest told to yield */
	TR_S_SEEN,		/* stub: the reply seen */
	TR_S_POST,		/* stub: its next report posted */
	TR_T_REPORT,		/* trap_wait_report: the report seen */
	TR_T_RETURN,		/* trap_run: returns */
	TR_K_LOCKED,		/* lwp_main: the big lock held again */
	TR_K_PATCHED,		/* trap_dispatch: syspatch_enter done */
	TR_K_SYSCALL,		/* syscall_dispatch: the call returned */
	TR_K_SWITCH,		/* sched_run: to thread_switch */
	TR_K_SWITCHED,		/* sched_run: back from thread_switch */
	TR_K_DISPATCHED,	/* lwp_main: trap_dispatch returned */
	TR_N
};

#ifdef VK_TRACE
void trace_at(enum trace_point p, uint64_t tsc);
#define TRACE(p)		trace_at((p), host_rdtsc())
#define TRACE_AT(p, tsc)	trace_at((p), (tsc))
#else
#define TRACE(p)		((void)0)
#define TRACE_AT(p, tsc)	((void)0)
#endif

#endif /* HOST_TRACE_H */

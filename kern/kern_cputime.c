/*
 * CPU time of threads and processes.  A guest thread's user time is what
 * the host layer reports its guest used while it ran (tf_cputime of each
 * VMSPACE_CTL_RUN); its system time is the rest of its kernel thread's
 * time on a CPU, the runs themselves excepted (while the guest runs, the
 * CPU only waits for it).  The clocks, times, getrusage and /proc all
 * read them here.
 */
#include <string.h>

#include "kern/proc.h"

/* ns td has spent on a CPU, its current stretch included. */
static uint64_t
thread_runtime(const struct thread *td)
{
	uint64_t t = td->td_runtime;
	if (td->td_state == TDS_RUNNING)
		t += nanouptime() - td->td_switched_at;
	return t;
}

void
lwp_run_begin(struct lwp *lp, uint64_t now)
{
	lp->lwp_runstart = now;
}

void
lwp_run_end(struct lwp *lp, uint64_t cputime, uint64_t now)
{
	lp->lwp_runwait += now - lp->lwp_runstart;
	lp->lwp_runstart = 0;
	lp->lwp_utime += cputime;
}

void
lwp_cputime(const struct lwp *lp, uint64_t *utime, uint64_t *stime)
{
	uint64_t busy = 0, wait = lp->lwp_runwait;

	if (lp->lwp_thread != NULL) {
		busy = thread_runtime(lp->lwp_thread);
		if (lp->lwp_runstart != 0)
			wait += nanouptime() - lp->lwp_runstart;
	}
	*utime = lp->lwp_utime;
	*stime = busy > wait ? busy - wait : 0;
}

void
lwp_cputime_fold(struct lwp *lp)
{
	uint64_t u, s;
	lwp_cputime(lp, &u, &s);
	lp->lwp_proc->p_utime += u;
	lp->lwp_proc->p_stime += s;
	lp->lwp_utime = 0;
	lp->lwp_runwait = 0;
	lp->lwp_thread = NULL;
}

void
proc_cputime(const struct proc *p, uint64_t *utime, uint64_t *stime)
{
	const struct lwp *lp;
	uint64_t u, s;

	*utime = p->p_utime;
	*stime = p->p_stime;
	TAILQ_FOREACH(lp, &p->p_lwps, lwp_link) {
		if (lp->lwp_thread == NULL)
			continue;	/* folded into p_utime at its exit */
		lwp_cputime(lp, &u, &s);
		*utime += u;
		*stime += s;
	}
}

void
rusage_fill(struct rusage *ru, uint64_t utime, uint64_t stime)
{
	memset(ru, 0, sizeof(*ru));
	ru->ru_utime.tv_sec = (time_t)(utime / 1000000000u);
	ru->ru_utime.tv_usec = (suseconds_t)(utime % 1000000000u / 1000);
	ru->ru_stime.tv_sec = (time_t)(stime / 1000000000u);
	ru->ru_stime.tv_usec = (suseconds_t)(stime % 1000000000u / 1000);
}

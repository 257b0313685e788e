/*
 * Job control: the group stop.  The thread that takes a stop signal
 * marks its process P_STOPPING and wakes the others; each stops on its
 * way to user mode (sigstop_wait), and the last one to stop makes the
 * process P_STOPPED and tells the parent.  SIGCONT (kern_sig.c,
 * sig_prepare) clears both and wakes them all; SIGKILL and the end of
 * the process (killalllwps) end the wait.
 */
#include "kern/kernel.h"
#include "kern/signal.h"

/* Completes a group stop once every lwp of p is stopped. */
static void
sigstop_done(struct proc *p)
{
	if ((p->p_flags & P_STOPPING) && p->p_state == PRS_NORMAL &&
	    p->p_nstopped >= p->p_nlwps) {
		p->p_flags = (p->p_flags & ~P_STOPPING) | P_STOPPED;
		childsignal(p, CLD_STOPPED, WSTOPSIG(p->p_xstat));
	}
}

void
signal_lwp_free(struct lwp *lp)
{
	sigqueue_flush(&lp->lwp_siglist, &lp->lwp_sigqueue, ~(ksigset_t)0);
	/* The others may all be stopped, waiting for this one. */
	sigstop_done(lp->lwp_proc);
}

void
sigstop_wait(struct lwp *lp)
{
	struct proc *p = lp->lwp_proc;

	lp->lwp_flags |= LWP_STOPPED;
	p->p_nstopped++;
	sigstop_done(p);
	/*
	 * Killable only, as Linux's TASK_STOPPED: SIGKILL (killalllwps's
	 * kick too) ends the stop, SIGCONT wakes it; any other signal stays
	 * pending, and must not end the sleep over and over.
	 */
	while ((p->p_flags & (P_STOPPING | P_STOPPED)) &&
	    !(p->p_flags & P_WEXIT) && !sig_fatal(lp))
		tsleep(&p->p_flags, PKILL, "stopped", 0);
	p->p_nstopped--;
	lp->lwp_flags &= ~LWP_STOPPED;
}

void
sigstop(struct lwp *lp, int sig)
{
	struct proc *p = lp->lwp_proc;
	struct lwp *t;

	if (!(p->p_flags & (P_STOPPING | P_STOPPED))) {
		p->p_flags = (p->p_flags | P_STOPPING) & ~(P_WAITED | P_CONTINUED);
		p->p_xstat = W_STOPCODE(sig);
		TAILQ_FOREACH(t, &p->p_lwps, lwp_link)
			if (t != lp)
				sigwakeup(t);
	}
	sigstop_wait(lp);
}


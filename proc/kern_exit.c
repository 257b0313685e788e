/*
 * Thread and process exit, and wait.  A thread (lwp) that exits while
 * others of its process live is freed at once.  A process exits with its
 * last thread, or all at once (exit_group, a fatal signal: the others are
 * ended first, killalllwps); it gives up its address space and files,
 * becomes a zombie holding its status, and is freed by its parent's wait
 * (or init's, once orphaned).  When init exits the machine shuts down
 * with its status.
 */
#include <limits.h>
#include <linux/futex.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "fs/file.h"
#include "host/cpu.h"
#include "kern/futex.h"
#include "kern/init.h"
#include "kern/ptimer.h"
#include "kern/signal.h"
#include "kern/ucred.h"
#include "kern/uio.h"
#include "kern/kmem.h"
#include "proc/fork_stat.h"
#include "vm/vm.h"

/* The wait between two rounds of interrupting the lwps being ended. */
#define KILLLWPS_RETRY_NS	(10 * 1000 * 1000)

void (*proc_exit_hook)(struct proc *p, int xstat);
void (*proc_semexit_hook)(struct proc *p);

/*
 * Gets lp to notice that its process ends: a SIGKILL of its own, as
 * Linux's zap_other_threads, so that every loop that sleeps until a
 * signal is pending (pause, sigsuspend, wait) gives up; and the end of
 * its sleep, or of its run.
 */
static void
lwp_kick(struct lwp *lp)
{
	struct thread *td = lp->lwp_thread;
	if (td == NULL || td == curthread)
		return;
	lp->lwp_siglist |= SIGBIT(SIGKILL);
	if (td->td_state == TDS_SLEEPING)
		thread_interrupt(td);
	else if (td->td_state == TDS_RUNNING)
		cpu_post(td->td_cpu, INTR_KICK);	/* it may be in user mode */
}

int
killalllwps(struct lwp *lp)
{
	struct proc *p = lp->lwp_proc;
	struct lwp *lp2;

	KASSERT(kernel_locked(), "killalllwps: big lock not held");
	if (p->p_flags & P_WEXIT)
		return -1;
	p->p_flags |= P_WEXIT;
	/*
	 * Each ends itself on its way to user mode.  One that goes back to
	 * an interruptible sleep before it gets there is interrupted again
	 * on the next round; an uninterruptible sleep ends by itself.
	 */
	while (p->p_nlwps > 1) {
		TAILQ_FOREACH(lp2, &p->p_lwps, lwp_link)
			if (lp2 != lp)
				lwp_kick(lp2);
		(void)tsleep(&p->p_nlwps, 0, "killlwps", KILLLWPS_RETRY_NS);
	}
	return 0;
}

/*
 * What a thread's exit does to its user memory (Linux's mm_release): the
 * locks on its robust list are marked FUTEX_OWNER_DIED, and its
 * CHILD_CLEARTID word becomes 0 and its waiter is woken (pthread_join).
 */
static void
lwp_exit_user(struct lwp *lp)
{
	futex_exit_robust(lp);
	if (lp->lwp_clear_child_tid != 0) {
		uint32_t zero = 0;
		if (copyout(&zero, lp->lwp_clear_child_tid, sizeof(zero)) == 0)
			(void)futex_wake(lp->lwp_proc->p_vmspace,
			    lp->lwp_clear_child_tid, 1, FUTEX_BITSET_MATCH_ANY);
		lp->lwp_clear_child_tid = 0;
	}
}

void
lwp_exit(void)
{
	struct lwp *lp = curlwp;
	struct proc *p = lp->lwp_proc;

	KASSERT(p->p_nlwps > 1, "lwp_exit: the last lwp of its process");
	lwp_exit_user(lp);
	lwp_unhost(lp);
	lwp_cputime_fold(lp);		/* its thread is freed by thread_exit */
	curthread->td_lwp = NULL;
	lwp_free(lp);
	wakeup(&p->p_nlwps);
	thread_exit();
}

void
exit1(int xstat)
{
	struct lwp *lp = curlwp;
	struct proc *p = lp->lwp_proc, *q, *tmp;

	/* Another thread ends the process, with its own status. */
	if (killalllwps(lp) < 0)
		lwp_exit();
	uint64_t t0 = forkstat_now();
	lwp_exit_user(lp);
	if (proc_semexit_hook != NULL)
		proc_semexit_hook(p);	/* System V semaphores' SEM_UNDO */
	vfork_done(p);
	callout_stop(&p->p_itimer);
	ptimer_exit(p);
	fsproc_exit(&p->p_fs);
	lwp_unhost(lp);
	uint64_t t1 = forkstat_now();
	vmspace_free(p->p_vmspace);
	forkstat_stage(FST_EXIT_VM, t1);
	p->p_vmspace = NULL;

	/*
	 * Orphans go to the nearest living ancestor that asked to be a
	 * subreaper, else to init, which reaps them; a zombie among them is
	 * announced to its new parent.  Each gets its PR_SET_PDEATHSIG
	 * signal.  When init itself exits the machine goes down
	 * (kern_shutdown), and its children are killed.
	 */
	struct proc *reaper = initproc;
	for (q = p->p_pptr; q != NULL && q != initproc; q = q->p_pptr) {
		if ((q->p_flags & P_SUBREAPER) && q->p_state == PRS_NORMAL) {
			reaper = q;
			break;
		}
	}
	TAILQ_FOREACH_SAFE(q, &p->p_children, p_sibling, tmp) {
		if (p == initproc) {
			psignal_proc(q, SIGKILL);
			continue;
		}
		TAILQ_REMOVE(&p->p_children, q, p_sibling);
		q->p_pptr = reaper;
		TAILQ_INSERT_TAIL(&reaper->p_children, q, p_sibling);
		if (q->p_state == PRS_ZOMBIE) {
			if (reaper != initproc)
				childsignal_exit(q);
			wakeup(reaper);
		} else if (q->p_pdeathsig != 0) {
			psignal_proc(q, q->p_pdeathsig);
		}
	}
	/* Its session lives on, unled: its terminal is free to go (dev/tty.c). */
	if (p->p_pgrp != NULL && p->p_pgrp->pg_session->s_leader == p)
		p->p_pgrp->pg_session->s_leader = NULL;
	p->p_xstat = xstat;
	p->p_state = PRS_ZOMBIE;
	if (pidfd_exit_hook != NULL)
		pidfd_exit_hook(p);
	if (__builtin_expect(proc_exit_hook != NULL, 0))
		proc_exit_hook(p, xstat);
	lwp_cputime_fold(lp);		/* its thread is freed by thread_exit */
	forkstat_stage(FST_EXIT, t0);
	p->p_stat_ns = forkstat_now();
	if (p == initproc) {
		kern_shutdown(xstat);
	} else {
		childsignal_exit(p);
	}
	thread_exit();
}

void (*pidfd_exit_hook)(struct proc *p);
pid_t (*pidfd_pid_hook)(struct fsproc *fsp, int fd, bool *nonblock);

/* Does child q match wait4's pid argument for parent p? */
static bool
wait_matches(const struct proc *p, const struct proc *q, pid_t pid)
{
	if (pid > 0)
		return q->p_pid == pid;
	if (pid == -1)
		return true;
	if (pid == 0)
		return q->p_pgrp == p->p_pgrp;
	return q->p_pgrp != NULL && q->p_pgrp->pg_id == -pid;
}

/* Frees zombie q after its parent collected it. */
static void
proc_reap(struct proc *p, struct proc *q)
{
	struct lwp *lp;
	uint64_t u, s;
	proc_cputime(q, &u, &s);
	p->p_cutime += u + q->p_cutime;
	p->p_cstime += s + q->p_cstime;
	while ((lp = TAILQ_FIRST(&q->p_lwps)) != NULL)
		lwp_free(lp);
	sigacts_free(q);
	if (pidfd_exit_hook != NULL)
		pidfd_exit_hook(q);	/* its pollers look after the free */
	proc_free(q);
}

static void
wait_found(struct wait_result *wr, const struct proc *q, int status)
{
	wr->pid = q->p_pid;
	wr->uid = q->p_ucred != NULL ? q->p_ucred->cr_ruid : 0;
	wr->status = status;
	if (status == 0xffff) {
		wr->code = CLD_CONTINUED;
		wr->cld_status = SIGCONT;
	} else if (WIFSTOPPED(status)) {
		wr->code = CLD_STOPPED;
		wr->cld_status = WSTOPSIG(status);
	} else if (WIFSIGNALED(status)) {
		wr->code = WCOREDUMP(status) ? CLD_DUMPED : CLD_KILLED;
		wr->cld_status = WTERMSIG(status);
	} else {
		wr->code = CLD_EXITED;
		wr->cld_status = WEXITSTATUS(status);
	}
}

long
kern_wait(struct lwp *lp, pid_t pid, int options, struct wait_result *wr,
    struct rusage *ru)
{
	struct proc *p = lp->lwp_proc, *q;
	bool keep = (options & WNOWAIT) != 0;

	if (pid == INT_MIN)
		return -ESRCH;		/* as Linux: -INT_MIN is no group */
	uint64_t slept = 0;		/* when it first slept (fork_stat.h) */
	for (;;) {
		bool any = false;
		TAILQ_FOREACH(q, &p->p_children, p_sibling) {
			if (!wait_matches(p, q, pid))
				continue;
			any = true;
			if (q->p_state == PRS_NORMAL && (options & WSTOPPED) &&
			    (q->p_flags & (P_STOPPED | P_WAITED)) == P_STOPPED) {
				if (!keep)
					q->p_flags |= P_WAITED;
				wait_found(wr, q, q->p_xstat);
				return q->p_pid;
			}
			if (q->p_state == PRS_NORMAL && (options & WCONTINUED) &&
			    (q->p_flags & P_CONTINUED)) {
				if (!keep)
					q->p_flags &= ~P_CONTINUED;
				wait_found(wr, q, 0xffff);
				return q->p_pid;
			}
			if (q->p_state != PRS_ZOMBIE || !(options & WEXITED))
				continue;
			wait_found(wr, q, q->p_xstat);
			forkstat_stage(FST_WAKE, q->p_stat_ns);
			forkstat_stage(FST_WAIT, slept);
			if (ru != NULL) {
				uint64_t u, s;
				proc_cputime(q, &u, &s);
				rusage_fill(ru, u + q->p_cutime, s + q->p_cstime);
			}
			if (!keep)
				proc_reap(p, q);
			return wr->pid;
		}
		if (!any)
			return -ECHILD;
		if (options & WNOHANG)
			return 0;
		if (slept == 0)
			slept = forkstat_now();
		int error = tsleep(p, PCATCH, "wait", 0);
		if (error != 0)
			return -ERESTARTSYS;
	}
}

/*
 * Signals: posting (to a process, or to one of its threads), each signal
 * with its siginfo, queued; the choice of the thread that takes a
 * process-directed signal; default actions (the group stop:
 * kern_sigstop.c); delivery to a handler (the frame: kern_sigframe.c).
 * rt_sigtimedwait's wait is kern_sigwait.c.
 *
 * A signal is pending for a thread (lwp_siglist: faults, tgkill) or for
 * its process (p_siglist: kill), and is taken by a thread that does not
 * block it: its own first, each set lowest-numbered first (so standard
 * before real-time) with faults ahead, as Linux.
 */
#include <signal.h>

#include "host/cpu.h"
#include "kern/kernel.h"
#include "kern/ptimer.h"
#include "kern/signal.h"
#include "kern/ucred.h"
#include "kern/kmem.h"
#include "vm/vm.h"

/* Faults first: their handler must see the faulting instruction. */
#define SIG_SYNCMASK	(SIGBIT(SIGSEGV) | SIGBIT(SIGBUS) | SIGBIT(SIGILL) | \
			 SIGBIT(SIGTRAP) | SIGBIT(SIGFPE) | SIGBIT(SIGSYS))
#define CLOCK_TICK_NS	10000000	/* si_utime's unit: Linux's USER_HZ */

enum sigdefault { SD_TERM, SD_CORE, SD_IGN, SD_STOP, SD_CONT };

void (*proc_signal_hook)(struct proc *p, const siginfo_t *si);

static enum sigdefault
sig_default(int sig)
{
	switch (sig) {
	case SIGQUIT: case SIGILL: case SIGTRAP: case SIGABRT: case SIGBUS:
	case SIGFPE: case SIGSEGV: case SIGXCPU: case SIGXFSZ: case SIGSYS:
		return SD_CORE;
	case SIGCHLD: case SIGURG: case SIGWINCH:
		return SD_IGN;
	case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
		return SD_STOP;
	case SIGCONT:
		return SD_CONT;
	}
	return SD_TERM;
}

/* Does sig's action ignore it (SIG_IGN, or a default that ignores)? */
static bool
sig_ignored(const struct proc *p, int sig)
{
	uint64_t h = p->p_sigacts->ps_act[sig - 1].lsa_handler;
	return h == (uint64_t)SIG_IGN || (h == (uint64_t)SIG_DFL &&
	    sig_default(sig) == SD_IGN);
}

/*
 * Is sig dropped when posted to lp's process, lp being the thread it is
 * for (NULL: the process has none)?  An ignored signal is, unless lp
 * blocks it (a later handler or rt_sigtimedwait may want it).
 */
static bool
sig_dropped(const struct proc *p, const struct lwp *lp, int sig)
{
	if (sig == SIGKILL || !sig_ignored(p, sig))
		return false;
	return lp == NULL ||
	    !((lp->lwp_sigmask | lp->lwp_realmask) & SIGBIT(sig));
}

void
sigwakeup(struct lwp *lp)
{
	struct thread *td = lp->lwp_thread;
	if (td == NULL)
		return;
	if (td->td_state == TDS_SLEEPING)
		thread_interrupt(td);
	else if (td->td_state == TDS_RUNNING && td != curthread)
		cpu_post(td->td_cpu, INTR_KICK);	/* it may be in user mode */
}

/*
 * The siginfo queue: each pending signal with the siginfo it was sent
 * with.  Real-time signals queue every instance in order, each with its
 * value; a standard signal is pending once (a second one coalesces).
 * Entries are counted per real user against RLIMIT_SIGPENDING, as in
 * Linux, so a user cannot fill the kernel's memory with queued signals.
 */

/* The entries queued for one user, kept while it has any. */
struct sigcount {
	struct sigcount *sc_next;
	uid_t sc_uid;
	unsigned long sc_count;
};

#define SIGCOUNT_HASH	64
static struct sigcount *sigcounts[SIGCOUNT_HASH];

static struct sigcount **
sigcount_slot(uid_t uid)
{
	struct sigcount **scp = &sigcounts[uid % SIGCOUNT_HASH];
	while (*scp != NULL && (*scp)->sc_uid != uid)
		scp = &(*scp)->sc_next;
	return scp;
}

/* Counts one more entry of uid: false if no memory for its record. */
static bool
sigcount_add(uid_t uid)
{
	struct sigcount **scp = sigcount_slot(uid);
	if (*scp == NULL) {
		struct sigcount *sc = kmalloc(sizeof(*sc), KM_ZERO);
		if (sc == NULL)
			return false;
		sc->sc_uid = uid;
		*scp = sc;
	}
	(*scp)->sc_count++;
	return true;
}

static void
sigcount_sub(uid_t uid)
{
	struct sigcount **scp = sigcount_slot(uid), *sc = *scp;
	KASSERT(sc != NULL && sc->sc_count > 0, "sigcount_sub: uid not counted");
	if (--sc->sc_count == 0) {
		*scp = sc->sc_next;
		kfree(sc);
	}
}

static unsigned long
sigcount_get(uid_t uid)
{
	struct sigcount *sc = *sigcount_slot(uid);
	return sc != NULL ? sc->sc_count : 0;
}

int
sigcount_reserve(uid_t uid, unsigned long limit)
{
	if (sigcount_get(uid) >= limit)
		return -EAGAIN;
	return sigcount_add(uid) ? 0 : -ENOMEM;
}

void
sigcount_release(uid_t uid)
{
	sigcount_sub(uid);
}

static void
ksiginfo_free(struct ksiginfo *k)
{
	sigcount_sub(k->ksi_uid);
	kfree(k);
}

int
sigqueue_add(struct proc *p, ksigset_t *set, struct sigqueue *q,
    const siginfo_t *info)
{
	int sig = info->si_signo;
	bool rt = sig >= LINUX_SIGRTMIN;

	if (!rt && (*set & SIGBIT(sig)))
		return 0;		/* coalesced with the one pending */
	if (sig != SIGKILL) {		/* SIGKILL's siginfo is never seen */
		/*
		 * A standard signal from the kernel or kill takes an entry
		 * past the limit (there is at most one per pending set);
		 * others may not.
		 */
		uid_t uid = p->p_ucred != NULL ? p->p_ucred->cr_ruid : 0;
		struct ksiginfo *k = NULL;
		if ((!rt && info->si_code >= 0) || sigcount_get(uid) <
		    p->p_rlimit[RLIMIT_SIGPENDING].rlim_cur) {
			k = kmalloc(sizeof(*k), 0);
			if (k != NULL && !sigcount_add(uid)) {
				kfree(k);
				k = NULL;
			}
		}
		if (k != NULL) {
			k->ksi_next = NULL;
			k->ksi_uid = uid;
			k->ksi_info = *info;
			if (q->sq_last != NULL)
				q->sq_last->ksi_next = k;
			else
				q->sq_first = k;
			q->sq_last = k;
		} else if (rt && info->si_code != SI_USER &&
		    info->si_code != SI_KERNEL) {
			return -EAGAIN;	/* a value would be lost: refused */
		}
		/* Otherwise it goes without its siginfo. */
	}
	*set |= SIGBIT(sig);
	return 0;
}

bool
sigqueue_has_timer(const struct sigqueue *q, int id)
{
	for (const struct ksiginfo *k = q->sq_first; k != NULL; k = k->ksi_next)
		if (k->ksi_info.si_code == SI_TIMER && k->ksi_info.si_timerid == id)
			return true;
	return false;
}

/* Unlinks k, which follows prev (NULL: first) in q. */
static void
sigqueue_unlink(struct sigqueue *q, struct ksiginfo *prev, struct ksiginfo *k)
{
	if (prev != NULL)
		prev->ksi_next = k->ksi_next;
	else
		q->sq_first = k->ksi_next;
	if (q->sq_last == k)
		q->sq_last = prev;
}

bool
sigqueue_take(ksigset_t *set, struct sigqueue *q, int sig, siginfo_t *info)
{
	struct ksiginfo *k, *prev = NULL, *found = NULL, *fprev = NULL;
	bool more = false;

	if (!(*set & SIGBIT(sig)))
		return false;
	for (k = q->sq_first; k != NULL; prev = k, k = k->ksi_next) {
		if (k->ksi_info.si_signo != sig)
			continue;
		if (found != NULL) {
			more = true;
			break;
		}
		found = k;
		fprev = prev;
	}
	if (!more)
		*set &= ~SIGBIT(sig);
	if (found == NULL) {
		/* Posted without its siginfo (past the limit; SIGKILL). */
		siginfo_init(info, sig, SI_USER, NULL);
		return true;
	}
	*info = found->ksi_info;
	sigqueue_unlink(q, fprev, found);
	ksiginfo_free(found);
	return true;
}

void
sigqueue_flush(ksigset_t *set, struct sigqueue *q, ksigset_t mask)
{
	struct ksiginfo *k, *prev = NULL, *next;

	*set &= ~mask;
	for (k = q->sq_first; k != NULL; k = next) {
		next = k->ksi_next;
		if (!(mask & SIGBIT(k->ksi_info.si_signo))) {
			prev = k;
			continue;
		}
		sigqueue_unlink(q, prev, k);
		ksiginfo_free(k);
	}
}

void
sigqueue_proc_free(struct proc *p)
{
	sigqueue_flush(&p->p_siglist, &p->p_sigqueue, ~(ksigset_t)0);
}

void
siginfo_init(siginfo_t *si, int sig, int code, const struct proc *sender)
{
	memset(si, 0, sizeof(*si));
	si->si_signo = sig;
	si->si_code = code;
	if (sender != NULL) {
		si->si_pid = sender->p_pid;
		si->si_uid = sender->p_ucred->cr_ruid;
	}
}

/* The thread of p to take process-directed sig: NULL if all block it. */
static struct lwp *
sig_pickthread(struct proc *p, int sig)
{
	struct lwp *lp = curlwp;
	/* The caller itself takes it on its way out, with no wake-up. */
	if (lp != NULL && lp->lwp_proc == p && !(lp->lwp_sigmask & SIGBIT(sig)))
		return lp;
	TAILQ_FOREACH(lp, &p->p_lwps, lwp_link)	/* the main thread first */
		if (!(lp->lwp_sigmask & SIGBIT(sig)))
			return lp;
	return NULL;
}

/* Drops the pending signals of mask from p and each of its threads. */
static void
sig_flush_all(struct proc *p, ksigset_t mask)
{
	struct lwp *lp;
	sigqueue_flush(&p->p_siglist, &p->p_sigqueue, mask);
	TAILQ_FOREACH(lp, &p->p_lwps, lwp_link)
		sigqueue_flush(&lp->lwp_siglist, &lp->lwp_sigqueue, mask);
}

/*
 * What posting sig does before it is pending, for the whole process: a
 * stop signal cancels a pending SIGCONT; SIGCONT cancels pending stop
 * signals and resumes a stopped process (telling its parent).
 */
static void
sig_prepare(struct proc *p, int sig)
{
	if (SIGBIT(sig) & SIG_STOPMASK) {
		sig_flush_all(p, SIGBIT(SIGCONT));
	} else if (sig == SIGCONT) {
		sig_flush_all(p, SIG_STOPMASK);
		bool stopped = (p->p_flags & P_STOPPED) != 0;
		if (p->p_flags & (P_STOPPED | P_STOPPING)) {
			p->p_flags &= ~(P_STOPPED | P_STOPPING);
			wakeup(&p->p_flags);
		}
		if (stopped) {
			p->p_flags |= P_CONTINUED;
			childsignal(p, CLD_CONTINUED, SIGCONT);
		}
	}
}

/*
 * sig is pending for lp, or for its process (lp NULL): wakes the thread
 * that will take it.  SIGKILL goes to every thread, stopped or not.
 */
void (*signal_pending_hook)(struct proc *p);

static void
sig_complete(struct proc *p, struct lwp *lp, int sig)
{
	if (sig == SIGKILL) {
		TAILQ_FOREACH(lp, &p->p_lwps, lwp_link) {
			lp->lwp_siglist |= SIGBIT(SIGKILL);
			sigwakeup(lp);
		}
		wakeup(&p->p_flags);		/* out of a stop */
		return;
	}
	if (lp == NULL)
		lp = sig_pickthread(p, sig);
	else if (lp->lwp_sigmask & SIGBIT(sig))
		return;
	if (lp != NULL)
		sigwakeup(lp);
}

/* Posts info->si_signo to p, for thread lp only unless lp is NULL. */
static int
sig_post(struct proc *p, struct lwp *lp, const siginfo_t *info)
{
	int sig = info->si_signo;

	KASSERT(SIG_VALID(sig), "sig_post: no such signal");
	if (p->p_state != PRS_NORMAL)
		return 0;
	sig_prepare(p, sig);
	if (sig_dropped(p, lp != NULL ? lp : TAILQ_FIRST(&p->p_lwps), sig)) {
		/* strace sees it anyway (a traced process keeps it). */
		if (__builtin_expect(proc_signal_hook != NULL, 0))
			proc_signal_hook(p, info);
		return 0;
	}
	int error = lp != NULL ?
	    sigqueue_add(p, &lp->lwp_siglist, &lp->lwp_sigqueue, info) :
	    sigqueue_add(p, &p->p_siglist, &p->p_sigqueue, info);
	if (error == 0) {
		sig_complete(p, lp, sig);
		if (signal_pending_hook != NULL)
			signal_pending_hook(p);
	}
	return error;
}

int
psignal_info(struct proc *p, const siginfo_t *info)
{
	return sig_post(p, NULL, info);
}

int
lwpsignal_info(struct lwp *lp, const siginfo_t *info)
{
	return sig_post(lp->lwp_proc, lp, info);
}

void
lwpsignal_self(struct lwp *lp, int sig)
{
	siginfo_t si;
	siginfo_init(&si, sig, SI_USER, lp->lwp_proc);
	(void)sig_post(lp->lwp_proc, lp, &si);
}

void
psignal_proc(struct proc *p, int sig)
{
	siginfo_t si;
	if (!SIG_VALID(sig))
		return;
	siginfo_init(&si, sig, SI_KERNEL, NULL);
	(void)sig_post(p, NULL, &si);
}

void
pgsignal(struct pgrp *pg, int sig)
{
	struct proc *p;
	if (pg == NULL)
		return;
	TAILQ_FOREACH(p, &pg->pg_members, p_pglist)
		if (p->p_state == PRS_NORMAL)
			psignal_proc(p, sig);
}

void
trapsignal(struct lwp *lp, int sig, int code, uint64_t addr)
{
	struct proc *p = lp->lwp_proc;
	siginfo_t si;

	/* A blocked or ignored fault signal cannot be delivered: it kills. */
	if ((lp->lwp_sigmask & SIGBIT(sig)) || sig_ignored(p, sig)) {
		p->p_sigacts->ps_act[sig - 1].lsa_handler = (uint64_t)SIG_DFL;
		lp->lwp_sigmask &= ~SIGBIT(sig);
	}
	siginfo_init(&si, sig, code, NULL);
	si.si_addr = (void *)addr;
	(void)sig_post(p, lp, &si);
}

void
childsignal(struct proc *p, int code, int status)
{
	struct proc *pp = p->p_pptr;
	bool exited = code == CLD_EXITED || code == CLD_KILLED ||
	    code == CLD_DUMPED;

	if (pp == NULL)
		return;
	/* Stops and continues: SIGCHLD, unless the parent said SA_NOCLDSTOP. */
	int sig = exited ? p->p_exitsig : SIGCHLD;
	if (!exited && pp->p_sigacts != NULL &&
	    (pp->p_sigacts->ps_act[SIGCHLD - 1].lsa_flags & SA_NOCLDSTOP))
		sig = 0;
	if (SIG_VALID(sig)) {
		siginfo_t si;
		uint64_t u, s;
		siginfo_init(&si, sig, code, NULL);
		si.si_pid = p->p_pid;
		si.si_uid = p->p_ucred != NULL ? p->p_ucred->cr_ruid : 0;
		si.si_status = status;
		proc_cputime(p, &u, &s);
		si.si_utime = (clock_t)(u / CLOCK_TICK_NS);
		si.si_stime = (clock_t)(s / CLOCK_TICK_NS);
		(void)psignal_info(pp, &si);
	}
	wakeup(pp);			/* its wait4 and waitid */
}

void
childsignal_exit(struct proc *p)
{
	int x = p->p_xstat;
	if (WIFSIGNALED(x))
		childsignal(p, WCOREDUMP(x) ? CLD_DUMPED : CLD_KILLED, WTERMSIG(x));
	else
		childsignal(p, CLD_EXITED, WEXITSTATUS(x));
}

/* The signal of pend to take first: faults, then the lowest. */
static int
sig_first(ksigset_t pend)
{
	if (pend & SIG_SYNCMASK)
		pend &= SIG_SYNCMASK;
	return __builtin_ctzll(pend) + 1;
}

int
sigdequeue(struct lwp *lp, ksigset_t allow, siginfo_t *info)
{
	struct proc *p = lp->lwp_proc;
	int sig;

	if (lp->lwp_siglist & allow) {
		sig = sig_first(lp->lwp_siglist & allow);
		(void)sigqueue_take(&lp->lwp_siglist, &lp->lwp_sigqueue, sig, info);
		if (info->si_code == SI_TIMER)
			ptimer_delivered(p, info);
		return sig;
	}
	if (p->p_siglist & allow) {
		sig = sig_first(p->p_siglist & allow);
		(void)sigqueue_take(&p->p_siglist, &p->p_sigqueue, sig, info);
		if (info->si_code == SI_TIMER)
			ptimer_delivered(p, info);
		return sig;
	}
	return 0;
}

static ksigset_t
sig_deliverable(const struct lwp *lp)
{
	ksigset_t pend = lp->lwp_siglist | lp->lwp_proc->p_siglist;
	return pend & ~(lp->lwp_sigmask & ~SIG_CANTMASK);
}

bool
issignal_pending(const struct lwp *lp)
{
	return sig_deliverable(lp) != 0 ||
	    ((lp->lwp_proc->p_flags & (P_STOPPING | P_STOPPED)) &&
	    !(lp->lwp_flags & LWP_STOPPED));
}

bool
sig_fatal(const struct lwp *lp)
{
	return ((lp->lwp_siglist | lp->lwp_proc->p_siglist) & SIGBIT(SIGKILL)) != 0;
}

/*
 * Would sig, pending for lp, end its process as it is taken?  Linux's
 * sig_fatal: its default action kills and lp does not wait for it
 * (rt_sigtimedwait).  A stopped thread does not take it yet.
 */
static bool
sig_kills(const struct lwp *lp, int sig)
{
	const struct proc *p = lp->lwp_proc;
	if (p->p_sigacts->ps_act[sig - 1].lsa_handler != (uint64_t)SIG_DFL ||
	    (lp->lwp_realmask & SIGBIT(sig)) || (lp->lwp_flags & LWP_STOPPED))
		return false;
	int action = sig_default(sig);
	return action == SD_TERM || action == SD_CORE;
}

/*
 * sched_signal_hook: what td's pending signals do to its sleeps, as
 * Linux's fatal_signal_pending and signal_pending.  SIGKILL, or a
 * signal whose default action ends the process, ends any interruptible
 * sleep (as Linux turns such a signal into a group exit at once); one
 * the thread would act on otherwise (pending, not blocked, not
 * ignored), or a group stop it must join, ends a PCATCH one.  A blocked
 * or ignored signal ends none: it would only make the call restart, or
 * fail with EINTR where Linux goes on sleeping.
 */
static int
sig_sleep_level(struct thread *td)
{
	struct lwp *lp = td->td_lwp;
	if (lp == NULL)
		return 0;
	if (sig_fatal(lp))
		return SIGPEND_FATAL;
	struct proc *p = lp->lwp_proc;
	int level = 0;
	for (ksigset_t take = sig_deliverable(lp); take != 0; take &= take - 1) {
		int sig = __builtin_ctzll(take) + 1;
		if (sig_kills(lp, sig))
			return SIGPEND_FATAL;
		if (!sig_ignored(p, sig))
			level = SIGPEND_CATCH;
	}
	if ((p->p_flags & (P_STOPPING | P_STOPPED)) &&
	    !(lp->lwp_flags & LWP_STOPPED))
		level = SIGPEND_CATCH;
	return level;
}

void
sig_init(void)
{
	sched_signal_hook = sig_sleep_level;
}

/* A suspend mask not taken into a frame goes now. */
static void
sig_restore_oldmask(struct lwp *lp)
{
	if (lp->lwp_flags & LWP_OLDMASK) {
		lp->lwp_sigmask = lp->lwp_oldmask;
		lp->lwp_flags &= ~LWP_OLDMASK;
	}
}

/*
 * The wait status's "core dumped" flag.  No core is written here; the
 * flag is Linux's with a core file pattern: set when RLIMIT_CORE allows
 * a core at all.
 */
static int
core_flag(const struct proc *p)
{
	return p->p_rlimit[RLIMIT_CORE].rlim_cur != 0 ? WCOREFLAG : 0;
}

void
postsig(struct lwp *lp)
{
	struct proc *p = lp->lwp_proc;
	siginfo_t info;
	int sig;

	/* SIGKILL ends the process before anything else, stopped or not. */
	if ((lp->lwp_siglist | p->p_siglist) & SIGBIT(SIGKILL)) {
		sigqueue_flush(&lp->lwp_siglist, &lp->lwp_sigqueue, SIGBIT(SIGKILL));
		sigqueue_flush(&p->p_siglist, &p->p_sigqueue, SIGBIT(SIGKILL));
		exit1(W_EXITCODE(0, SIGKILL));
	}
	if ((p->p_flags & (P_STOPPING | P_STOPPED)) &&
	    !(lp->lwp_flags & LWP_STOPPED)) {
		sigstop_wait(lp);		/* a group stop under way */
		return;
	}
	sig = sigdequeue(lp, ~(lp->lwp_sigmask & ~SIG_CANTMASK), &info);
	if (sig == 0)
		return;
	if (__builtin_expect(proc_signal_hook != NULL, 0))
		proc_signal_hook(p, &info);

	struct linux_sigaction *sa = &p->p_sigacts->ps_act[sig - 1];
	if (sa->lsa_handler == (uint64_t)SIG_IGN && sig != SIGSTOP) {
		sig_restore_oldmask(lp);
		return;
	}
	if (sa->lsa_handler == (uint64_t)SIG_DFL || sig == SIGSTOP) {
		switch (sig_default(sig)) {
		case SD_IGN:
		case SD_CONT:
			sig_restore_oldmask(lp);
			return;
		case SD_STOP:
			sigstop(lp, sig);
			sig_restore_oldmask(lp);
			return;
		case SD_CORE:
			exit1(W_EXITCODE(0, sig) | core_flag(p));
		case SD_TERM:
			exit1(W_EXITCODE(0, sig));
		}
	}
	syscall_restart(lp, sa);
	/*
	 * The FPU state the frame saves.  One not loaded yet (PGEX_FPFAULT:
	 * a sigreturn, or another handler's clean start, just before this)
	 * is already in vf; the vmspace's is older, the handler's it ends.
	 */
	if (!(lp->lwp_tf.tf_xflags & PGEX_FPFAULT))
		(void)vmspace_thread_ctl(vmspace_host_id(p->p_vmspace),
		    lp->lwp_hostthr, VMSPACE_CTL_FPSAVE, NULL, lp->lwp_vf);
	if (sendsig(lp, &info, sa) < 0) {
		kprintf_ratelimited("pid %d (%s): cannot deliver signal %d: bad stack\n",
		    p->p_pid, p->p_comm, sig);
		exit1(W_EXITCODE(0, SIGSEGV) | core_flag(p));
	}
	if (!(sa->lsa_flags & SA_NODEFER))
		lp->lwp_sigmask |= SIGBIT(sig);
	lp->lwp_sigmask |= sa->lsa_mask & ~SIG_CANTMASK;
	if (sa->lsa_flags & SA_RESETHAND)
		sa->lsa_handler = (uint64_t)SIG_DFL;
}

int
kern_sigaction(struct lwp *lp, int sig, const struct linux_sigaction *nsa,
    struct linux_sigaction *osa)
{
	struct proc *p = lp->lwp_proc;

	if (!SIG_VALID(sig) || (nsa != NULL && (sig == SIGKILL || sig == SIGSTOP)))
		return -EINVAL;
	*osa = p->p_sigacts->ps_act[sig - 1];
	if (nsa != NULL) {
		p->p_sigacts->ps_act[sig - 1] = *nsa;
		p->p_sigacts->ps_act[sig - 1].lsa_mask &= ~SIG_CANTMASK;
		if (sig_ignored(p, sig))	/* pending ones go (POSIX) */
			sig_flush_all(p, SIGBIT(sig));
	}
	return 0;
}

void
sigprocmask1(struct lwp *lp, ksigset_t newmask)
{
	struct proc *p = lp->lwp_proc;
	ksigset_t blocked = newmask & ~lp->lwp_sigmask & ~SIG_CANTMASK;

	lp->lwp_sigmask = newmask & ~SIG_CANTMASK;
	/*
	 * Process-directed signals this thread now blocks may have been
	 * meant for it: another thread that takes them is woken.
	 */
	for (ksigset_t pend = p->p_siglist & blocked; pend != 0; pend &= pend - 1) {
		struct lwp *t = sig_pickthread(p, __builtin_ctzll(pend) + 1);
		if (t != NULL)
			sigwakeup(t);
	}
}

void
syscall_restart(struct lwp *lp, const struct linux_sigaction *sa)
{
	struct trapframe *tf = &lp->lwp_tf;
	if (!(lp->lwp_flags & LWP_RESTART))
		return;
	lp->lwp_flags &= ~LWP_RESTART;

	long r = (long)tf->tf_rax;
	bool again = sa == NULL || r == -ERESTARTNOINTR ||
	    (r == -ERESTARTSYS && (sa->lsa_flags & SA_RESTART));
	if (!again) {
		tf->tf_rax = (uint64_t)-EINTR;
		return;
	}
	tf->tf_rax = lp->lwp_syscall_nr;
	tf->tf_rip -= 2;		/* back onto the syscall instruction */
}

int
sigacts_fork(struct proc *child, const struct proc *parent, bool share)
{
	if (share) {
		child->p_sigacts = parent->p_sigacts;
		child->p_sigacts->ps_ref++;
		return 0;
	}
	child->p_sigacts = kmalloc(sizeof(struct sigacts), 0);
	if (child->p_sigacts == NULL)
		return -ENOMEM;
	if (parent != NULL)
		*child->p_sigacts = *parent->p_sigacts;
	else
		memset(child->p_sigacts, 0, sizeof(struct sigacts));
	child->p_sigacts->ps_ref = 1;
	return 0;
}

void
sigacts_exec(struct proc *p)
{
	for (int i = 0; i < LINUX_NSIG; i++) {
		struct linux_sigaction *sa = &p->p_sigacts->ps_act[i];
		if (sa->lsa_handler != (uint64_t)SIG_IGN)
			memset(sa, 0, sizeof(*sa));
	}
	struct lwp *lp = TAILQ_FIRST(&p->p_lwps);
	if (lp != NULL)
		memset(&lp->lwp_sigstk, 0, sizeof(lp->lwp_sigstk));
}

int
sigacts_unshare(struct proc *p)
{
	struct sigacts *ps = p->p_sigacts;
	if (ps->ps_ref == 1)
		return 0;
	struct sigacts *ns = kmalloc(sizeof(*ns), 0);
	if (ns == NULL)
		return -ENOMEM;
	*ns = *ps;
	ns->ps_ref = 1;
	ps->ps_ref--;
	p->p_sigacts = ns;
	return 0;
}

void
sigacts_free(struct proc *p)
{
	if (--p->p_sigacts->ps_ref == 0)
		kfree(p->p_sigacts);
	p->p_sigacts = NULL;
}


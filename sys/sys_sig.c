/*
 * The signal system calls: actions and masks, the kill family (kill,
 * tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo), the waits
 * (rt_sigsuspend, pause, rt_sigtimedwait), rt_sigreturn and sigaltstack,
 * over the signal layer of kern/signal.h.
 */
#include <limits.h>
#include <signal.h>
#include <time.h>

#include "fs/event_files.h"
#include "kern/signal.h"
#include "kern/ucred.h"
#include "sys/syscall.h"

long
sys_rt_sigaction(struct lwp *lp, const uint64_t *args)
{
	int sig = (int)args[0];
	struct linux_sigaction nsa, osa;

	if (!SIG_VALID(sig) || args[3] != sizeof(ksigset_t))
		return -EINVAL;
	if (args[1] != 0 && copyin(args[1], &nsa, sizeof(nsa)) < 0)
		return -EFAULT;
	/* As Linux: the new action is in place before the old is stored. */
	int error = kern_sigaction(lp, sig, args[1] != 0 ? &nsa : NULL, &osa);
	if (error < 0)
		return error;
	if (args[2] != 0 && copyout(&osa, args[2], sizeof(osa)) < 0)
		return -EFAULT;
	return 0;
}

long
sys_rt_sigprocmask(struct lwp *lp, const uint64_t *args)
{
	ksigset_t set, old = lp->lwp_sigmask;

	if (args[3] != sizeof(ksigset_t))
		return -EINVAL;
	if (args[1] != 0) {
		if (copyin(args[1], &set, sizeof(set)) < 0)
			return -EFAULT;
		switch (args[0]) {
		case SIG_BLOCK:   set |= old; break;
		case SIG_UNBLOCK: set = old & ~set; break;
		case SIG_SETMASK: break;
		default:	  return -EINVAL;
		}
		sigprocmask1(lp, set);
	}
	if (args[2] != 0 && copyout(&old, args[2], sizeof(old)) < 0)
		return -EFAULT;
	return 0;
}

/* The blocked signals pending for the thread or for its process. */
long
sys_rt_sigpending(struct lwp *lp, const uint64_t *args)
{
	ksigset_t set = (lp->lwp_siglist | lp->lwp_proc->p_siglist) &
	    lp->lwp_sigmask;
	if (args[1] != sizeof(ksigset_t))
		return -EINVAL;
	return copyout(&set, args[0], sizeof(set));
}

/* Waits with the given mask until a signal is delivered (EINTR). */
long
sys_rt_sigsuspend(struct lwp *lp, const uint64_t *args)
{
	ksigset_t set, old = lp->lwp_sigmask;
	if (args[1] != sizeof(ksigset_t))
		return -EINVAL;
	if (copyin(args[0], &set, sizeof(set)) < 0)
		return -EFAULT;
	sigprocmask1(lp, set);
	while (!issignal_pending(lp))
		tsleep(&lp->lwp_sigmask, PCATCH, "sigsusp", 0);
	/* The handler runs with the suspend mask; sigreturn restores old. */
	lp->lwp_oldmask = old;
	lp->lwp_flags |= LWP_OLDMASK;
	return -ERESTARTNOHAND;
}

/* pause: sleeps until a signal is delivered (EINTR). */
long
sys_pause(struct lwp *lp, const uint64_t *args __unused)
{
	while (!issignal_pending(lp))
		tsleep(&lp->lwp_sigmask, PCATCH, "pause", 0);
	return -ERESTARTNOHAND;
}

/*
 * rt_sigtimedwait(set, info, timeout, sigsetsize): the signal of set
 * taken, with its siginfo; -EAGAIN once timeout (NULL: none) passes,
 * -EINTR if a handled signal comes first.
 */
long
sys_rt_sigtimedwait(struct lwp *lp, const uint64_t *args)
{
	ksigset_t set;
	int64_t timeout = -1;
	siginfo_t si;

	if (args[3] != sizeof(ksigset_t))
		return -EINVAL;
	if (copyin(args[0], &set, sizeof(set)) < 0)
		return -EFAULT;
	if (args[2] != 0) {
		struct timespec ts;
		if (copyin(args[2], &ts, sizeof(ts)) < 0)
			return -EFAULT;
		if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000)
			return -EINVAL;
		timeout = ts.tv_sec > INT64_MAX / 2 / 1000000000 ? INT64_MAX / 2 :
		    ts.tv_sec * 1000000000 + ts.tv_nsec;
	}
	long sig = kern_sigtimedwait(lp, set, timeout, &si);
	/* The signal is taken even if its siginfo cannot be stored. */
	if (sig > 0 && args[1] != 0 && copyout(&si, args[1], sizeof(si)) < 0)
		return -EFAULT;
	return sig;
}

long
sys_rt_sigreturn(struct lwp *lp, const uint64_t *args __unused)
{
	if (sigreturn_frame(lp) < 0) {
		trapsignal(lp, SIGSEGV, SI_KERNEL, 0);	/* a bad frame */
		return -EFAULT;
	}
	return -EJUSTRETURN;
}

/* Continues the call that returned -ERESTART_RESTARTBLOCK. */
long
sys_restart_syscall(struct lwp *lp, const uint64_t *args __unused)
{
	struct restart_block *rb = &lp->lwp_restart;
	long (*fn)(struct lwp *) = rb->rb_fn;
	rb->rb_fn = NULL;
	return fn != NULL ? fn(lp) : -EINTR;
}

/*
 * May process q signal process p?  As Linux: a sender's real or
 * effective uid matches the target's real or saved uid; root may signal
 * anyone; SIGCONT goes to any process of the same session.
 */
static bool
kill_permitted(const struct proc *q, const struct proc *p, int sig)
{
	const struct ucred *cr = q->p_ucred, *tcr = p->p_ucred;
	if (cred_is_root(cr) || q == p)
		return true;
	if (cr->cr_uid == tcr->cr_ruid || cr->cr_uid == tcr->cr_svuid ||
	    cr->cr_ruid == tcr->cr_ruid || cr->cr_ruid == tcr->cr_svuid)
		return true;
	return sig == SIGCONT && p->p_pgrp != NULL && q->p_pgrp != NULL &&
	    p->p_pgrp->pg_session == q->p_pgrp->pg_session;
}

/*
 * Sends info (signal sig; 0 checks only) from lp's process to process
 * p, or to its thread tl unless that is NULL: 0, -EINVAL, -EPERM, or
 * -EAGAIN (a full queue).
 */
static long
sig_send(struct lwp *lp, struct proc *p, struct lwp *tl, int sig,
    const siginfo_t *info)
{
	if (sig != 0 && !SIG_VALID(sig))
		return -EINVAL;
	if (!kill_permitted(lp->lwp_proc, p, sig))
		return -EPERM;
	if (sig == 0)
		return 0;
	return tl != NULL ? lwpsignal_info(tl, info) : psignal_info(p, info);
}

/* kill(2) of process p: SI_USER, from lp's process. */
static long
kill1(struct lwp *lp, struct proc *p, int sig)
{
	siginfo_t si;
	siginfo_init(&si, sig, SI_USER, lp->lwp_proc);
	return sig_send(lp, p, NULL, sig, &si);
}

long
sys_kill(struct lwp *lp, const uint64_t *args)
{
	pid_t pid = (pid_t)args[0];
	int sig = (int)args[1];
	struct proc *p;

	if (sig < 0 || sig > LINUX_NSIG)
		return -EINVAL;
	if (pid == INT_MIN)
		return -ESRCH;		/* as Linux: -INT_MIN is no group */
	/* Zombies are still there to signal, as in Linux: nothing happens. */
	if (pid > 0) {
		p = pfind(pid);
		return p != NULL && p->p_state != PRS_NEW ? kill1(lp, p, sig) :
		    -ESRCH;
	}
	/* A process group (0: ours) or, with -1, everyone but init. */
	long r = -ESRCH;
	struct pgrp *pg = NULL;
	if (pid == 0)
		pg = lp->lwp_proc->p_pgrp;
	else if (pid < -1)
		pg = pgfind(-pid);
	if (pid != -1) {
		if (pg == NULL)
			return -ESRCH;
		TAILQ_FOREACH(p, &pg->pg_members, p_pglist)
			if (p->p_state != PRS_NEW)
				r = kill1(lp, p, sig) == 0 ? 0 : r;
		return r;
	}
	for (pid_t i = 2; i < PID_MAX; i++) {
		p = pfind(i);
		if (p != NULL && p->p_state != PRS_NEW && p != lp->lwp_proc)
			r = kill1(lp, p, sig) == 0 ? 0 : r;
	}
	return r;
}

/* Thread tid, of process tgid unless that is 0; NULL if there is none. */
static struct lwp *
lwp_lookup(pid_t tgid, pid_t tid)
{
	struct lwp *lp = lwpfind(tid);
	if (lp == NULL || lp->lwp_proc->p_state == PRS_NEW ||
	    (tgid != 0 && lp->lwp_proc->p_pid != tgid))
		return NULL;
	return lp;
}

/*
 * Sends info to thread tid of process tgid (0: any), as tgkill and
 * rt_tgsigqueueinfo: -ESRCH without it.
 */
static long
tkill1(struct lwp *lp, pid_t tgid, pid_t tid, int sig, const siginfo_t *info)
{
	struct lwp *tl = lwp_lookup(tgid, tid);
	if (tl == NULL)
		return -ESRCH;
	return sig_send(lp, tl->lwp_proc, tl, sig, info);
}

long
sys_tgkill(struct lwp *lp, const uint64_t *args)
{
	pid_t tgid = (pid_t)args[0], tid = (pid_t)args[1];
	int sig = (int)args[2];
	siginfo_t si;

	if (tgid <= 0 || tid <= 0)
		return -EINVAL;
	siginfo_init(&si, sig, SI_TKILL, lp->lwp_proc);
	return tkill1(lp, tgid, tid, sig, &si);
}

long
sys_tkill(struct lwp *lp, const uint64_t *args)
{
	pid_t tid = (pid_t)args[0];
	int sig = (int)args[1];
	siginfo_t si;

	if (tid <= 0)
		return -EINVAL;
	siginfo_init(&si, sig, SI_TKILL, lp->lwp_proc);
	return tkill1(lp, 0, tid, sig, &si);
}

/* The siginfo of rt_sigqueueinfo and rt_tgsigqueueinfo, for sig. */
static int
siginfo_in(uint64_t uaddr, int sig, siginfo_t *si)
{
	if (copyin(uaddr, si, sizeof(*si)) < 0)
		return -EFAULT;
	si->si_signo = sig;
	return 0;
}

/*
 * Only to itself may a thread or process send a siginfo claiming to come
 * from the kernel or from kill (si_code >= 0, SI_TKILL): Linux's rule.
 */
static bool
siginfo_forged(const siginfo_t *si, pid_t to, pid_t self)
{
	return (si->si_code >= 0 || si->si_code == SI_TKILL) && to != self;
}

/* rt_sigqueueinfo(pid, sig, info): sigqueue(3) to a process. */
long
sys_rt_sigqueueinfo(struct lwp *lp, const uint64_t *args)
{
	pid_t pid = (pid_t)args[0];
	int sig = (int)args[1];
	siginfo_t si;

	if (siginfo_in(args[2], sig, &si) < 0)
		return -EFAULT;
	if (siginfo_forged(&si, pid, lp->lwp_proc->p_pid))
		return -EPERM;
	struct proc *p = pid > 0 ? pfind(pid) : NULL;
	if (p == NULL || p->p_state == PRS_NEW)
		return -ESRCH;
	return sig_send(lp, p, NULL, sig, &si);
}

/* rt_tgsigqueueinfo(tgid, tid, sig, info): the same to one thread. */
long
sys_rt_tgsigqueueinfo(struct lwp *lp, const uint64_t *args)
{
	pid_t tgid = (pid_t)args[0], tid = (pid_t)args[1];
	int sig = (int)args[2];
	siginfo_t si;

	if (siginfo_in(args[3], sig, &si) < 0)
		return -EFAULT;
	if (tgid <= 0 || tid <= 0)
		return -EINVAL;
	if (siginfo_forged(&si, tid, lp->lwp_tid))
		return -EPERM;
	return tkill1(lp, tgid, tid, sig, &si);
}

#define PIDFD_SIGNAL_THREAD		0x1
#define PIDFD_SIGNAL_THREAD_GROUP	0x2
#define PIDFD_SIGNAL_PROCESS_GROUP	0x4

/*
 * pidfd_send_signal(pidfd, sig, info, flags): kill, or rt_sigqueueinfo
 * with info, to the process a pidfd or a /proc/PID directory names
 * (fs/pidfd.c), or with flags (one at most) to its leader thread only
 * or to its process group.
 */
long
sys_pidfd_send_signal(struct lwp *lp, const uint64_t *args)
{
	int sig = (int)args[1], error;
	unsigned flags = (unsigned)args[3];
	siginfo_t si;

	if ((flags & ~(PIDFD_SIGNAL_THREAD | PIDFD_SIGNAL_THREAD_GROUP |
	    PIDFD_SIGNAL_PROCESS_GROUP)) || (flags & (flags - 1)))
		return -EINVAL;
	struct proc *p = pidfd_signal_proc(&lp->lwp_proc->p_fs, (int)args[0],
	    &error);
	if (p == NULL)
		return error;
	if (args[2] == 0) {
		siginfo_init(&si, sig, SI_USER, lp->lwp_proc);
	} else {
		if (copyin(args[2], &si, sizeof(si)) < 0)
			return -EFAULT;
		if (si.si_signo != sig)
			return -EINVAL;
		if (siginfo_forged(&si, p->p_pid, lp->lwp_proc->p_pid))
			return -EPERM;
	}
	if (flags == PIDFD_SIGNAL_THREAD) {
		struct lwp *tl = lwp_lookup(p->p_pid, p->p_pid);
		return tl != NULL ? sig_send(lp, p, tl, sig, &si) : -ESRCH;
	}
	if (flags == PIDFD_SIGNAL_PROCESS_GROUP) {
		long r = -ESRCH;
		struct proc *q;
		if (p->p_pgrp == NULL)
			return r;
		TAILQ_FOREACH(q, &p->p_pgrp->pg_members, p_pglist)
			if (q->p_state != PRS_NEW)
				r = sig_send(lp, q, NULL, sig, &si) == 0 ? 0 : r;
		return r;
	}
	return sig_send(lp, p, NULL, sig, &si);
}

long
sys_sigaltstack(struct lwp *lp, const uint64_t *args)
{
	stack_t ss, old;
	old.ss_sp = lp->lwp_sigstk.ss_sp;
	old.ss_size = lp->lwp_sigstk.ss_size;
	old.ss_flags = lp->lwp_sigstk.ss_size == 0 ? SS_DISABLE : 0;
	uint64_t sp = lp->lwp_tf.tf_rsp;
	if (old.ss_size != 0 && sp >= (uint64_t)old.ss_sp &&
	    sp < (uint64_t)old.ss_sp + old.ss_size)
		old.ss_flags = SS_ONSTACK;
	if (args[0] != 0) {
		if (copyin(args[0], &ss, sizeof(ss)) < 0)
			return -EFAULT;
		if (old.ss_flags == SS_ONSTACK)
			return -EPERM;
		if (ss.ss_flags == SS_DISABLE) {
			memset(&lp->lwp_sigstk, 0, sizeof(lp->lwp_sigstk));
		} else if (ss.ss_flags != 0) {
			return -EINVAL;
		} else if (ss.ss_size < (size_t)MINSIGSTKSZ) {
			return -ENOMEM;
		} else {
			lp->lwp_sigstk.ss_sp = ss.ss_sp;
			lp->lwp_sigstk.ss_size = ss.ss_size;
		}
	}
	if (args[1] != 0 && copyout(&old, args[1], sizeof(old)) < 0)
		return -EFAULT;
	return 0;
}

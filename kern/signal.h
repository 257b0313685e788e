/*
 * Signals: posting with a siginfo, per-thread masks and pending sets,
 * delivery with Linux signal frames, default actions, group stop.
 * Numbers and codes are Linux's (the host's <signal.h>); siginfo_t is
 * Linux's 128-byte layout.
 */
#ifndef KERN_SIGNAL_H
#define KERN_SIGNAL_H

#include <signal.h>
#include <sys/wait.h>

#include "kern/proc.h"

#define LINUX_SIGRTMIN	32		/* the kernel's; libcs keep 32..34 */
#define SIG_VALID(sig)	((sig) >= 1 && (sig) <= LINUX_NSIG)
#define SIG_STOPMASK	(SIGBIT(SIGSTOP) | SIGBIT(SIGTSTP) | \
			 SIGBIT(SIGTTIN) | SIGBIT(SIGTTOU))
#define SIG_CANTMASK	(SIGBIT(SIGKILL) | SIGBIT(SIGSTOP))

/* One pending signal's siginfo, in a struct sigqueue. */
struct ksiginfo {
	struct ksiginfo *ksi_next;
	uid_t ksi_uid;		/* whose RLIMIT_SIGPENDING count holds it */
	siginfo_t ksi_info;
};

/*
 * The siginfo queue (kern_sig.c).  A pending set and its queue go
 * together: a thread's (lwp_siglist, lwp_sigqueue) or its process's
 * (p_siglist, p_sigqueue).
 *
 * sigqueue_add makes info->si_signo pending in *set for process p.  A
 * standard signal already pending is not queued again (coalesced:
 * returns 0); a real-time one queues each instance.  Each entry counts
 * against the RLIMIT_SIGPENDING of p's real user, but for a standard
 * signal from the kernel or kill (si_code >= 0): past it a real-time
 * signal sent with a value (si_code other than SI_USER) fails with
 * -EAGAIN, others are posted without their siginfo (SI_USER, as Linux).
 * Returns 0 or -EAGAIN.
 *
 * sigqueue_take removes one instance of sig from *set and q into *info
 * (the oldest; a signal without an entry gives SI_USER and no sender);
 * the bit stays while other instances remain.  False if sig was not
 * pending.
 *
 * sigqueue_flush drops every pending signal of mask from *set and q.
 */
int sigqueue_add(struct proc *p, ksigset_t *set, struct sigqueue *q,
    const siginfo_t *info);
/* True if q holds a signal of POSIX timer id (SI_TIMER) of its process. */
bool sigqueue_has_timer(const struct sigqueue *q, int id);
bool sigqueue_take(ksigset_t *set, struct sigqueue *q, int sig,
    siginfo_t *info);
void sigqueue_flush(ksigset_t *set, struct sigqueue *q, ksigset_t mask);

/*
 * A POSIX timer's signal is counted from its creation, as Linux's is
 * allocated then: sigcount_reserve counts one more for uid, or fails
 * with -EAGAIN at limit (RLIMIT_SIGPENDING) or -ENOMEM; sigcount_release
 * ends it.  The timer's signal, when queued, counts once more (Linux's
 * does not): a guest may send SI_TIMER itself (rt_sigqueueinfo), so the
 * code cannot exempt it from the limit.
 */
int sigcount_reserve(uid_t uid, unsigned long limit);
void sigcount_release(uid_t uid);

/*
 * An lwp leaves its process (lwp_free, after p_nlwps counts it out): its
 * pending signals go, and a group stop that waited only for it is done.
 */
void signal_lwp_free(struct lwp *lp);
/* A process is freed: its pending signals go (proc_free). */
void sigqueue_proc_free(struct proc *p);

/*
 * A siginfo for sig with code (SI_USER, SI_TKILL...) sent by process
 * sender (NULL: the kernel: no pid or uid).
 */
void siginfo_init(siginfo_t *si, int sig, int code, const struct proc *sender);

/*
 * Posting.  psignal_info posts info->si_signo to process p (a process-
 * directed signal: it goes to a thread of p that does not block it, which
 * is woken to take it); lwpsignal_info to thread lp only.  Nothing is
 * posted to a process that is not running (a zombie), and a signal
 * ignored by its handler is dropped unless blocked.  0, or -EAGAIN when
 * a queued signal finds RLIMIT_SIGPENDING reached.
 */
int psignal_info(struct proc *p, const siginfo_t *info);
int lwpsignal_info(struct lwp *lp, const siginfo_t *info);

/*
 * Posts sig to lp as if its process sent it (SI_USER from itself), as
 * Linux does for SIGPIPE and SIGXFSZ.
 */
void lwpsignal_self(struct lwp *lp, int sig);

/* Posts sig from the kernel (SI_KERNEL) to process p. */
void psignal_proc(struct proc *p, int sig);

/* Posts sig from the kernel to every process of a process group. */
void pgsignal(struct pgrp *pg, int sig);

/* Posts a synchronous signal for a fault of lp, with code and address. */
void trapsignal(struct lwp *lp, int sig, int code, uint64_t addr);

/*
 * Tells p's parent that p exited or was killed (code CLD_EXITED,
 * CLD_KILLED, CLD_DUMPED: status its exit code or signal), stopped or
 * continued: p's exit signal (SIGCHLD) with that siginfo.
 */
void childsignal(struct proc *p, int code, int status);
/* The same for the exit of p, a zombie, from its wait status p_xstat. */
void childsignal_exit(struct proc *p);

/*
 * Called, once set, when a signal becomes pending for process p or a
 * thread of it: fs/signalfd.c sets it at its first signalfd, to wake the
 * readers and pollers of signalfds (the signals they read are blocked,
 * so nothing else wakes them).
 */
extern void (*signal_pending_hook)(struct proc *p);

/* Gets lp to notice a signal: ends an interruptible sleep, or its run. */
void sigwakeup(struct lwp *lp);

/*
 * Takes a pending signal of allow for lp, its own before its process's
 * (each lowest-numbered first, faults ahead), into *info.  Returns it, or
 * 0 if none is pending.
 */
int sigdequeue(struct lwp *lp, ksigset_t allow, siginfo_t *info);

/*
 * The group stop (kern_sigstop.c).  sigstop: lp takes stop signal sig;
 * every thread of its process stops.  sigstop_wait: lp stops with its
 * process until SIGCONT or SIGKILL; the last thread to stop makes the
 * process stopped and tells its parent.
 */
void sigstop(struct lwp *lp, int sig);
void sigstop_wait(struct lwp *lp);

/*
 * True if lp has a signal to act on now (pending and not blocked), or
 * must stop with its process.
 */
bool issignal_pending(const struct lwp *lp);

/* True if SIGKILL is pending for lp: its process is being killed. */
bool sig_fatal(const struct lwp *lp);

/*
 * Installs sched_signal_hook: sleeps see the signals already pending
 * (a PCATCH sleep ends on one the thread would take, a PKILL one on
 * one that kills).
 */
void sig_init(void);

/*
 * Acts on one pending signal of lp: runs its default action (which may
 * stop or end the process) or builds a signal frame for its handler.
 */
void postsig(struct lwp *lp);

/*
 * Called, when set, with each signal p takes, or drops as ignored, and
 * its siginfo: the tracer's (--strace) "--- SIGCHLD {...} ---".  A hook
 * the tracer sets, so that the process layer does not call up into the
 * system-call layer.
 */
extern void (*proc_signal_hook)(struct proc *p, const siginfo_t *si);

/*
 * rt_sigtimedwait (kern_sigwait.c): waits until a signal of set is pending for lp, takes
 * it into *info and returns it; timeout_ns < 0: no limit.  -EAGAIN when
 * the time is up, -EINTR when another signal (or a stop) comes first.
 */
long kern_sigtimedwait(struct lwp *lp, ksigset_t set, int64_t timeout_ns,
    siginfo_t *info);

/*
 * The signal frame (kern_sigframe.c), in lp's own thread.  sendsig builds
 * the frame of info for handler sa on lp's user stack (or its sigaltstack),
 * with the FPU state in lwp_vf (which the caller has saved from the
 * host), and points lp's registers at the handler: 0, or -EFAULT if the
 * stack is unusable.  sigreturn_frame restores lp from the frame at its user stack
 * pointer (rt_sigreturn): 0 or -EFAULT.
 */
int sendsig(struct lwp *lp, const siginfo_t *info,
    const struct linux_sigaction *sa);
int sigreturn_frame(struct lwp *lp);

/*
 * Settles a system call that a signal interrupted (LWP_RESTART): it fails
 * with EINTR or runs again, as Linux decides from its -ERESTART* code and
 * sa, the handler about to run (NULL: none runs).
 */
void syscall_restart(struct lwp *lp, const struct linux_sigaction *sa);

/*
 * Sets sig's action from *nsa (NULL: leaves it) and gives the old one in
 * *osa (rt_sigaction): 0 or -EINVAL.
 */
int kern_sigaction(struct lwp *lp, int sig, const struct linux_sigaction *nsa,
    struct linux_sigaction *osa);

/*
 * Sets lp's signal mask (SIGKILL and SIGSTOP stay unblocked); a signal
 * pending for the process that lp now blocks wakes another thread.
 */
void sigprocmask1(struct lwp *lp, ksigset_t newmask);

/*
 * The process is being created: its signal actions are a copy of its
 * parent's (fork), or with share the parent's own, referenced
 * (CLONE_SIGHAND).  0 or -ENOMEM.
 */
int sigacts_fork(struct proc *child, const struct proc *parent, bool share);
/* The actions become p's own copy if shared (execve).  0 or -ENOMEM. */
int sigacts_unshare(struct proc *p);
/* exec: handled signals go back to their default action. */
void sigacts_exec(struct proc *p);
/* Drops p's reference to its signal actions. */
void sigacts_free(struct proc *p);

#endif /* KERN_SIGNAL_H */

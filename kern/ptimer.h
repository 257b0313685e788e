/*
 * POSIX per-process timers (proc/kern_ptimer.c): timer_create and its
 * family.  A timer counts on one clock (REALTIME, MONOTONIC, BOOTTIME,
 * their _ALARM forms, or the process's or its creating thread's CPU
 * time) and at each expiry posts its signal (SI_TIMER, with its id and
 * value) to the process or one thread, or nothing (SIGEV_NONE).  While
 * its signal is still queued, further expiries are counted as overruns,
 * given with the signal when it is taken (si_overrun) and by
 * timer_getoverrun.  Timers are the process's own: not inherited by
 * fork, gone at exec and exit.  Each counts as a pending signal of its
 * creator's real user, whose RLIMIT_SIGPENDING bounds them (as Linux's).
 */
#ifndef KERN_PTIMER_H
#define KERN_PTIMER_H

#include <signal.h>
#include <time.h>

struct lwp;
struct proc;

/* Linux's struct sigevent as timer_create reads it (64 bytes). */
struct ksigevent {
	union sigval kse_value;
	int kse_signo;
	int kse_notify;		/* SIGEV_SIGNAL, SIGEV_NONE, SIGEV_THREAD, |SIGEV_THREAD_ID */
	union {
		int kse_tid;	/* SIGEV_THREAD_ID's thread */
		char kse_pad[64 - 16];
	};
};

/*
 * Creates a timer of lp's process on clock as ev asks (NULL: SIGALRM to
 * the process with the timer's id as its value).  Its id, or -EINVAL
 * (bad clock or event), -EOPNOTSUPP (a clock without timers), -EAGAIN
 * (the limit), -ENOMEM.
 */
int ptimer_create(struct lwp *lp, int clock, const struct ksigevent *ev);

/*
 * timer_settime: arms timer id of p (flags TIMER_ABSTIME: value is a
 * time of its clock) or disarms it (a zero value), and gives what was
 * left in *old.  0, -EINVAL.
 */
int ptimer_settime(struct proc *p, int id, int flags,
    const struct itimerspec *value, struct itimerspec *old);
/* timer_gettime: the time left and the interval.  0 or -EINVAL. */
int ptimer_gettime(struct proc *p, int id, struct itimerspec *cur);
/* timer_getoverrun: the overruns of the last signal taken, or -EINVAL. */
int ptimer_getoverrun(struct proc *p, int id);
/* timer_delete: 0 or -EINVAL. */
int ptimer_delete(struct proc *p, int id);

/* Deletes every timer of p (exec, exit). */
void ptimer_exit(struct proc *p);

/*
 * A timer's signal (SI_TIMER) is being taken by a thread of p: sets its
 * si_overrun to the overruns since it was posted and starts the count
 * again (sigdequeue).
 */
void ptimer_delivered(struct proc *p, siginfo_t *info);

#endif /* KERN_PTIMER_H */

/*
 * POSIX per-process timers (kern/ptimer.h).  Each timer is a callout
 * armed for its next expiry on its clock.  As Linux's, a timer whose
 * signal was queued is not armed again until the signal is taken: then
 * the periods that passed meanwhile are counted at once as its overruns
 * (ptimer_delivered), so that a short interval costs one expiry per
 * signal taken rather than a callout per period.  A timer whose signal
 * was not queued (ignored, coalesced with one pending, or SIGEV_NONE's
 * none) goes on counting overruns by itself.
 *
 * The CPU-time clocks advance only while their threads run, which no
 * callout can wait for: such a timer looks again after the least time
 * its clock could take to get there (the time left, halved for a
 * process of two CPUs' threads), but not sooner than PTIMER_POLL_NS.
 */
#include <limits.h>
#include <string.h>

#include "kern/kernel.h"
#include "kern/proc.h"
#include "kern/ptimer.h"
#include "kern/signal.h"
#include "kern/timeout.h"
#include "kern/ucred.h"
#include "kern/vclock.h"
#include "kern/kmem.h"

#define PTIMER_POLL_NS	1000000		/* a CPU-time timer's least wait */
#define PTIMER_MIN_NS	100000		/* a timer re-armed without a signal queued */

struct ptimer {
	struct proc *pt_proc;
	int pt_id;
	int pt_clock;
	int pt_notify;			/* SIGEV_SIGNAL, SIGEV_NONE, SIGEV_THREAD_ID */
	int pt_signo;
	pid_t pt_tid;			/* SIGEV_THREAD_ID's, or THREAD_CPUTIME_ID's */
	uid_t pt_uid;			/* whose RLIMIT_SIGPENDING counts it */
	union sigval pt_value;
	int64_t pt_expires;		/* ns of pt_clock; 0: disarmed */
	int64_t pt_interval;		/* ns, 0: one-shot */
	int pt_overrun;			/* since the signal was posted */
	int pt_overrun_last;		/* of the signal taken last */
	bool pt_queued;			/* its signal waits to be taken */
	struct callout pt_callout;
	TAILQ_ENTRY(ptimer) pt_link;
};

static int64_t
sat_add(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

static int
sat_int(int64_t a, int64_t b)
{
	int64_t s = a + b;
	return s > INT_MAX ? INT_MAX : (int)s;
}

static struct ptimer *
ptimer_find(struct proc *p, int id)
{
	struct ptimer *pt;
	TAILQ_FOREACH(pt, &p->p_timers, pt_link)
		if (pt->pt_id == id)
			return pt;
	return NULL;
}

/* The lwp a thread-directed timer names, if it is still of p. */
static struct lwp *
ptimer_thread(const struct ptimer *pt)
{
	struct lwp *lp = lwpfind(pt->pt_tid);
	return lp != NULL && lp->lwp_proc == pt->pt_proc ? lp : NULL;
}

/* pt's clock now, or -1 if the thread whose CPU time it counts is gone. */
static int64_t
ptimer_now(const struct ptimer *pt)
{
	const struct lwp *lp = NULL;
	if (pt->pt_clock == CLOCK_THREAD_CPUTIME_ID) {
		if ((lp = ptimer_thread(pt)) == NULL)
			return -1;
	} else if (pt->pt_clock == CLOCK_PROCESS_CPUTIME_ID) {
		if ((lp = TAILQ_FIRST(&pt->pt_proc->p_lwps)) == NULL)
			return -1;
	}
	return clock_ns(lp, pt->pt_clock);
}

static void ptimer_fire(void *arg);

/* Arms pt's callout for pt_expires, its clock being at now; least: its least wait. */
static void
ptimer_arm(struct ptimer *pt, int64_t now, int64_t least)
{
	int64_t delta = pt->pt_expires > now ? pt->pt_expires - now : 0;
	if (pt->pt_notify == SIGEV_NONE)
		return;		/* nothing to do at expiry: gettime computes */
	if (pt->pt_clock == CLOCK_PROCESS_CPUTIME_ID)
		delta /= 2;
	if (pt->pt_clock == CLOCK_PROCESS_CPUTIME_ID ||
	    pt->pt_clock == CLOCK_THREAD_CPUTIME_ID)
		least = MAX(least, PTIMER_POLL_NS);
	callout_reset(&pt->pt_callout, (uint64_t)MAX(delta, least), ptimer_fire, pt);
}

/*
 * Moves a periodic pt's expiry past now, counting the periods skipped as
 * overruns.
 */
static void
ptimer_forward(struct ptimer *pt, int64_t now)
{
	if (now < pt->pt_expires || pt->pt_interval == 0)
		return;
	int64_t n = (now - pt->pt_expires) / pt->pt_interval + 1;
	pt->pt_overrun = sat_int(pt->pt_overrun, n);
	pt->pt_expires = n > INT64_MAX / pt->pt_interval ? INT64_MAX :
	    sat_add(pt->pt_expires, n * pt->pt_interval);
}

/* Posts pt's signal; true if it was queued with its siginfo. */
static bool
ptimer_post(struct ptimer *pt)
{
	struct proc *p = pt->pt_proc;
	struct lwp *lp = NULL;
	siginfo_t si;

	if (pt->pt_notify == SIGEV_THREAD_ID && (lp = ptimer_thread(pt)) == NULL)
		return false;	/* its thread is gone: nobody to tell */
	siginfo_init(&si, pt->pt_signo, SI_TIMER, NULL);
	si.si_timerid = pt->pt_id;
	si.si_overrun = 0;
	si.si_value = pt->pt_value;
	if ((lp != NULL ? lwpsignal_info(lp, &si) : psignal_info(p, &si)) < 0)
		return false;
	return sigqueue_has_timer(lp != NULL ? &lp->lwp_sigqueue :
	    &p->p_sigqueue, pt->pt_id);
}

/* pt's callout: it expires (or, on a CPU-time clock, looks again). */
static void
ptimer_fire(void *arg)
{
	struct ptimer *pt = arg;
	int64_t now = ptimer_now(pt);

	if (now < 0) {
		pt->pt_expires = 0;	/* its thread is gone: it stops */
		return;
	}
	if (now < pt->pt_expires) {	/* early, by slew or CPU time */
		ptimer_arm(pt, now, 0);
		return;
	}
	if (ptimer_post(pt)) {
		/* Armed again when the signal is taken (ptimer_delivered). */
		pt->pt_queued = true;
		return;
	}
	if (pt->pt_interval == 0) {
		pt->pt_expires = 0;
		return;
	}
	ptimer_forward(pt, now);
	pt->pt_overrun = sat_int(pt->pt_overrun, -1);	/* this one was no overrun */
	ptimer_arm(pt, now, PTIMER_MIN_NS);
}

void
ptimer_delivered(struct proc *p, siginfo_t *info)
{
	struct ptimer *pt = ptimer_find(p, info->si_timerid);
	if (pt == NULL || !pt->pt_queued)
		return;		/* deleted or set again since */
	pt->pt_queued = false;
	if (pt->pt_interval != 0 && pt->pt_expires != 0) {
		int64_t now = ptimer_now(pt);
		if (now >= 0) {
			ptimer_forward(pt, now);
			pt->pt_overrun = sat_int(pt->pt_overrun, -1);
			ptimer_arm(pt, now, 0);
		}
	} else {
		pt->pt_expires = 0;
	}
	info->si_overrun = pt->pt_overrun;
	pt->pt_overrun_last = pt->pt_overrun;
	pt->pt_overrun = 0;
}

int
ptimer_create(struct lwp *lp, int clock, const struct ksigevent *ev)
{
	struct proc *p = lp->lwp_proc;
	struct ptimer *pt = NULL;

	switch (clock) {
	case CLOCK_REALTIME:
	case CLOCK_MONOTONIC:
	case CLOCK_BOOTTIME:
	case CLOCK_PROCESS_CPUTIME_ID:
	case CLOCK_THREAD_CPUTIME_ID:
		break;
	case CLOCK_REALTIME_ALARM:	/* nothing suspends here */
		clock = CLOCK_REALTIME;
		break;
	case CLOCK_BOOTTIME_ALARM:
		clock = CLOCK_BOOTTIME;
		break;
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_REALTIME_COARSE:
	case CLOCK_MONOTONIC_COARSE:
		return -EOPNOTSUPP;	/* as Linux: these have no timers */
	default:
		kprintf_ratelimited("pid %d: timer_create: clock %d not supported\n",
		    p->p_pid, clock);
		return -EINVAL;
	}
	/*
	 * As Linux, the count and the id are taken before the event is
	 * checked: a refused event uses up an id.
	 */
	uid_t uid = p->p_ucred->cr_ruid;
	int error = sigcount_reserve(uid, p->p_rlimit[RLIMIT_SIGPENDING].rlim_cur);
	if (error < 0)
		return error;
	int id;
	do {	/* the next id not in use, from 0 up */
		id = p->p_timer_nextid;
		p->p_timer_nextid = id == INT_MAX ? 0 : id + 1;
	} while (ptimer_find(p, id) != NULL);

	int notify = ev != NULL ? ev->kse_notify : SIGEV_SIGNAL;
	int signo = ev != NULL ? ev->kse_signo : SIGALRM;
	switch (notify) {
	case SIGEV_THREAD_ID: {
		struct lwp *t = lwpfind(ev->kse_tid);
		if (t == NULL || t->lwp_proc != p)
			error = -EINVAL;
	}
		/* FALLTHROUGH */
	case SIGEV_SIGNAL:
	case SIGEV_THREAD:	/* the library's thread: a signal to us */
		if (signo <= 0 || signo > LINUX_NSIG)
			error = -EINVAL;
		break;
	case SIGEV_NONE:
		break;
	default:
		error = -EINVAL;
	}
	if (error == 0 && (pt = kmalloc(sizeof(*pt), KM_ZERO)) == NULL)
		error = -ENOMEM;
	if (error < 0) {
		sigcount_release(uid);
		return error;
	}
	pt->pt_id = id;
	pt->pt_uid = uid;
	pt->pt_proc = p;
	pt->pt_clock = clock;
	pt->pt_notify = notify == SIGEV_THREAD ? SIGEV_SIGNAL : notify;
	pt->pt_signo = signo;
	pt->pt_tid = notify == SIGEV_THREAD_ID ? ev->kse_tid : lp->lwp_tid;
	if (ev != NULL)
		pt->pt_value = ev->kse_value;
	else
		pt->pt_value.sival_int = id;
	TAILQ_INSERT_TAIL(&p->p_timers, pt, pt_link);
	return pt->pt_id;
}

static int64_t
ts_ns(const struct timespec *ts)
{
	if (ts->tv_sec > INT64_MAX / 1000000000 - 1)
		return INT64_MAX;
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

static void
ns_ts(int64_t ns, struct timespec *ts)
{
	ts->tv_sec = ns / 1000000000;
	ts->tv_nsec = ns % 1000000000;
}

static bool
ts_valid(const struct timespec *ts)
{
	return ts->tv_sec >= 0 && ts->tv_nsec >= 0 && ts->tv_nsec < 1000000000;
}

int
ptimer_gettime(struct proc *p, int id, struct itimerspec *cur)
{
	struct ptimer *pt = ptimer_find(p, id);
	int64_t left = 0;

	if (pt == NULL)
		return -EINVAL;
	memset(cur, 0, sizeof(*cur));
	if (pt->pt_expires == 0)
		return 0;
	int64_t now = ptimer_now(pt);
	if (now >= 0) {
		left = pt->pt_expires - now;
		if (left <= 0 && pt->pt_interval != 0)
			left = pt->pt_interval - (now - pt->pt_expires) % pt->pt_interval;
		else if (left <= 0)
			left = pt->pt_notify == SIGEV_NONE ? 0 : 1;	/* due */
	}
	ns_ts(left, &cur->it_value);
	ns_ts(pt->pt_interval, &cur->it_interval);
	return 0;
}

int
ptimer_settime(struct proc *p, int id, int flags, const struct itimerspec *value,
    struct itimerspec *old)
{
	struct ptimer *pt = ptimer_find(p, id);

	if (pt == NULL)
		return -EINVAL;
	if (!ts_valid(&value->it_value) || !ts_valid(&value->it_interval))
		return -EINVAL;
	if (old != NULL)
		(void)ptimer_gettime(p, id, old);
	callout_stop(&pt->pt_callout);
	pt->pt_queued = false;	/* a signal still queued counts no more */
	pt->pt_overrun = pt->pt_overrun_last = 0;
	pt->pt_expires = pt->pt_interval = 0;
	int64_t v = ts_ns(&value->it_value);
	if (v == 0)
		return 0;
	int64_t now = ptimer_now(pt);
	if (now < 0)
		return 0;	/* its thread is gone: it cannot run */
	pt->pt_expires = (flags & TIMER_ABSTIME) ? v : sat_add(now, v);
	pt->pt_interval = ts_ns(&value->it_interval);
	ptimer_arm(pt, now, 0);
	return 0;
}

int
ptimer_getoverrun(struct proc *p, int id)
{
	struct ptimer *pt = ptimer_find(p, id);
	return pt != NULL ? pt->pt_overrun_last : -EINVAL;
}

int
ptimer_delete(struct proc *p, int id)
{
	struct ptimer *pt = ptimer_find(p, id);
	if (pt == NULL)
		return -EINVAL;
	callout_stop(&pt->pt_callout);
	TAILQ_REMOVE(&p->p_timers, pt, pt_link);
	sigcount_release(pt->pt_uid);
	kfree(pt);
	return 0;
}

void
ptimer_exit(struct proc *p)
{
	struct ptimer *pt;
	while ((pt = TAILQ_FIRST(&p->p_timers)) != NULL)
		(void)ptimer_delete(p, pt->pt_id);
	p->p_timer_nextid = 0;
}

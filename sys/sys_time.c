/*
 * Time: the clocks, sleeps and process times.  The clocks are the
 * kernel's (kern/vclock.h): the same the vDSO reads without a trap, so
 * both agree; the host's wall clock and uptime where the TSC cannot
 * serve.
 */
#include <limits.h>
#include <sys/random.h>	/* GRND_* */
#include <sys/time.h>
#include <sys/times.h>
#include <time.h>

#include "host/random.h"
#include "kern/signal.h"
#include "kern/vclock.h"
#include "sys/syscall.h"
#include "kern/uio.h"

long
sys_clock_gettime(struct lwp *lp, const uint64_t *args)
{
	int64_t ns = clock_ns(lp, (int)args[0]);
	if (ns < 0)
		return ns;
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };
	return copyout(&ts, args[1], sizeof(ts));
}

long
sys_clock_getres(struct lwp *lp, const uint64_t *args)
{
	if (clock_ns(lp, (int)args[0]) < 0)
		return -EINVAL;
	struct timespec ts = { 0, vclock_res((int)args[0]) };
	return args[1] != 0 ? copyout(&ts, args[1], sizeof(ts)) : 0;
}

long
sys_gettimeofday(struct lwp *lp, const uint64_t *args)
{
	struct timeval tv;
	int64_t ns = clock_ns(lp, CLOCK_REALTIME);
	tv.tv_sec = ns / 1000000000;
	tv.tv_usec = ns % 1000000000 / 1000;
	if (args[0] != 0 && copyout(&tv, args[0], sizeof(tv)) < 0)
		return -EFAULT;
	/* The time zone: always UTC here, but stored as Linux does. */
	static const struct timezone utc;
	if (args[1] != 0 && copyout(&utc, args[1], sizeof(utc)) < 0)
		return -EFAULT;
	return 0;
}

long
sys_time(struct lwp *lp, const uint64_t *args)
{
	int64_t t = clock_ns(lp, CLOCK_REALTIME) / 1000000000;
	if (args[0] != 0 && copyout(&t, args[0], sizeof(t)) < 0)
		return -EFAULT;
	return t;
}

/*
 * Sleeps until the clock reaches deadline (ns).  -EINTR if a signal
 * comes first, with the time left in *left.
 */
static int
sleep_until(struct lwp *lp, int clock, int64_t deadline, int64_t *left)
{
	static int chan;
	for (;;) {
		int64_t now = clock_ns(lp, clock);
		if (now >= deadline)
			return 0;
		int error = tsleep(&chan, PCATCH, "nanslp", (uint64_t)(deadline - now));
		if (error == EINTR) {
			*left = deadline - clock_ns(lp, clock);
			return -EINTR;
		}
	}
}

static long nanosleep_restart(struct lwp *lp);

/*
 * The sleep to deadline on clock, interrupted or not.  A relative sleep
 * that a signal interrupts reports the time left; if no handler runs
 * (the signal stopped and continued the process, say) restart_syscall
 * goes on to the same deadline rather than sleeping the whole time again.
 */
static long
nanosleep_to(struct lwp *lp, int clock, int64_t deadline, bool absolute,
    uint64_t urem)
{
	int64_t left;
	if (sleep_until(lp, clock, deadline, &left) == 0)
		return 0;
	if (absolute)
		return -ERESTARTNOHAND;
	if (urem != 0) {
		struct timespec ts = { left / 1000000000, left % 1000000000 };
		if (copyout(&ts, urem, sizeof(ts)) < 0)
			return -EFAULT;
	}
	lp->lwp_restart = (struct restart_block){ .rb_fn = nanosleep_restart,
	    .rb_clock = clock, .rb_deadline = deadline, .rb_rmtp = urem };
	return -ERESTART_RESTARTBLOCK;
}

static long
nanosleep_restart(struct lwp *lp)
{
	struct restart_block rb = lp->lwp_restart;
	return nanosleep_to(lp, rb.rb_clock, rb.rb_deadline, false, rb.rb_rmtp);
}

static int
timespec_in(uint64_t uaddr, int64_t *ns)
{
	struct timespec ts;
	if (copyin(uaddr, &ts, sizeof(ts)) < 0)
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000)
		return -EINVAL;
	*ns = ts.tv_sec > INT64_MAX / 1000000000 - 1 ? INT64_MAX / 2 :
	    ts.tv_sec * 1000000000 + ts.tv_nsec;
	return 0;
}

static long
nanosleep1(struct lwp *lp, int clock, int flags, uint64_t ureq, uint64_t urem)
{
	int64_t req;
	int error = timespec_in(ureq, &req);
	if (error < 0)
		return error;
	bool absolute = (flags & TIMER_ABSTIME) != 0;
	int64_t deadline = absolute ? req : clock_ns(lp, clock) + req;
	return nanosleep_to(lp, clock, deadline, absolute, urem);
}

long
sys_nanosleep(struct lwp *lp, const uint64_t *args)
{
	return nanosleep1(lp, CLOCK_MONOTONIC, 0, args[0], args[1]);
}

long
sys_clock_nanosleep(struct lwp *lp, const uint64_t *args)
{
	if (clock_ns(lp, (int)args[0]) < 0)
		return -EINVAL;
	if ((int)args[0] == CLOCK_THREAD_CPUTIME_ID)
		return -EOPNOTSUPP;	/* as Linux: a clock no one sleeps on */
	return nanosleep1(lp, (int)args[0], (int)args[1], args[2], args[3]);
}

/* times(buf): CPU times in Linux's USER_HZ (100) ticks; the uptime. */
long
sys_times(struct lwp *lp, const uint64_t *args)
{
	struct proc *p = lp->lwp_proc;
	uint64_t u, s;
	proc_cputime(p, &u, &s);
	struct tms t = {
		(clock_t)(u / 10000000),
		(clock_t)(s / 10000000),
		(clock_t)(p->p_cutime / 10000000),
		(clock_t)(p->p_cstime / 10000000),
	};
	if (args[0] != 0 && copyout(&t, args[0], sizeof(t)) < 0)
		return -EFAULT;
	return (long)(nanouptime() / 10000000);
}

/*
 * getrusage(who, ru): the CPU times of the process (RUSAGE_SELF), of its
 * waited-for children (RUSAGE_CHILDREN) or of the calling thread
 * (RUSAGE_THREAD); the other counts are not kept (0).
 */
long
sys_getrusage(struct lwp *lp, const uint64_t *args)
{
	struct proc *p = lp->lwp_proc;
	struct rusage ru;
	uint64_t u, s;

	switch ((int)args[0]) {
	case RUSAGE_SELF:
		proc_cputime(p, &u, &s);
		break;
	case RUSAGE_CHILDREN:
		u = p->p_cutime;
		s = p->p_cstime;
		break;
	case RUSAGE_THREAD:
		lwp_cputime(lp, &u, &s);
		break;
	default:
		return -EINVAL;
	}
	rusage_fill(&ru, u, s);
	return copyout(&ru, args[1], sizeof(ru));
}

/*
 * getrandom(buf, len, flags): the host's random bytes, 256 at a time.  As
 * Linux, a buffer that turns bad part way gives the count stored before
 * the bad page, and a signal pending after some bytes ends the call.
 */
long
sys_getrandom(struct lwp *lp, const uint64_t *args)
{
	char buf[256];
	size_t len = MIN(args[1], (uint64_t)INT_MAX), done = 0;
	if (args[2] & ~(uint64_t)(GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE))
		return -EINVAL;
	if (!user_range_ok(args[0], len))
		return -EFAULT;
	struct kiovec iov = { args[0], len };
	struct uio uio = { .uio_iov = &iov, .uio_iovcnt = 1, .uio_resid = len,
	    .uio_segflg = UIO_USERSPACE, .uio_rw = UIO_READ,
	    .uio_vmspace = lp->lwp_proc->p_vmspace };
	while (done < len) {
		size_t n = MIN(len - done, sizeof(buf));
		if (host_random(buf, n) < 0)
			return done > 0 ? (long)done : -EIO;
		int error = uiomove(buf, n, &uio);
		done = len - uio.uio_resid;
		if (error < 0)
			return done > 0 ? (long)done : error;
		if (issignal_pending(lp))
			break;
	}
	return (long)done;
}

static void
itimer_expire(void *arg)
{
	struct proc *p = arg;
	psignal_proc(p, SIGALRM);
	if (p->p_itimer_interval != 0)
		callout_reset(&p->p_itimer, p->p_itimer_interval, itimer_expire, p);
}

static uint64_t
tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000 + (uint64_t)tv->tv_usec * 1000;
}

static void
ns_tv(uint64_t ns, struct timeval *tv)
{
	tv->tv_sec = (time_t)(ns / 1000000000);
	tv->tv_usec = (suseconds_t)(ns % 1000000000 / 1000);
}

/* The real-time interval timer: value and interval left, in ns. */
static void
itimer_get(struct proc *p, struct itimerval *it)
{
	uint64_t now = nanouptime(), left = 0;
	if (p->p_itimer.c_pending && p->p_itimer.c_time > now)
		left = p->p_itimer.c_time - now;
	else if (p->p_itimer.c_pending)
		left = 1000;
	ns_tv(left, &it->it_value);
	ns_tv(p->p_itimer_interval, &it->it_interval);
}

static void
itimer_set(struct proc *p, const struct itimerval *it)
{
	p->p_itimer_interval = tv_ns(&it->it_interval);
	if (it->it_value.tv_sec == 0 && it->it_value.tv_usec == 0)
		callout_stop(&p->p_itimer);
	else
		callout_reset(&p->p_itimer, tv_ns(&it->it_value), itimer_expire, p);
}

long
sys_setitimer(struct lwp *lp, const uint64_t *args)
{
	struct itimerval it, old;
	struct proc *p = lp->lwp_proc;
	if (args[0] != ITIMER_REAL) {
		kprintf_ratelimited("pid %d: setitimer %d not implemented\n", p->p_pid, (int)args[0]);
		return -EINVAL;
	}
	if (args[1] != 0 && copyin(args[1], &it, sizeof(it)) < 0)
		return -EFAULT;
	if (args[1] != 0 && (it.it_value.tv_usec < 0 || it.it_value.tv_usec >= 1000000 ||
	    it.it_interval.tv_usec < 0 || it.it_interval.tv_usec >= 1000000 ||
	    it.it_value.tv_sec < 0 || it.it_interval.tv_sec < 0))
		return -EINVAL;
	itimer_get(p, &old);
	if (args[1] != 0)
		itimer_set(p, &it);
	if (args[2] != 0 && copyout(&old, args[2], sizeof(old)) < 0)
		return -EFAULT;
	return 0;
}

long
sys_getitimer(struct lwp *lp, const uint64_t *args)
{
	struct itimerval it;
	if (args[0] != ITIMER_REAL)
		return -EINVAL;
	itimer_get(lp->lwp_proc, &it);
	return copyout(&it, args[1], sizeof(it));
}

/* alarm: seconds left of the previous alarm (rounded up), 0 if none. */
long
sys_alarm(struct lwp *lp, const uint64_t *args)
{
	struct proc *p = lp->lwp_proc;
	struct itimerval old, it = { { 0, 0 }, { (time_t)(unsigned)args[0], 0 } };
	itimer_get(p, &old);
	itimer_set(p, &it);
	return old.it_value.tv_sec + (old.it_value.tv_usec > 0);
}

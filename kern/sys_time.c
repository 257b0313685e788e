/*
 * Time: the clocks, sleeps and process times.  Realtime is the host's;
 * the monotonic and boot clocks are the kernel's uptime.
 */
#include <sys/random.h>
#include <sys/time.h>
#include <sys/times.h>
#include <time.h>

#include "kern/syscall.h"

/* The clock's time in ns, or -EINVAL for an unknown clock. */
static int64_t
clock_ns(struct lwp *lp, int clock)
{
	struct timespec ts;
	switch (clock) {
	case CLOCK_REALTIME:
	case CLOCK_REALTIME_COARSE:
		clock_gettime(CLOCK_REALTIME, &ts);
		return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_MONOTONIC_COARSE:
	case CLOCK_BOOTTIME:
		return (int64_t)nanouptime();
	case CLOCK_PROCESS_CPUTIME_ID:
	case CLOCK_THREAD_CPUTIME_ID:
		return (int64_t)lp->lwp_thread->td_runtime;
	}
	return -EINVAL;
}

SYSCALL(clock_gettime)
{
	int64_t ns = clock_ns(lp, (int)args[0]);
	if (ns < 0)
		return ns;
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };
	return copyout(&ts, args[1], sizeof(ts));
}

SYSCALL(clock_getres)
{
	if (clock_ns(lp, (int)args[0]) < 0)
		return -EINVAL;
	struct timespec ts = { 0, 1 };
	return args[1] != 0 ? copyout(&ts, args[1], sizeof(ts)) : 0;
}

SYSCALL(gettimeofday)
{
	struct timeval tv;
	int64_t ns = clock_ns(lp, CLOCK_REALTIME);
	tv.tv_sec = ns / 1000000000;
	tv.tv_usec = ns % 1000000000 / 1000;
	if (args[0] != 0 && copyout(&tv, args[0], sizeof(tv)) < 0)
		return -EFAULT;
	return 0;
}

SYSCALL(time)
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
	int64_t req, left = 0;
	int error = timespec_in(ureq, &req);
	if (error < 0)
		return error;
	int64_t deadline = (flags & TIMER_ABSTIME) ? req : clock_ns(lp, clock) + req;
	error = sleep_until(lp, clock, deadline, &left);
	if (error == -EINTR && urem != 0 && !(flags & TIMER_ABSTIME)) {
		struct timespec ts = { left / 1000000000, left % 1000000000 };
		(void)copyout(&ts, urem, sizeof(ts));
	}
	return error;
}

SYSCALL(nanosleep)
{
	return nanosleep1(lp, CLOCK_MONOTONIC, 0, args[0], args[1]);
}

SYSCALL(clock_nanosleep)
{
	if (clock_ns(lp, (int)args[0]) < 0 || (int)args[0] == CLOCK_THREAD_CPUTIME_ID)
		return -EINVAL;
	return nanosleep1(lp, (int)args[0], (int)args[1], args[2], args[3]);
}

SYSCALL(times)
{
	struct proc *p = lp->lwp_proc;
	struct tms t = {
		(clock_t)(lp->lwp_thread->td_runtime / 10000000),
		0,
		(clock_t)(p->p_cutime / 10000000),
		(clock_t)(p->p_cstime / 10000000),
	};
	if (args[0] != 0 && copyout(&t, args[0], sizeof(t)) < 0)
		return -EFAULT;
	return (long)(nanouptime() / 10000000);
}

SYSCALL(getrandom)
{
	char buf[256];
	size_t n = MIN(args[1], sizeof(buf));
	(void)lp;
	if (args[2] & ~(uint64_t)(GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE))
		return -EINVAL;
	if (getrandom(buf, n, 0) != (ssize_t)n)
		return -EIO;
	return copyout(buf, args[0], n) < 0 ? -EFAULT : (long)n;
}

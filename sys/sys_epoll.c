/*
 * The epoll system calls over fs/eventpoll.c: epoll_create, epoll_create1,
 * epoll_ctl, epoll_wait, epoll_pwait, epoll_pwait2.
 */
#include <errno.h>
#include <sys/epoll.h>
#include <time.h>

#include "fs/eventpoll.h"
#include "kern/signal.h"
#include "sys/syscall.h"
#include "kern/kmem.h"

#define P	(&lp->lwp_proc->p_fs)

/* The events one call gathers at most (a wait may report fewer). */
#define EPOLL_BATCH	1024

long
sys_epoll_create(struct lwp *lp, const uint64_t *args)
{
	if ((int)args[0] <= 0)
		return -EINVAL;
	return kern_epoll_create(P, 0);
}

long
sys_epoll_create1(struct lwp *lp, const uint64_t *args)
{
	return kern_epoll_create(P, (int)args[0]);
}

/* epoll_ctl(epfd, op, fd, event) */
long
sys_epoll_ctl(struct lwp *lp, const uint64_t *args)
{
	struct linux_epoll_event ev = { 0, 0 };
	int op = (int)args[1];

	if (op != EPOLL_CTL_DEL && copyin(args[3], &ev, sizeof(ev)) < 0)
		return -EFAULT;
	return kern_epoll_ctl(P, (int)args[0], op, (int)args[2], &ev);
}

/*
 * The wait of every form: the events go out through a kernel array;
 * with a signal mask for the wait (umask 0: none).
 */
static long
epoll_wait1(struct lwp *lp, int epfd, uint64_t uevents, int max,
    int64_t timeout_ns, uint64_t umask, uint64_t masksize)
{
	if (max <= 0 || max > EP_MAX_EVENTS)
		return -EINVAL;
	if (!user_range_ok(uevents, (uint64_t)max * sizeof(struct linux_epoll_event)))
		return -EFAULT;
	ksigset_t old;
	int error = wait_sigmask(lp, umask, masksize, &old);
	if (error < 0)
		return error;
	int n = MIN(max, EPOLL_BATCH);
	struct linux_epoll_event *evs = kmalloc((size_t)n * sizeof(*evs), 0);
	long r = evs == NULL ? -ENOMEM : kern_epoll_wait(P, epfd, evs, n, timeout_ns);
	if (r > 0 && copyout(evs, uevents, (size_t)r * sizeof(*evs)) < 0)
		r = -EFAULT;
	kfree(evs);
	/* A handler that ended the wait runs with the wait's mask. */
	wait_sigmask_done(lp, r == -EINTR ? -ERESTARTNOHAND : r, old);
	return r;
}

/* A timeout in ms as epoll_wait takes it: negative for none. */
static int64_t
ms_timeout(int ms)
{
	return ms < 0 ? -1 : (int64_t)ms * 1000000;
}

long
sys_epoll_wait(struct lwp *lp, const uint64_t *args)
{
	return epoll_wait1(lp, (int)args[0], args[1], (int)args[2],
	    ms_timeout((int)args[3]), 0, 0);
}

/* epoll_pwait(epfd, events, maxevents, timeout, sigmask, sigsetsize) */
long
sys_epoll_pwait(struct lwp *lp, const uint64_t *args)
{
	return epoll_wait1(lp, (int)args[0], args[1], (int)args[2],
	    ms_timeout((int)args[3]), args[4], args[5]);
}

/* epoll_pwait2: the same with a timespec (NULL: no limit). */
long
sys_epoll_pwait2(struct lwp *lp, const uint64_t *args)
{
	int64_t timeout = -1;
	if (args[3] != 0) {
		struct timespec ts;
		if (copyin(args[3], &ts, sizeof(ts)) < 0)
			return -EFAULT;
		if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000)
			return -EINVAL;
		timeout = ts.tv_sec >= INT64_MAX / 1000000000 ? INT64_MAX :
		    ts.tv_sec * 1000000000 + ts.tv_nsec;
	}
	return epoll_wait1(lp, (int)args[0], args[1], (int)args[2], timeout,
	    args[4], args[5]);
}

/*
 * POSIX timers' system calls: timer_create, timer_settime,
 * timer_gettime, timer_getoverrun and timer_delete, which copy their
 * arguments and call proc/kern_ptimer.c.  A timer id is an int; the
 * calls take it as Linux's timer_t, the int in a long register.
 */
#include <time.h>

#include "kern/ptimer.h"
#include "sys/syscall.h"

long
sys_timer_create(struct lwp *lp, const uint64_t *args)
{
	struct ksigevent ev;
	int id;

	if (args[1] != 0 && copyin(args[1], &ev, sizeof(ev)) < 0)
		return -EFAULT;
	if ((id = ptimer_create(lp, (int)args[0], args[1] != 0 ? &ev : NULL)) < 0)
		return id;
	if (copyout(&id, args[2], sizeof(id)) < 0) {	/* its id is used up, as Linux's */
		(void)ptimer_delete(lp->lwp_proc, id);
		return -EFAULT;
	}
	return 0;
}

long
sys_timer_settime(struct lwp *lp, const uint64_t *args)
{
	struct itimerspec value, old;

	/* Other flags are ignored, as Linux does. */
	if (copyin(args[2], &value, sizeof(value)) < 0)
		return -EFAULT;
	int error = ptimer_settime(lp->lwp_proc, (int)args[0], (int)args[1] & TIMER_ABSTIME,
	    &value, args[3] != 0 ? &old : NULL);
	if (error < 0)
		return error;
	if (args[3] != 0 && copyout(&old, args[3], sizeof(old)) < 0)
		return -EFAULT;
	return 0;
}

long
sys_timer_gettime(struct lwp *lp, const uint64_t *args)
{
	struct itimerspec cur;
	int error = ptimer_gettime(lp->lwp_proc, (int)args[0], &cur);
	if (error < 0)
		return error;
	return copyout(&cur, args[1], sizeof(cur));
}

long
sys_timer_getoverrun(struct lwp *lp, const uint64_t *args)
{
	return ptimer_getoverrun(lp->lwp_proc, (int)args[0]);
}

long
sys_timer_delete(struct lwp *lp, const uint64_t *args)
{
	return ptimer_delete(lp->lwp_proc, (int)args[0]);
}

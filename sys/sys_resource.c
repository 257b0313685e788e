/*
 * Resource limits: prlimit64, getrlimit and setrlimit, over kern_prlimit
 * (proc/kern_resource.c).
 */
#include <sys/resource.h>

#include "kern/proc.h"
#include "sys/syscall.h"

/*
 * prlimit64(pid, resource, new, old): pid 0 is the caller.  As Linux, the
 * new limit is in place before the old one is stored (so a bad old
 * pointer gives -EFAULT after the change); only root raises a hard
 * limit; RLIMIT_NOFILE, RLIMIT_FSIZE, RLIMIT_AS and RLIMIT_STACK take
 * effect at once on the descriptor table and the address space.
 */
long
sys_prlimit64(struct lwp *lp, const uint64_t *args)
{
	struct rlimit nl, old;

	if (args[2] != 0 && copyin(args[2], &nl, sizeof(nl)) < 0)
		return -EFAULT;
	int error = kern_prlimit(lp->lwp_proc, (pid_t)args[0],
	    (unsigned)args[1], args[2] != 0 ? &nl : NULL, &old);
	if (error < 0)
		return error;
	if (args[3] != 0 && copyout(&old, args[3], sizeof(old)) < 0)
		return -EFAULT;
	return 0;
}

long
sys_getrlimit(struct lwp *lp, const uint64_t *args)
{
	const uint64_t a[4] = { 0, args[0], 0, args[1] };
	return sys_prlimit64(lp, a);
}

long
sys_setrlimit(struct lwp *lp, const uint64_t *args)
{
	const uint64_t a[4] = { 0, args[0], args[1], 0 };
	return sys_prlimit64(lp, a);
}

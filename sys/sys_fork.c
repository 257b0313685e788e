/*
 * fork, vfork and clone (of processes): the argument decoding over fork1
 * (kern/kern_fork.c).
 */
#include <linux/sched.h>
#include <signal.h>

#include "kern/proc.h"
#include "sys/syscall.h"

long
sys_fork(struct lwp *lp, const uint64_t *args)
{
	(void)args;
	return fork1(lp, SIGCHLD, 0, 0, 0, 0);
}

long
sys_vfork(struct lwp *lp, const uint64_t *args)
{
	(void)args;
	return fork1(lp, CLONE_VFORK | CLONE_VM | SIGCHLD, 0, 0, 0, 0);
}

/*
 * clone(flags, newsp, parent_tid, child_tid, tls), as on x86-64.  Linux
 * reads only the low 32 bits of flags (clone3 has the others).
 */
long
sys_clone(struct lwp *lp, const uint64_t *args)
{
	return fork1(lp, (uint32_t)args[0], args[1], args[2], args[3], args[4]);
}

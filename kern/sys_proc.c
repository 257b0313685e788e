/*
 * System calls about the process itself: identity, limits, the thread
 * pointer, uname.
 */
#include <asm/prctl.h>
#include <sys/utsname.h>

#include "kern/syscall.h"
#include "kern/ucred.h"

#define UNAME_RELEASE	"6.1.0-vkernel"

SYSCALL(getpid)
{
	(void)args;
	return lp->lwp_proc->p_pid;
}

SYSCALL(gettid)
{
	(void)args;
	return lp->lwp_tid;
}

SYSCALL(getppid)
{
	(void)args;
	struct proc *pp = lp->lwp_proc->p_pptr;
	return pp != NULL ? pp->p_pid : 0;
}

SYSCALL(getuid)  { (void)args; return lp->lwp_proc->p_ucred->cr_ruid; }
SYSCALL(geteuid) { (void)args; return lp->lwp_proc->p_ucred->cr_uid; }
SYSCALL(getgid)  { (void)args; return lp->lwp_proc->p_ucred->cr_rgid; }
SYSCALL(getegid) { (void)args; return lp->lwp_proc->p_ucred->cr_gid; }

SYSCALL(set_tid_address)
{
	lp->lwp_clear_child_tid = args[0];
	return lp->lwp_tid;
}

/*
 * The thread pointer.  The host layer loads the bases on the next run
 * (FSGSBASE or arch_prctl in the stub), so this is bookkeeping only.
 */
SYSCALL(arch_prctl)
{
	switch (args[0]) {
	case ARCH_SET_FS:
	case ARCH_SET_GS:
		if (args[1] >= VM_USER_CANONICAL_END)
			return -EPERM;
		if (args[0] == ARCH_SET_FS)
			lp->lwp_vf->vx_fsbase = args[1];
		else
			lp->lwp_vf->vx_gsbase = args[1];
		return 0;
	case ARCH_GET_FS:
		return copyout(&lp->lwp_vf->vx_fsbase, args[1], 8);
	case ARCH_GET_GS:
		return copyout(&lp->lwp_vf->vx_gsbase, args[1], 8);
	}
	return -EINVAL;
}

SYSCALL(uname)
{
	struct utsname u;
	(void)lp;
	memset(&u, 0, sizeof(u));
	strcpy(u.sysname, "Linux");
	strcpy(u.nodename, "vkernel");
	strcpy(u.release, UNAME_RELEASE);
	strcpy(u.version, "#1 SMP vkernel");
	strcpy(u.machine, "x86_64");
	strcpy(u.domainname, "(none)");
	return copyout(&u, args[0], sizeof(u));
}

SYSCALL(sched_yield)
{
	(void)lp, (void)args;
	thread_yield();
	return 0;
}

/* prlimit64(pid, resource, new, old) for the calling process (pid 0). */
SYSCALL(prlimit64)
{
	struct proc *p = lp->lwp_proc;
	struct rlimit nl;
	unsigned res = (unsigned)args[1];

	if (args[0] != 0 && (pid_t)args[0] != p->p_pid)
		return -ESRCH;		/* others' limits: not yet */
	if (res >= RLIM_NLIMITS)
		return -EINVAL;
	if (args[2] != 0) {
		if (copyin(args[2], &nl, sizeof(nl)) < 0)
			return -EFAULT;
		if (nl.rlim_cur > nl.rlim_max)
			return -EINVAL;
		if (nl.rlim_max > p->p_rlimit[res].rlim_max &&
		    !cred_is_root(p->p_ucred))
			return -EPERM;
	}
	if (args[3] != 0 && copyout(&p->p_rlimit[res], args[3],
	    sizeof(struct rlimit)) < 0)
		return -EFAULT;
	if (args[2] != 0)
		p->p_rlimit[res] = nl;
	return 0;
}

SYSCALL(getrlimit)
{
	const uint64_t a[4] = { 0, args[0], 0, args[1] };
	return sys_prlimit64(lp, a);
}

SYSCALL(setrlimit)
{
	const uint64_t a[4] = { 0, args[0], args[1], 0 };
	return sys_prlimit64(lp, a);
}

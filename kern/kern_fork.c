/*
 * fork, vfork and clone (of processes).  The child gets a copy-on-write
 * copy of the address space, the descriptors, credentials, signal actions
 * and limits, and returns 0 from the same system call.  vfork is a fork
 * whose parent waits until the child execs or exits: the child does not
 * borrow the parent's memory (a guest must not rely on it either).
 */
#include <linux/sched.h>

#include "kern/signal.h"
#include "kern/ucred.h"
#include "kern/uio.h"
#include "vm/kmem.h"
#include "vm/vm.h"

#define CLONE_SUPPORTED	(CLONE_VFORK | CLONE_VM | CLONE_SETTLS | \
	CLONE_PARENT_SETTID | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | 0xff)

long
fork1(struct lwp *lp, uint64_t flags, uint64_t newsp, uint64_t ptid,
    uint64_t ctid, uint64_t tls)
{
	struct proc *p = lp->lwp_proc, *p2;
	int error;

	if ((flags & ~(uint64_t)CLONE_SUPPORTED) != 0 ||
	    ((flags & CLONE_VM) && !(flags & CLONE_VFORK))) {
		kprintf_ratelimited("pid %d: clone flags %#lx not supported\n", p->p_pid,
		    (unsigned long)flags);
		return -EINVAL;		/* threads: not yet */
	}
	if ((p2 = proc_alloc(p, p->p_ucred, &error)) == NULL)
		return error;
	p2->p_vmspace = vmspace_fork(p->p_vmspace);
	memcpy(p2->p_rlimit, p->p_rlimit, sizeof(p2->p_rlimit));
	p2->p_flags |= p->p_flags & P_INHERITED;
	memcpy(p2->p_comm, p->p_comm, sizeof(p2->p_comm));
	/* /proc/PID/exe; only that link is lost if memory is short. */
	if (p->p_exe != NULL &&
	    (p2->p_exe = kmalloc(strlen(p->p_exe) + 1, 0)) != NULL)
		strcpy(p2->p_exe, p->p_exe);
	p2->p_exitsig = (int)(flags & 0xff);
	struct lwp *lp2 = NULL;
	if (p2->p_vmspace == NULL || (error = fsproc_fork(&p2->p_fs, &p->p_fs, 0)) < 0 ||
	    (error = sigacts_fork(p2, p)) < 0 ||
	    (error = enterpgrp(p2, p->p_pgrp->pg_id, false)) < 0 ||
	    (lp2 = lwp_alloc(p2, lwp_main)) == NULL) {
		/* Unwind what was made, newest first. */
		if (p2->p_vmspace == NULL || error == 0)
			error = -ENOMEM;
		if (p2->p_sigacts != NULL)
			sigacts_free(p2);
		if (p2->p_fs.fp_fd != NULL)
			fsproc_exit(&p2->p_fs);
		if (p2->p_vmspace != NULL)
			vmspace_free(p2->p_vmspace);
		proc_free(p2);
		return error;
	}

	/* The child's registers and FPU are the parent's at the call. */
	lp2->lwp_tf = lp->lwp_tf;
	lp2->lwp_tf.tf_rax = 0;
	if (newsp != 0)
		lp2->lwp_tf.tf_rsp = newsp;
	*lp2->lwp_vf = *lp->lwp_vf;
	if (vmspace_ctl(vmspace_host_id(p->p_vmspace), VMSPACE_CTL_FPSAVE,
	    NULL, lp2->lwp_vf) == 0)
		lp2->lwp_tf.tf_xflags = PGEX_FPFAULT;
	if (flags & CLONE_SETTLS)
		lp2->lwp_vf->vx_fsbase = tls;
	lp2->lwp_sigmask = lp->lwp_sigmask;
	lwp_sched_init(lp2, lp);
	if (flags & CLONE_CHILD_CLEARTID)
		lp2->lwp_clear_child_tid = ctid;
	pid_t pid = p2->p_pid;
	if (flags & CLONE_PARENT_SETTID)
		(void)copyout(&pid, ptid, sizeof(pid));
	if (flags & CLONE_CHILD_SETTID)
		(void)vm_copyout(p2->p_vmspace, &pid, ctid, sizeof(pid));

	p2->p_state = PRS_NORMAL;
	if (flags & CLONE_VFORK)
		p2->p_flags |= P_VFORK;
	thread_start(lp2->lwp_thread);
	while (p2->p_flags & P_VFORK)
		tsleep(p2, 0, "vfork", 0);
	return pid;
}

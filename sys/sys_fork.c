/*
 * fork, vfork, clone and clone3: the argument decoding over fork1
 * (proc/kern_fork.c).
 */
#include <linux/sched.h>
#include <signal.h>

#include "fs/file.h"
#include "kern/proc.h"
#include "kern/uio.h"
#include "sys/syscall.h"
#include "vm/vm.h"

long
sys_fork(struct lwp *lp, const uint64_t *args)
{
	struct clone_req cr = { .cr_exitsig = SIGCHLD };
	(void)args;
	return fork1(lp, &cr);
}

long
sys_vfork(struct lwp *lp, const uint64_t *args)
{
	struct clone_req cr = { .cr_flags = CLONE_VFORK | CLONE_VM,
	    .cr_exitsig = SIGCHLD };
	(void)args;
	return fork1(lp, &cr);
}

/*
 * clone(flags, newsp, parent_tid, child_tid, tls), as on x86-64.  Linux
 * reads only the low 32 bits of flags (clone3 has the others); the low
 * byte is the exit signal.
 */
long
sys_clone(struct lwp *lp, const uint64_t *args)
{
	uint32_t flags = (uint32_t)args[0];
	struct clone_req cr = {
		.cr_flags = flags & ~(uint32_t)CSIGNAL,
		.cr_exitsig = (int)(flags & CSIGNAL),
		.cr_stack = args[1],
		.cr_ptid = args[2],
		.cr_ctid = args[3],
		.cr_tls = args[4],
	};
	/* Both would be written at parent_tid. */
	if ((cr.cr_flags & CLONE_PIDFD) && (cr.cr_flags & CLONE_PARENT_SETTID))
		return -EINVAL;
	return fork1(lp, &cr);
}

/* clone3's argument, as Linux's struct clone_args (CLONE_ARGS_SIZE_VER2). */
struct clone_args3 {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal;
	uint64_t stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};
#define CLONE_ARGS_VER0	64	/* without set_tid and cgroup */

/*
 * clone3(args, size): a struct clone_args of size bytes, which may be an
 * older (shorter) or newer (longer) layout, as Linux checks it: shorter
 * than the first version EINVAL, longer than a page E2BIG, and a longer
 * one's unknown tail must be zero (E2BIG).
 */
long
sys_clone3(struct lwp *lp, const uint64_t *args)
{
	struct clone_args3 ca;
	uint64_t uargs = args[0], size = args[1];

	if (size > PAGE_SIZE)
		return -E2BIG;
	if (size < CLONE_ARGS_VER0)
		return -EINVAL;
	memset(&ca, 0, sizeof(ca));
	if (copyin(uargs, &ca, MIN(size, sizeof(ca))) < 0)
		return -EFAULT;
	for (uint64_t off = sizeof(ca); off < size; off += 8) {
		uint64_t w = 0;
		size_t n = MIN(8, size - off);
		if (copyin(uargs + off, &w, n) < 0)
			return -EFAULT;
		if (w != 0)
			return -E2BIG;
	}
	if (ca.set_tid_size > 32 || (ca.set_tid == 0) != (ca.set_tid_size == 0))
		return -EINVAL;
	if ((ca.exit_signal & ~(uint64_t)CSIGNAL) || ca.exit_signal > 64)
		return -EINVAL;
	/* Flags clone3 knows; the legacy exit-signal byte is not for it. */
	if ((ca.flags & ~(0xffffffffULL | CLONE_CLEAR_SIGHAND |
	    CLONE_INTO_CGROUP)) || (ca.flags & (CLONE_DETACHED |
	    (CSIGNAL & ~CLONE_NEWTIME))))
		return -EINVAL;
	if ((ca.flags & (CLONE_THREAD | CLONE_PARENT)) && ca.exit_signal != 0)
		return -EINVAL;
	if ((ca.stack == 0) != (ca.stack_size == 0))
		return -EINVAL;
	if (ca.set_tid != 0 || (ca.flags & (CLONE_INTO_CGROUP | CLONE_PIDFD))) {
		kprintf_ratelimited("pid %d: clone3 with set_tid, a cgroup or "
		    "a pidfd is not supported\n", lp->lwp_proc->p_pid);
		return -EINVAL;
	}
	struct clone_req cr = {
		.cr_flags = ca.flags,
		.cr_exitsig = (int)ca.exit_signal,
		/* The stack is given as a range; the pointer starts at its top. */
		.cr_stack = ca.stack != 0 ? ca.stack + ca.stack_size : 0,
		.cr_ptid = ca.parent_tid,
		.cr_ctid = ca.child_tid,
		.cr_tls = ca.tls,
	};
	return fork1(lp, &cr);
}

/*
 * unshare(flags): the descriptor table (CLONE_FILES) and fs state
 * (CLONE_FS) become the caller's own.  As Linux, CLONE_THREAD, CLONE_VM
 * and CLONE_SIGHAND succeed only when there is nothing to unshare (one
 * thread; an address space or signal actions no other process uses).
 * The table and fs state are per process here, so a process with
 * several threads cannot unshare them (EINVAL, logged); namespaces are
 * not kept (EINVAL, logged).
 */
long
sys_unshare(struct lwp *lp, const uint64_t *args)
{
	struct proc *p = lp->lwp_proc;
	uint64_t flags = args[0];
	const uint64_t known = CLONE_THREAD | CLONE_FS | CLONE_NEWNS |
	    CLONE_SIGHAND | CLONE_VM | CLONE_FILES | CLONE_SYSVSEM |
	    CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWUSER |
	    CLONE_NEWPID | CLONE_NEWCGROUP | CLONE_NEWTIME;

	if (flags & ~known)
		return -EINVAL;
	if ((flags & (CLONE_THREAD | CLONE_SIGHAND | CLONE_VM)) && p->p_nlwps > 1)
		return -EINVAL;
	if ((flags & CLONE_VM) && p->p_vmspace->vm_refcnt > 1)
		return -EINVAL;
	if ((flags & CLONE_SIGHAND) && p->p_sigacts->ps_ref > 1)
		return -EINVAL;
	if (flags & (CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET |
	    CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWCGROUP | CLONE_NEWTIME)) {
		kprintf_ratelimited("pid %d: unshare of namespaces (%#lx) is not "
		    "supported\n", p->p_pid, (unsigned long)flags);
		return -EINVAL;
	}
	if ((flags & (CLONE_FILES | CLONE_FS)) && p->p_nlwps > 1) {
		kprintf_ratelimited("pid %d: unshare of descriptors or cwd by "
		    "one thread of several is not supported\n", p->p_pid);
		return -EINVAL;
	}
	return fsproc_unshare(&p->p_fs, ((flags & CLONE_FILES) ? FSP_FILES : 0) |
	    ((flags & CLONE_FS) ? FSP_FS : 0));
}

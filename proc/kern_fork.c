/*
 * fork, vfork and clone.  A child process gets a copy-on-write copy of
 * the address space, the descriptors, cwd, credentials, signal actions
 * and limits, or shares the address space (CLONE_VM), the descriptor
 * table (CLONE_FILES), the fs state (CLONE_FS) and the signal actions
 * (CLONE_SIGHAND) with its parent; CLONE_THREAD makes a new lwp of the
 * caller's own process instead.  Either returns 0 from the same system
 * call.  A task that shares the address space runs on a guest thread of
 * its own in the host vmspace.  A vfork parent waits until its child
 * execs or exits.
 */
#include <linux/sched.h>

#include "fs/file.h"
#include "kern/signal.h"
#include "kern/ucred.h"
#include "kern/uio.h"
#include "kern/kmem.h"
#include "proc/fork_stat.h"
#include "vm/vm.h"

/* What this kernel does, and what Linux accepts and ignores. */
#define CLONE_DONE	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | \
	CLONE_THREAD | CLONE_VFORK | CLONE_PARENT | CLONE_SETTLS | \
	CLONE_PARENT_SETTID | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | \
	CLONE_SYSVSEM | CLONE_CLEAR_SIGHAND)
#define CLONE_IGNORED	(CLONE_PTRACE | CLONE_UNTRACED | CLONE_DETACHED | \
	CLONE_IO)

/* Linux's refusals of flag combinations (copy_process), before any work. */
static int
clone_check(const struct proc *p, uint64_t flags)
{
	if ((flags & (CLONE_NEWNS | CLONE_FS)) == (CLONE_NEWNS | CLONE_FS) ||
	    (flags & (CLONE_NEWUSER | CLONE_FS)) == (CLONE_NEWUSER | CLONE_FS))
		return -EINVAL;
	if ((flags & CLONE_THREAD) && !(flags & CLONE_SIGHAND))
		return -EINVAL;
	if ((flags & CLONE_SIGHAND) && !(flags & CLONE_VM))
		return -EINVAL;
	if ((flags & CLONE_PARENT) && p == initproc)
		return -EINVAL;		/* init's siblings would have no parent */
	if ((flags & CLONE_THREAD) && (flags & (CLONE_NEWUSER | CLONE_NEWPID)))
		return -EINVAL;
	if ((flags & (CLONE_SIGHAND | CLONE_CLEAR_SIGHAND)) ==
	    (CLONE_SIGHAND | CLONE_CLEAR_SIGHAND))
		return -EINVAL;
	if ((flags & CLONE_PIDFD) && (flags & CLONE_DETACHED))
		return -EINVAL;
	if (flags & ~(uint64_t)(CLONE_DONE | CLONE_IGNORED)) {
		kprintf_ratelimited("pid %d: clone flags %#lx not supported\n",
		    p->p_pid, (unsigned long)(flags & ~(uint64_t)(CLONE_DONE |
		    CLONE_IGNORED)));
		return -EINVAL;
	}
	/*
	 * The descriptor table and fs state are per process here: a thread
	 * of the process shares them.
	 */
	if ((flags & CLONE_THREAD) &&
	    (flags & (CLONE_FILES | CLONE_FS)) != (CLONE_FILES | CLONE_FS)) {
		kprintf_ratelimited("pid %d: a thread with its own descriptors "
		    "or cwd is not supported\n", p->p_pid);
		return -EINVAL;
	}
	return 0;
}

/*
 * A new guest thread in the host vmspace lp runs in (CLONE_VM): its
 * number, or -EAGAIN past the host's limit, -ENOMEM.
 */
static int
clone_hostthr(struct lwp *lp)
{
	int n = vmspace_thread_create(vmspace_host_id(lp->lwp_proc->p_vmspace));
	if (n < 0)
		return errno == EAGAIN ? -EAGAIN : -ENOMEM;
	return n;
}

/* Gives back guest thread n of a task that never ran. */
static void
clone_hostthr_free(struct lwp *lp, int n)
{
	if (n > 0)
		(void)vmspace_thread_destroy(
		    vmspace_host_id(lp->lwp_proc->p_vmspace), n);
}

/* The new lwp's registers, FPU, TLS, mask and tid words, from lp's. */
static void
clone_regs(struct lwp *lp, struct lwp *lp2, const struct clone_req *cr)
{
	struct proc *p2 = lp2->lwp_proc;

	lp2->lwp_tf = lp->lwp_tf;
	lp2->lwp_tf.tf_rax = 0;
	if (cr->cr_stack != 0)
		lp2->lwp_tf.tf_rsp = cr->cr_stack;
	*lp2->lwp_vf = *lp->lwp_vf;
	/* A new guest thread (of any vmspace) loads its FPU image first. */
	if (vmspace_thread_ctl(vmspace_host_id(lp->lwp_proc->p_vmspace),
	    lp->lwp_hostthr, VMSPACE_CTL_FPSAVE, NULL, lp2->lwp_vf) == 0)
		lp2->lwp_tf.tf_xflags = PGEX_FPFAULT;
	if (cr->cr_flags & CLONE_SETTLS)
		lp2->lwp_vf->vx_fsbase = cr->cr_tls;
	lp2->lwp_sigmask = lp->lwp_sigmask;
	memcpy(lp2->lwp_comm, lp->lwp_comm, sizeof(lp2->lwp_comm));
	/*
	 * The signal stack is inherited, as Linux, but for a task that runs
	 * beside us on the same memory (CLONE_VM without CLONE_VFORK).
	 */
	if ((cr->cr_flags & (CLONE_VM | CLONE_VFORK)) != CLONE_VM)
		lp2->lwp_sigstk = lp->lwp_sigstk;
	lwp_sched_init(lp2, lp);
	if (cr->cr_flags & CLONE_CHILD_CLEARTID)
		lp2->lwp_clear_child_tid = cr->cr_ctid;
	pid_t tid = lp2->lwp_tid;
	if (cr->cr_flags & CLONE_PARENT_SETTID)
		(void)copyout(&tid, cr->cr_ptid, sizeof(tid));
	if (cr->cr_flags & CLONE_CHILD_SETTID)
		(void)vm_copyout(p2->p_vmspace, &tid, cr->cr_ctid, sizeof(tid));
}

/* A new thread of lp's own process (CLONE_THREAD). */
static long
clone_thread(struct lwp *lp, const struct clone_req *cr, void (*body)(void *))
{
	struct proc *p = lp->lwp_proc;
	struct lwp *lp2;

	if (p->p_flags & P_WEXIT)
		return -ERESTARTNOINTR;	/* the process is ending: so does lp */
	int error = proc_limit_check(p);
	if (error < 0)
		return error;
	int n = clone_hostthr(lp);
	if (n < 0)
		return n;
	if ((lp2 = lwp_alloc(p, body)) == NULL) {
		clone_hostthr_free(lp, n);
		return -ENOMEM;
	}
	lwp_task_count(p, 1);
	lp2->lwp_hostthr = n;
	clone_regs(lp, lp2, cr);
	thread_start(lp2->lwp_thread);
	return lp2->lwp_tid;
}

/*
 * A forked child's first writes go to its stack top (the return from
 * fork, the calls after it) and its thread pointer's page (libc stores
 * the new tid there): it gets its copies of those pages now, a copy each
 * instead of a read fault and a copy-on-write fault through the host.
 * The red zone and a first push may reach the page below the stack's.
 * It runs on from its rip, and touches what its elder siblings touched
 * (vm_forkhint.c): those pages are entered too.  The host maps all of
 * them with the child's first run (vmspace_activate).
 */
static void
fork_touch(struct vmspace *vm, struct lwp *lp, struct lwp *lp2)
{
	uint64_t sp = lp2->lwp_tf.tf_rsp, tp = lp2->lwp_vf->vx_fsbase;

	vmspace_enter_first(vm, lp2->lwp_tf.tf_rip);
	vm_forkhint_fork(vm, lp->lwp_proc->p_vmspace);
	vmspace_touch_first(vm, sp);
	if (rounddown2(sp - 256, PAGE_SIZE) != rounddown2(sp, PAGE_SIZE))
		vmspace_touch_first(vm, sp - 256);
	if (tp != 0 && rounddown2(tp, PAGE_SIZE) != rounddown2(sp, PAGE_SIZE))
		vmspace_touch_first(vm, tp);
}

/* Undoes a child process that never ran, newest first. */
static void
clone_unwind(struct proc *p2)
{
	if (p2->p_sigacts != NULL)
		sigacts_free(p2);
	if (p2->p_fs.fp_fd != NULL)
		fsproc_exit(&p2->p_fs);
	if (p2->p_vmspace != NULL)
		vmspace_free(p2->p_vmspace);
	proc_free(p2);
}

long
fork1(struct lwp *lp, const struct clone_req *cr, void (*body)(void *))
{
	struct proc *p = lp->lwp_proc, *p2;
	uint64_t flags = cr->cr_flags;
	int error;

	if ((error = clone_check(p, flags)) < 0)
		return error;
	/* As arch_prctl(ARCH_SET_FS): no base in the kernel's half. */
	if ((flags & CLONE_SETTLS) && cr->cr_tls >= VM_LINUX_TASK_SIZE)
		return -EPERM;
	if (flags & CLONE_THREAD)
		return clone_thread(lp, cr, body);

	struct proc *parent = (flags & CLONE_PARENT) ? p->p_pptr : p;
	uint64_t t0 = forkstat_now();
	int n = 0;
	if ((flags & CLONE_VM) && (n = clone_hostthr(lp)) < 0)
		return n;
	if ((p2 = proc_alloc(parent, p->p_ucred, &error)) == NULL) {
		clone_hostthr_free(lp, n);
		return error;
	}
	if (flags & CLONE_VM) {
		vmspace_ref(p->p_vmspace);
		p2->p_vmspace = p->p_vmspace;
	} else {
		uint64_t t1 = forkstat_now();
		p2->p_vmspace = vmspace_fork(p->p_vmspace);
		forkstat_stage(FST_VMSPACE_FORK, t1);
	}
	memcpy(p2->p_rlimit, p->p_rlimit, sizeof(p2->p_rlimit));
	p2->p_flags |= p->p_flags & P_INHERITED;
	p2->p_personality = p->p_personality;
	/* Its one thread is a copy of ours, name included. */
	memcpy(p2->p_comm, lp->lwp_comm, sizeof(p2->p_comm));
	/* /proc/PID/exe; only that link is lost if memory is short. */
	if (p->p_exe != NULL &&
	    (p2->p_exe = kmalloc(strlen(p->p_exe) + 1, 0)) != NULL)
		strcpy(p2->p_exe, p->p_exe);
	/* CLONE_PARENT makes a sibling, which tells the parent as we do. */
	p2->p_exitsig = (flags & CLONE_PARENT) ? p->p_exitsig : cr->cr_exitsig;
	struct lwp *lp2 = NULL;
	if (p2->p_vmspace == NULL || (error = fsproc_fork(&p2->p_fs, &p->p_fs,
	    ((flags & CLONE_FILES) ? FSP_FILES : 0) |
	    ((flags & CLONE_FS) ? FSP_FS : 0))) < 0 ||
	    (error = sigacts_fork(p2, p, (flags & CLONE_SIGHAND) != 0)) < 0 ||
	    (error = enterpgrp(p2, p->p_pgrp->pg_id, false)) < 0 ||
	    (lp2 = lwp_alloc(p2, body)) == NULL) {
		if (error == 0)
			error = -ENOMEM;
		clone_unwind(p2);
		clone_hostthr_free(lp, n);
		if (!(flags & CLONE_VM))
			vmspace_fork_end(p->p_vmspace);
		return error;
	}
	lp2->lwp_hostthr = n;
	if (flags & CLONE_CLEAR_SIGHAND)
		sigacts_exec(p2);
	clone_regs(lp, lp2, cr);
	if (!(flags & CLONE_VM)) {
		uint64_t t1 = forkstat_now();
		fork_touch(p2->p_vmspace, lp, lp2);
		/*
		 * Its return from fork writes its stack (musl, glibc: at
		 * once), and it writes again what it wrote since its last
		 * fork (vm_forkhint.c).
		 */
		if (p->p_nlwps == 1)
			vmspace_fork_parent_touch(p->p_vmspace,
			    lp->lwp_tf.tf_rsp - 8);
		vm_forkhint_rewrite(p->p_vmspace, p->p_nlwps == 1);
		vmspace_fork_end(p->p_vmspace);
		forkstat_stage(FST_FORK_TOUCH, t1);
	}

	p2->p_state = PRS_NORMAL;
	pid_t pid = p2->p_pid;
	int done = 0;
	if (flags & CLONE_VFORK)
		p2->p_vforkdone = &done;
	p2->p_stat_ns = forkstat_now();
	forkstat_stage(FST_FORK, t0);
	thread_start(lp2->lwp_thread);
	if (!(flags & CLONE_VFORK))
		return pid;
	/*
	 * The child runs on our memory: wait until it execs or exits.  Only
	 * a fatal signal (SIGKILL, killalllwps's kick, one whose default
	 * action kills) ends the wait, as Linux's killable vfork wait; the
	 * child must then not find our stack (it outlives this frame).
	 * Other signals wait for the child.
	 */
	while (!done) {
		if (tsleep(&done, PKILL, "vfork", 0) != 0) {
			struct proc *q = pfind(pid);
			if (q != NULL && q->p_vforkdone == &done)
				q->p_vforkdone = NULL;
			break;
		}
	}
	return pid;
}

void
vfork_done(struct proc *p)
{
	if (p->p_vforkdone == NULL)
		return;
	*p->p_vforkdone = 1;
	wakeup(p->p_vforkdone);
	p->p_vforkdone = NULL;
}

/*
 * The kernel side of a guest thread.  lwp_main is the body of the lwp's
 * kernel thread: it returns to user mode (vmspace_ctl RUN, the big lock
 * dropped while the guest runs), and handles whatever brought the guest
 * back: a system call, a page fault, an exception, an interrupt, or the
 * death of its host stub.
 */
#include "host/cpu.h"
#include "host/trace.h"
#include "host/vmspace.h"
#include "kern/proc.h"
#include "kern/signal.h"
#include "proc/fork_stat.h"
#include "sys/syscall.h"
#include "vm/vm.h"

/*
 * The si_code of an x87 (#MF) or SIMD (#XM) exception, from the unmasked
 * exceptions that are flagged in the thread's FPU state, as Linux picks
 * it; 0 if none is (a spurious trap, which Linux lets go).
 */
static int
fpu_exception_code(struct lwp *lp, uint64_t trapno)
{
	const uint8_t *fx = lp->lwp_vf->vx_fpu;		/* FXSAVE layout */
	uint16_t cwd, swd;
	uint32_t mxcsr;
	unsigned err;

	(void)vmspace_thread_ctl(vmspace_host_id(lp->lwp_proc->p_vmspace),
	    lp->lwp_hostthr, VMSPACE_CTL_FPSAVE, NULL, lp->lwp_vf);
	if (trapno == T_ARITHTRAP) {
		memcpy(&cwd, fx, 2);
		memcpy(&swd, fx + 2, 2);
		err = swd & ~cwd;
	} else {
		memcpy(&mxcsr, fx + 24, 4);
		err = mxcsr & ~(mxcsr >> 7);
	}
	if (err & 0x01)
		return FPE_FLTINV;
	if (err & 0x04)
		return FPE_FLTDIV;
	if (err & 0x08)
		return FPE_FLTOVF;
	if (err & 0x12)
		return FPE_FLTUND;
	if (err & 0x20)
		return FPE_FLTRES;
	return 0;
}

/* Signals for exceptions the guest raised, as Linux sends them. */
static void
trap_exception(struct lwp *lp)
{
	struct trapframe *tf = &lp->lwp_tf;
	int sig, code;

	switch (tf->tf_trapno) {
	case T_DIVIDE:		sig = SIGFPE;  code = FPE_INTDIV; break;
	case T_ARITHTRAP:
	case T_XMMFLT:
		sig = SIGFPE;
		if ((code = fpu_exception_code(lp, tf->tf_trapno)) == 0)
			return;
		break;
	case T_TRCTRAP:		sig = SIGTRAP; code = TRAP_TRACE; break; /* TF */
	case T_BPTFLT:		sig = SIGTRAP; code = SI_KERNEL; break;
	case T_PRIVINFLT:	sig = SIGILL;  code = ILL_ILLOPN; break;
	case T_ALIGNFLT:	sig = SIGBUS;  code = BUS_ADRALN; break;
	case T_SEGNPFLT:
	case T_STKFLT:		sig = SIGBUS;  code = SI_KERNEL; break;	/* #SS: rsp */
	case T_BUSERR:		sig = SIGBUS;  code = BUS_ADRERR; break;
	default:		sig = SIGSEGV; code = SI_KERNEL; break;
	}
	/* Linux gives the faulting instruction as the address of these. */
	uint64_t addr = 0;
	if (sig == SIGILL || sig == SIGFPE || tf->tf_trapno == T_TRCTRAP)
		addr = tf->tf_rip;
	else if (tf->tf_trapno == T_BUSERR)
		addr = tf->tf_addr;
	trapsignal(lp, sig, code, addr);
}

static void
trap_pagefault(struct lwp *lp)
{
	struct trapframe *tf = &lp->lwp_tf;
	if (tf->tf_addr < VM_MIN_USER_ADDRESS && syspatch_fault(lp))
		return;
	int type = vm_fault_type(tf->tf_err);
	int error = vm_fault(lp->lwp_proc->p_vmspace, tf->tf_addr, type);

	if (error == 0) {
		vm_forkhint_note(lp->lwp_proc->p_vmspace, tf->tf_addr, type);
		return;
	}
	/* RAM an exited process is giving back: the access faults again. */
	if (error == -ENOMEM && vmspace_drain())
		return;
	if (error == -ENOMEM) {
		kprintf("pid %d (%s): out of memory at %#lx; killed\n",
		    lp->lwp_proc->p_pid, lp->lwp_proc->p_comm,
		    (unsigned long)tf->tf_addr);
		psignal_proc(lp->lwp_proc, SIGKILL);
		return;
	}
	if (error == -EIO)
		trapsignal(lp, SIGBUS, BUS_ADRERR, tf->tf_addr);
	else
		trapsignal(lp, SIGSEGV, error == -EACCES ? SEGV_ACCERR :
		    SEGV_MAPERR, tf->tf_addr);
}

/*
 * A 32-bit system call: int $0x80, sysenter, or syscall in compatibility
 * mode (the host, which has IA32 emulation, reports all three as i386
 * calls).  This kernel has no 32-bit ABI, so each gets what Linux built
 * without IA32_EMULATION gives: int $0x80 meets an interrupt gate user
 * mode may not use (#GP, error code the vector's), syscall from
 * compatibility mode returns -ENOSYS in eax (entry_SYSCALL32_ignore),
 * and sysenter faults on its null code segment (#GP(0)).  The host's
 * sysenter path does not keep the instruction's address, so the last
 * one's signal shows the address the host returned to.
 */
static void
trap_syscall32(struct lwp *lp)
{
	struct trapframe *tf = &lp->lwp_tf;
	uint8_t insn[2] = { 0, 0 };

	(void)copyin(tf->tf_rip - 2, insn, sizeof(insn));
	if (insn[0] == 0x0f && insn[1] == 0x05 && tf->tf_cs == GSEL_UCODE32) {
		tf->tf_rax = (uint32_t)-ENOSYS;
		return;
	}
	tf->tf_trapno = T_PROTFLT;
	tf->tf_err = 0;
	if (insn[0] == 0xcd && insn[1] == 0x80) {
		tf->tf_rip -= 2;		/* a fault: at the instruction */
		tf->tf_err = 0x80 << 3 | 2;	/* IDT vector 0x80 */
	}
	trapsignal(lp, SIGSEGV, SI_KERNEL, 0);
}

static void
trap_dispatch(struct lwp *lp)
{
	switch (lp->lwp_tf.tf_trapno) {
	case T_SYSCALL:
		if (lp->lwp_tf.tf_err == SYSCALL_ABI_I386) {
			trap_syscall32(lp);
		} else if (lp->lwp_tf.tf_err == SYSCALL_ABI_PATCHED) {
			int r = syspatch_enter(lp);
			TRACE(TR_K_PATCHED);
			if (r == 0)
				syscall_dispatch(lp);
		} else {
			syspatch_syscall(lp);
			syscall_dispatch(lp);
		}
		break;
	case T_PAGEFLT:
		trap_pagefault(lp);
		break;
	case T_INTR:
		syspatch_near(lp);
		break;		/* userret takes the interrupts */
	case T_DEAD:
		/* The host killed or lost our stub: nothing of the guest is left. */
		kprintf("pid %d (%s): guest thread lost; killed\n",
		    lp->lwp_proc->p_pid, lp->lwp_proc->p_comm);
		exit1(W_EXITCODE(0, SIGKILL));
	default:
		trap_exception(lp);
		break;
	}
}

/*
 * On the way back to user mode: take interrupts, give up the CPU if the
 * tick asked, end the thread if its process is ending, deliver pending
 * signals (which may end the process).
 */
static void
userret(struct lwp *lp)
{
	for (;;) {
		sched_interrupts();
		if (curthread->td_flags & TDF_NEEDRESCHED)
			thread_yield();
		/* Another thread ends the process (killalllwps): so do we. */
		if (lp->lwp_proc->p_flags & P_WEXIT)
			lwp_exit();
		if (!issignal_pending(lp))
			break;
		postsig(lp);
	}
	syscall_restart(lp, NULL);
}

/* The kind of trap tf reports, for the fork counters. */
static int
trap_kind(const struct trapframe *tf)
{
	switch (tf->tf_trapno) {
	case T_SYSCALL:
		return tf->tf_err == SYSCALL_ABI_PATCHED ? FSK_PATCHED :
		    FSK_SYSCALL;
	case T_PAGEFLT:
		return (tf->tf_err & PGEX_I) ? FSK_EXEC :
		    (tf->tf_err & PGEX_W) ? FSK_WRITE : FSK_READ;
	case T_INTR:
		return FSK_INTR;
	default:
		return FSK_OTHER;
	}
}

void
lwp_main(void *arg)
{
	struct lwp *lp = arg;
	/* Fixed for the vkernel's life: the loop pays one test when off. */
	const bool stats = forkstat_enabled();

	for (;;) {
		userret(lp);
		TRACE(TR_K_USERRET);
		/* Looked up each time: exec replaces the address space. */
		struct vmspace *vm = lp->lwp_proc->p_vmspace;
		uint64_t t0 = 0;
		if (stats && lp->lwp_proc->p_stat_ns != 0) {
			/* a forked child's first run */
			t0 = forkstat_now();
			forkstat_stage(FST_CHILD_START, lp->lwp_proc->p_stat_ns);
			lp->lwp_proc->p_stat_ns = 0;
		}
		int error = vmspace_activate(vm);
		if (t0 != 0)
			forkstat_stage(FST_ACTIVATE, t0);
		if (error < 0) {
			kprintf("pid %d (%s): no host process for its address "
			    "space (%d); killed\n", lp->lwp_proc->p_pid,
			    lp->lwp_proc->p_comm, error);
			exit1(W_EXITCODE(0, SIGKILL));
		}
		void *vmid = vmspace_host_id(vm);
		uint64_t trun = stats ? forkstat_now() : 0;
		uint64_t now = nanouptime();
		lwp_run_begin(lp, now);
		sched_user_enter(now);
		int r = vmspace_thread_ctl(vmid, lp->lwp_hostthr, VMSPACE_CTL_RUN,
		    &lp->lwp_tf, lp->lwp_vf);
		uint64_t cputime = r == 0 ? lp->lwp_tf.tf_cputime : 0;
		lwp_run_end(lp, cputime, sched_user_exit(cputime));
		TRACE(TR_K_LOCKED);
		if (r < 0) {
			/*
			 * The host layer refused the thread's state (a base
			 * the stub reported and cannot load, say): the guest
			 * cannot go on, and it alone pays for it.
			 */
			kprintf("pid %d (%s): host will not run its thread "
			    "(errno %d); killed\n", lp->lwp_proc->p_pid,
			    lp->lwp_proc->p_comm, errno);
			exit1(W_EXITCODE(0, SIGKILL));
		}
		lp->lwp_tf.tf_xflags = 0;
		if (t0 != 0)
			forkstat_stage(FST_FIRST_RUN, trun);
		if (trun == 0) {
			trap_dispatch(lp);
			TRACE(TR_K_DISPATCHED);
			continue;
		}
		int kind = trap_kind(&lp->lwp_tf);
		uint64_t tk = forkstat_now();
		int role = forkstat_trap(lp, kind, kind == FSK_SYSCALL ||
		    kind == FSK_PATCHED ? (long)lp->lwp_tf.tf_rax : -1, tk - trun);
		trap_dispatch(lp);
		forkstat_trap_done(role, kind, forkstat_now() - tk);
	}
}

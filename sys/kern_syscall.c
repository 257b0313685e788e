/*
 * System-call dispatch through the table (syscalls.c), and the tracer's
 * one branch.  An unimplemented call returns -ENOSYS and is logged once
 * by name (or number).
 */
#include <limits.h>

#include "host/trace.h"
#include "sys/syscall.h"
#include "sys/sys_trace.h"
#include "kern/kmem.h"
#include "vm/vm.h"

static uint64_t enosys_logged[howmany(SYS_MAXSYSCALL, 64)];

/*
 * The handler of every call not implemented (and of the numbers no call
 * has): -ENOSYS, logged once per number.  rax still holds the number.
 */
long
sys_nosys(struct lwp *lp, const uint64_t *args __unused)
{
	uint64_t nr = (uint32_t)lp->lwp_tf.tf_rax;

	if (nr < SYS_MAXSYSCALL && !(enosys_logged[nr / 64] & (1ULL << (nr % 64)))) {
		enosys_logged[nr / 64] |= 1ULL << (nr % 64);
		kprintf("pid %d (%s): system call %s (%lu) not implemented\n",
		    lp->lwp_proc->p_pid, lp->lwp_proc->p_comm,
		    sysent[nr].sy_name != NULL ? sysent[nr].sy_name : "?",
		    (unsigned long)nr);
	}
	return -ENOSYS;
}

void
syscall_dispatch(struct lwp *lp)
{
	struct trapframe *tf = &lp->lwp_tf;
	/* As Linux's do_syscall_64: (int)rax selects; negative is ENOSYS. */
	uint64_t nr = (uint32_t)tf->tf_rax;
	const uint64_t args[6] = { tf->tf_rdi, tf->tf_rsi, tf->tf_rdx,
	    tf->tf_r10, tf->tf_r8, tf->tf_r9 };
	sy_call_t fn;
	long r;

	if (tf->tf_err != SYSCALL_ABI_X86_64)
		fn = NULL;		/* another ABI's call: not logged */
	else if (nr >= SYS_MAXSYSCALL || sysent[nr].sy_call == NULL)
		fn = sys_nosys;
	else
		fn = sysent[nr].sy_call;
	if (__builtin_expect(strace_enabled, 0))
		r = strace_syscall(lp, nr, fn, args);
	else
		r = fn != NULL ? fn(lp, args) : -ENOSYS;
	TRACE(TR_K_SYSCALL);
	if (r == -EJUSTRETURN)
		return;
	tf->tf_rax = (uint64_t)r;
	if (r <= -ERESTARTSYS && r >= -ERESTART_RESTARTBLOCK) {
		/* What a restart re-issues (syscall_restart, kern/signal.h). */
		lp->lwp_syscall_nr = r == -ERESTART_RESTARTBLOCK ?
		    SYS_restart_syscall : nr;
		lp->lwp_flags |= LWP_RESTART;
	}
}

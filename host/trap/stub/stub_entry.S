/*
 * The stub's fixed entry points (host/trap/stub_abi.h): the process entry,
 * the signal restorer and the mapper thread.  The mapper keeps all its
 * state in registers and never touches a stack: the guest shares its
 * address space, and would otherwise steer it through a forged stack.
 *
 * Mapper registers: r12 = commands (read-only), r13 = sync page,
 * r14 = the page of the thread the batch is for (0: none), r15d = the
 * last batch carried out.
 */
#include "../stub_abi.h"

#define SYS_write	1
#define SYS_mmap	9
#define SYS_mprotect	10
#define SYS_munmap	11
#define SYS_rt_sigreturn 15
#define SYS_clone	56
#define SYS_exit	60
#define SYS_futex	202
#define SYS_seccomp	317
#define FUTEX_WAIT	0
#define FUTEX_WAKE	1
#define MAP_SHARED_FIXED 0x11
/*
 * RAM is mapped populated: the guest that faulted, about to retry, and
 * the neighbours fault-around maps with it would each take a host page
 * fault to fill the page-table entry (the host's second trap per touch).
 */
#define MAP_RAM_FLAGS	0x8011	/* MAP_SHARED | MAP_FIXED | MAP_POPULATE */

/* rbp = the area of batch r15d (a macro: the mapper has no stack). */
.macro call_area
	mov	%r15d, %eax
	and	$(STUB_CMD_AREAS - 1), %eax
	imul	$STUB_AREA_SIZE, %eax, %eax
	lea	STUB_CMD_HDR(%r12, %rax), %rbp
.endm

/* Counts one batch done on the eventfd, which the guest cannot write. */
.macro call_count
	mov	$SYS_write, %eax
	mov	$STUB_DONE_FD, %edi
	lea	16(%r12), %rsi			/* cmd->one */
	mov	$8, %edx
	syscall
.endm

.macro call_wake_guest
	mov	$SYS_futex, %eax
	lea	4(%r14), %rdi			/* thread->reply */
	mov	$FUTEX_WAKE, %esi
	mov	$1, %edx
	syscall
.endm

	.section .text.entry, "ax"
	.globl	_start
_start:
	mov	%rsp, %rdi
	and	$-16, %rsp
	call	stub_main
	ud2

	.org	STUB_RESTORER - STUB_TEXT
	.globl	stub_restorer
stub_restorer:
	mov	$SYS_rt_sigreturn, %eax
	syscall
	ud2

	.org	STUB_MAPPER - STUB_TEXT
stub_mapper:
	mov	$SYS_seccomp, %eax
	mov	$1, %edi			/* SECCOMP_SET_MODE_FILTER */
	xor	%esi, %esi
	movabs	$(STUB_BOOT + 16), %rdx		/* stub_boot.mapper */
	syscall
	test	%rax, %rax
	jnz	.Ldie
	movabs	$STUB_CMD, %r12
	movabs	$STUB_SYNC, %r13
	xor	%r15d, %r15d
	movl	$1, 4(%r13)			/* sync->ready */
	mov	$SYS_futex, %eax
	lea	4(%r13), %rdi
	mov	$FUTEX_WAKE, %esi
	mov	$1, %edx
	syscall

.Lwait:	mov	(%r12), %eax			/* cmd->seq */
	cmp	%eax, %r15d
	jne	.Lbatch
	mov	%eax, %edx
	mov	$SYS_futex, %eax
	mov	%r12, %rdi
	mov	$FUTEX_WAIT, %esi
	xor	%r10d, %r10d
	syscall
	jmp	.Lwait

	/* Batches are carried out one by one, in order. */
.Lbatch:
	inc	%r15d
	call_area
	/* r14 = the page of thread area->thread - 1, if there is one */
	xor	%r14d, %r14d
	mov	12(%rbp), %eax			/* area->thread */
	dec	%eax
	cmp	$STUB_MAXTHREADS, %eax
	jae	1f
	imul	$STUB_THREAD_SIZE, %eax, %eax
	movabs	$STUB_THREAD, %r14
	add	%rax, %r14
1:	mov	(%rbp), %ebx			/* area->nops */
	cmp	$STUB_AREA_OPS, %ebx
	jbe	1f
	mov	$STUB_AREA_OPS, %ebx
1:	add	$STUB_AREA_HDR, %rbp
.Lop:	test	%ebx, %ebx
	jz	.Ldone
	mov	8(%rbp), %rdi			/* addr */
	mov	16(%rbp), %rsi			/* len */
	mov	4(%rbp), %edx			/* prot */
	mov	(%rbp), %eax
	cmp	$STUB_OP_MMAP, %eax
	je	2f
	cmp	$STUB_OP_MPROTECT, %eax
	je	3f
	cmp	$STUB_OP_CLONE, %eax
	je	.Lclone
	mov	$SYS_munmap, %eax
	jmp	4f
2:	mov	$SYS_mmap, %eax
	mov	$MAP_RAM_FLAGS, %r10d
	mov	$STUB_RAM_FD, %r8d
	mov	24(%rbp), %r9			/* off */
	jmp	4f
3:	mov	$SYS_mprotect, %eax
4:	syscall
	cmp	$-4095, %rax
	jb	5f
	cmpl	$STUB_OP_MUNMAP, (%rbp)		/* a stale mapping may be left */
	jne	7f
	cmpq	$0, 16(%r13)
	jne	7f
	mov	%rax, 16(%r13)			/* sync->unmap_err */
7:	cmpq	$0, 8(%r13)			/* keep the first error */
	jne	5f
	mov	%rax, 8(%r13)			/* sync->err */
5:	add	$32, %rbp
	dec	%ebx
	jmp	.Lop

	/*
	 * A new guest thread on the stack addr (its slot's end), its slot
	 * mapped first; the result (tid or -errno) goes to sync->clone_ret.
	 * The child has our registers and filter, and starts on its slot at
	 * stub_thread_main.
	 */
.Lclone:
	mov	$SYS_mmap, %eax
	mov	8(%rbp), %rdi
	sub	$STUB_THREAD_SIZE, %rdi		/* the slot */
	mov	$STUB_THREAD_SIZE, %esi
	mov	$3, %edx			/* PROT_READ|PROT_WRITE */
	mov	$MAP_SHARED_FIXED, %r10d
	mov	$STUB_CTL_FD, %r8d
	mov	%rdi, %r9
	movabs	$STUB_CMD, %rcx
	sub	%rcx, %r9			/* its offset in the memfd */
	syscall
	cmp	$-4095, %rax
	jae	8f
	mov	$SYS_clone, %eax
	mov	$STUB_CLONE_FLAGS, %edi
	mov	8(%rbp), %rsi			/* addr */
	xor	%edx, %edx
	xor	%r10d, %r10d
	xor	%r8d, %r8d
	syscall
	test	%rax, %rax
	jz	.Lchild
8:	mov	%rax, 24(%r13)			/* sync->clone_ret */
	jmp	5b

.Lchild:
	call	stub_thread_main
	ud2

.Ldone:
	mov	%r15d, (%r13)			/* sync->done, a hint */
	test	%r14, %r14			/* no thread to tell */
	jz	.Lcount
	call_area
	cmpl	$0, 4(%rbp)			/* area->resume */
	je	.Lsync
	/* Resume the guest first: the vkernel needs the proof only later. */
	mov	$1, %eax			/* WW_POSTED */
	xchg	%eax, 4(%r14)			/* thread->reply */
	test	$2, %eax			/* WW_SLEEPING */
	jz	.Lcount
	call_wake_guest
	jmp	.Lcount
	/* No resume: the proof, then tell a parked guest to spin again. */
.Lsync:	call_count
	mov	4(%r14), %eax
6:	mov	%eax, %edx
	or	$4, %edx			/* WW_WAKE */
	lock cmpxchg %edx, 4(%r14)
	jnz	6b
	test	$2, %eax			/* WW_SLEEPING */
	jz	.Lwait
	call_wake_guest
	jmp	.Lwait
.Lcount:
	call_area
	cmpl	$0, 8(%rbp)			/* area->prove */
	je	.Lwait
	call_count
	jmp	.Lwait

.Ldie:	mov	$SYS_exit, %eax
	mov	$STUB_EXIT_MAPPER, %edi
	syscall
	ud2

/*
 * Thread 0's reset (stub_abi.h, trap_recycle.c), entered from report()
 * when the vkernel answers with STUB_QUIT_RESET.  The vkernel goes on
 * only once the host shows this thread asleep in the futex wait that
 * returns to STUB_RESET_PARKED: a rogue thread 0 may have jumped there
 * with registers and memory of its own making, so from that address on
 * nothing comes from either.  The rt_sigreturn reads its frame from the
 * image: constant registers (rsp STUB_RESET_SP, rip STUB_RESET_BOOT), no
 * FPU image (the host loads the initial FPU state, PKRU included), an
 * empty signal mask, and slot 0's signal stack, which the host may
 * refuse to install (trap_recycle.c, t0_trap_checked, then finds the
 * int3's frame elsewhere and kills the stub).  Selectors and bases are
 * loaded as a new thread has them; the int3 then lands in the handler,
 * on slot 0's signal stack, as a new thread's first trap does.
 */
#define SYS_arch_prctl	158
#define ARCH_SET_GS	0x1001
#define ARCH_SET_FS	0x1002
#define UC_SIGCONTEXT_SS	2
#define UC_STRICT_RESTORE_SS	4

	.org	STUB_RESET - STUB_TEXT
	.globl	stub_reset
stub_reset:
	movabs	$STUB_THREAD, %rdi		/* slot 0's req */
	mov	$(STUB_REQ_RESET | 1), %eax	/* | WW_POSTED: a hint only */
	xchg	%eax, (%rdi)
	test	$2, %eax			/* WW_SLEEPING */
	jz	1f
	mov	$SYS_futex, %eax
	mov	$FUTEX_WAKE, %esi
	mov	$1, %edx
	syscall
1:	mov	$SYS_futex, %eax
	movabs	$STUB_THREAD, %rdi
	mov	$FUTEX_WAIT, %esi
	mov	$(STUB_REQ_RESET | 1), %edx
	xor	%r10d, %r10d
	.org	STUB_RESET_PARKED - STUB_TEXT - 2, 0x90	/* nops */
	syscall
	/* STUB_RESET_PARKED: trust nothing from here on. */
	movabs	$(STUB_RESET_FRAME + 8), %rsp	/* rt_sigreturn: the frame at rsp - 8 */
	mov	$SYS_rt_sigreturn, %eax
	syscall
	ud2

	.org	STUB_RESET_BOOT - STUB_TEXT
	/* rsp: STUB_RESET_SP; every general register 0 */
	lea	128(%rsp), %rsp			/* see trap_recycle.c: t0_trap_checked */
	mov	%eax, %ds
	mov	%eax, %es
	mov	%eax, %fs
	mov	%eax, %gs
	mov	$SYS_arch_prctl, %eax
	mov	$ARCH_SET_FS, %edi
	xor	%esi, %esi
	syscall
	/* gs: the slot, with patching (stub.c, first_bases) */
	movabs	$(STUB_BOOT + STUB_BOOT_UTRAP), %rsi
	mov	(%rsi), %esi
	test	%esi, %esi
	jz	2f
	movabs	$STUB_THREAD, %rsi
2:	mov	$SYS_arch_prctl, %eax
	mov	$ARCH_SET_GS, %edi
	syscall
	.org	STUB_RESET_TRAP - STUB_TEXT - 1, 0x90
	int3
3:	ud2
	jmp	3b

	.org	STUB_RESET_FRAME - STUB_TEXT
	.quad	0				/* pretcode */
	.quad	UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS	/* uc_flags */
	.quad	0				/* uc_link */
	.quad	STUB_ALTSTACK			/* uc_stack: slot 0's */
	.quad	0
	.quad	STUB_ALTSTACK_SIZE
	.quad	0, 0, 0, 0, 0, 0, 0, 0		/* r8-r15 */
	.quad	0, 0, 0, 0, 0, 0, 0		/* rdi rsi rbp rbx rdx rax rcx */
	.quad	STUB_RESET_SP			/* rsp */
	.quad	STUB_RESET_BOOT			/* rip */
	.quad	0x202				/* rflags */
	.quad	0x002b000000000033		/* cs, gs, fs, ss */
	.quad	0, 0, 0, 0			/* err, trapno, oldmask, cr2 */
	.quad	0				/* fpstate: none, the initial state */
	.quad	0, 0, 0, 0, 0, 0, 0, 0		/* reserved */
	.quad	0				/* uc_sigmask: empty */
	.fill	128, 1, 0			/* siginfo */

/*
 * Stores reg at off(base) only if it differs: a line the vkernel has read
 * and nobody changed stays in both cores' caches, so a round trip moves
 * only the lines that changed (rax, mostly).
 */
.macro put_if reg, off, base
	cmp	\reg, \off(\base)
	je	9f
	mov	\reg, \off(\base)
9:
.endm

/*
 * The trampoline of patched system calls (stub_abi.h, trap_patch.c).
 * Entry k is what table entry k points to: it names k in r11 (which the
 * syscall instruction it replaces clobbers anyway, as it does rax and
 * rcx) and joins the common part.  No guest stack is touched (its red
 * zone is live): the registers go to the record in the thread's slot,
 * found from the host's gs base, which the stub keeps at the slot while
 * the guest's own is 0 (stub.c, load_bases); any other gs base takes the
 * signal path (the ud2 at stub_utrap_bad).
 *
 * Nothing here is a privilege: a guest may jump anywhere in it with any
 * registers.  It writes only a slot (the guest can write every slot
 * itself), and its only system calls are the handler's futex calls on
 * slot words, which the guest filter allows from any stub address; a
 * forged report is a system call of that thread with the guest's own
 * registers, which the kernel checks as any other (trap_patch.c).
 */
	.org	STUB_UTRAP_ENTRY0 - STUB_TEXT
	.set	utk, 0
	.rept	STUB_UTRAP_N
	.org	STUB_UTRAP_ENTRY0 - STUB_TEXT + 16 * utk
	mov	$utk, %r11d
	.if	utk < STUB_UTRAP_CP0
	jmp	stub_utrap
	.else
	jmp	stub_utrap_cp
	.endif
	.set	utk, utk + 1
	.endr

	.org	STUB_UTRAP_CODE - STUB_TEXT
	.globl	stub_utrap
stub_utrap:
	/* The arithmetic flags first: everything below changes them. */
	lahf
	seto	%al
	movzwl	%ax, %eax
	shl	$32, %rax
	or	%rax, %r11			/* r11 = k | (OF, lahf) << 32 */
	rdgsbase %rcx
	movabs	$STUB_THREAD, %rax
	sub	%rax, %rcx
	jb	stub_utrap_bad
	cmp	$(STUB_MAXTHREADS * STUB_THREAD_SIZE), %rcx
	jae	stub_utrap_bad
	test	$(STUB_THREAD_SIZE - 1), %ecx
	jnz	stub_utrap_bad
	add	%rax, %rcx			/* the slot page */
stub_utrap_slot:
	put_if	%rbx, STUB_UT_REG(UT_RBX), %rcx
	put_if	%rdx, STUB_UT_REG(UT_RDX), %rcx
	put_if	%rsi, STUB_UT_REG(UT_RSI), %rcx
	put_if	%rdi, STUB_UT_REG(UT_RDI), %rcx
	put_if	%rbp, STUB_UT_REG(UT_RBP), %rcx
	put_if	%rsp, STUB_UT_REG(UT_RSP), %rcx
	put_if	%r8, STUB_UT_REG(UT_R8), %rcx
	put_if	%r9, STUB_UT_REG(UT_R9), %rcx
	put_if	%r10, STUB_UT_REG(UT_R10), %rcx
	put_if	%r12, STUB_UT_REG(UT_R12), %rcx
	put_if	%r13, STUB_UT_REG(UT_R13), %rcx
	put_if	%r14, STUB_UT_REG(UT_R14), %rcx
	put_if	%r15, STUB_UT_REG(UT_R15), %rcx
	mov	%r11d, %eax
	put_if	%rax, STUB_UT_ENTRY, %rcx
	shr	$32, %r11
	/*
	 * On the slot page's own stack, not the signal stack: a kick tells
	 * the trampoline from a SIGSYS handler by where its stack is.
	 */
	lea	STUB_UT_STACK(%rcx), %rsp
	pushfq
	pop	%rax
	and	$~0x8d5, %rax			/* OF SF ZF AF PF CF: from lahf */
	mov	%r11, %rdx
	shr	$8, %rdx
	and	$0xd5, %edx
	or	%rdx, %rax
	test	$1, %r11b
	jz	1f
	or	$0x800, %rax
1:	put_if	%rax, STUB_UT_RFLAGS, %rcx
	mov	%rcx, %rdi
	call	stub_utrap_wait
	/*
	 * The reply is in: from here on the thread is the vkernel's resumed
	 * guest (the handler completes the resume if a kick comes now).
	 */
	.globl	stub_utrap_restore
stub_utrap_restore:
	lea	-STUB_UT_STACK(%rsp), %r11
	movl	$0, 4(%r11)			/* thread->reply: consumed */
	test	%eax, %eax
	jnz	2f
	pushq	STUB_UT_RFLAGS(%r11)
	popfq
	mov	STUB_UT_REG(UT_RAX)(%r11), %rax
	mov	STUB_UT_REG(UT_RBX)(%r11), %rbx
	mov	STUB_UT_REG(UT_RDX)(%r11), %rdx
	mov	STUB_UT_REG(UT_RSI)(%r11), %rsi
	mov	STUB_UT_REG(UT_RDI)(%r11), %rdi
	mov	STUB_UT_REG(UT_RBP)(%r11), %rbp
	mov	STUB_UT_REG(UT_R8)(%r11), %r8
	mov	STUB_UT_REG(UT_R9)(%r11), %r9
	mov	STUB_UT_REG(UT_R10)(%r11), %r10
	mov	STUB_UT_REG(UT_R12)(%r11), %r12
	mov	STUB_UT_REG(UT_R13)(%r11), %r13
	mov	STUB_UT_REG(UT_R14)(%r11), %r14
	mov	STUB_UT_REG(UT_R15)(%r11), %r15
	mov	STUB_UT_REG(UT_RSP)(%r11), %rsp
	/* As after syscall: rcx = rip, r11 = rflags (the vkernel checked). */
	mov	STUB_UT_RIP(%r11), %rcx
	mov	STUB_UT_REG(UT_R11)(%r11), %r11
	jmp	*%rcx
	/*
	 * The vkernel wants a signal frame (it needs the FPU state, or to
	 * resume with registers no jump can load): trap into the handler.
	 */
	.globl	stub_utrap_trap
stub_utrap_trap:
2:	int3
	ud2

/*
 * Entries from STUB_UTRAP_CP0: musl's cancellable-call site,
 * "mov 0x8(%rsp),%r9; mov %rcx,%rdx; syscall" with the call's number in
 * rax (sys/sys_patch.c).  Its two movs are done here, as the site would
 * (the load is of the guest's own stack, where the site would make it);
 * then rcx, dead across a system call, keeps the number until the slot
 * is known, computed in rax alone, and the number goes to the record.
 * A gs base that is no slot takes the ud2 with the number in rcx.
 */
stub_utrap_cp:
	mov	0x8(%rsp), %r9
	mov	%rcx, %rdx
	mov	%rax, %rcx
	lahf
	seto	%al
	movzwl	%ax, %eax
	shl	$32, %rax
	or	%rax, %r11			/* r11 = k | (OF, lahf) << 32 */
	rdgsbase %rax
	sub	stub_utrap_slot0(%rip), %rax
	jb	stub_utrap_bad
	cmp	$(STUB_MAXTHREADS * STUB_THREAD_SIZE), %rax
	jae	stub_utrap_bad
	test	$(STUB_THREAD_SIZE - 1), %eax
	jnz	stub_utrap_bad
	add	stub_utrap_slot0(%rip), %rax
	put_if	%rcx, STUB_UT_REG(UT_RAX), %rax
	mov	%rax, %rcx
	jmp	stub_utrap_slot
stub_utrap_slot0:
	.quad	STUB_THREAD

	/* The gs base is not a slot: the system call goes by the signal path. */
	.org	STUB_UTRAP_BAD - STUB_TEXT
stub_utrap_bad:
	ud2
	.globl	stub_utrap_end
stub_utrap_end:

/*
 * The table's page, as the stub maps it at STUB_UTRAP_TABLE from its own
 * image (stub.c): page cache shared by every stub, no memory of its own.
 */
	.section .rodata.utrap, "a"
	.balign	STUB_PAGE
	.globl	stub_utrap_table
stub_utrap_table:
	.set	utk, 0
	.rept	STUB_UTRAP_N
	.quad	STUB_UTRAP_ENTRY0 + 16 * utk
	.set	utk, utk + 1
	.endr
	.balign	STUB_PAGE
/* The near page's jumps, mapped at STUB_UTRAP_NEAR (stub_abi.h). */
	.globl	stub_utrap_near
stub_utrap_near:
	.set	utk, 0
	.rept	STUB_UTRAP_N
	jmp	*(STUB_UTRAP_TABLE + 8 * utk)
	int3
	.set	utk, utk + 1
	.endr
	.balign	STUB_PAGE

/*
 * The end of a SIGSYS handler, its reply taken (stub.c): the guest goes
 * on from the frame at uc, as the vkernel left it, without the host's
 * rt_sigreturn where a jump will do.  SIGSYS is delivered with
 * SA_NODEFER and no mask, so the handler runs with the guest's signal
 * mask and nothing is to be restored but the registers: the FPU state
 * (XRSTOR of the frame's XSAVE image, as rt_sigreturn would: the host
 * gave the handler a fresh one), the flags rt_sigreturn takes from a
 * frame, the general registers, and a jump through rcx, which holds the
 * rip after every return from a system call (the syscall instruction put
 * it there).  Anything else -- other segments, a trap flag to set, a
 * frame without an XSAVE image, rcx not the rip (a signal handler, a
 * restarted call, execve) -- takes the host's rt_sigreturn.
 *
 * The kick (SIGKICK) is not blocked here.  From stub_sig_restart on, the
 * code depends on nothing but rsp, the frame's ucontext: a kick that
 * lands before the jump puts its thread back to stub_sig_restart
 * (stub.c, sig_kicked), which looks at thread->kick before it resumes
 * and, if the vkernel kicked, reports the frame as the kick's.  One that
 * lands on the jump itself finds everything the guest's but rip.
 *
 * Runs on the signal stack below the frame; the thread's slot comes from
 * rsp as in thread_self.  Nothing here is a privilege: it loads what a
 * guest could load itself.
 */
#define UC_GREG(r)	(40 + 8 * (r))	/* ucontext: uc_mcontext.gregs[r] */
#define G_R8	0
#define G_R9	1
#define G_R10	2
#define G_R11	3
#define G_R12	4
#define G_R13	5
#define G_R14	6
#define G_R15	7
#define G_RDI	8
#define G_RSI	9
#define G_RBP	10
#define G_RBX	11
#define G_RDX	12
#define G_RAX	13
#define G_RCX	14
#define G_RSP	15
#define G_RIP	16
#define G_EFL	17
#define G_CSGSFS 18			/* cs, gs, fs, ss: 16 bits each */
#define UC_FPREGS	224		/* uc_mcontext.fpregs */
#define FPX_SW		464		/* struct _fpx_sw_bytes in the image */
#define FP_XSTATE_MAGIC1 0x46505853
#define USER_CS		0x33		/* the host's 64-bit user segments */
#define USER_DS		0x2b
/* AC OF DF TF SF ZF AF PF CF RF: what rt_sigreturn takes from a frame */
#define RFLAGS_FIX	0x50dd5
#define RFLAGS_TF	0x100

	.text
	.globl	stub_sig_resume, stub_sig_restart, stub_sig_jump
stub_sig_resume:
	mov	%rdi, %rsp
stub_sig_restart:
	movabs	$STUB_THREAD, %rax
	mov	%rsp, %rdi
	sub	%rax, %rdi
	and	$-STUB_THREAD_SIZE, %rdi
	add	%rax, %rdi			/* the slot */
	cmpl	$0, STUB_T_KICK(%rdi)
	jne	.Lsig_kicked
	cmpl	$0, STUB_T_SIGMASKED(%rdi)
	jne	.Lsig_unmask
	cmpw	$USER_CS, UC_GREG(G_CSGSFS)(%rsp)
	jne	.Lsig_slow
	cmpw	$USER_DS, UC_GREG(G_CSGSFS) + 6(%rsp)
	jne	.Lsig_slow
	mov	UC_GREG(G_RIP)(%rsp), %rcx
	cmp	UC_GREG(G_RCX)(%rsp), %rcx
	jne	.Lsig_slow
	testl	$RFLAGS_TF, UC_GREG(G_EFL)(%rsp)
	jnz	.Lsig_slow
	mov	UC_FPREGS(%rsp), %rsi
	test	$63, %sil
	jnz	.Lsig_slow
	cmpl	$FP_XSTATE_MAGIC1, FPX_SW(%rsi)
	je	.Lsig_fast
.Lsig_unmask:
	movl	$0, STUB_T_SIGMASKED(%rdi)	/* the vkernel emptied the frame's */
.Lsig_slow:
	mov	$SYS_rt_sigreturn, %eax		/* reads the frame at rsp - 8 */
	syscall
	ud2
.Lsig_kicked:
	mov	%rsp, %rsi
	call	stub_sig_kicked			/* (slot, uc): reports the kick */
	jmp	stub_sig_restart
.Lsig_fast:
	mov	FPX_SW + 8(%rsi), %eax		/* the image's features */
	mov	FPX_SW + 12(%rsi), %edx
	xrstor64 (%rsi)
	/* The flags as rt_sigreturn makes them, kept in the red zone. */
	pushfq
	pop	%rdx
	and	$~RFLAGS_FIX, %rdx
	mov	UC_GREG(G_EFL)(%rsp), %rax
	and	$RFLAGS_FIX, %rax
	or	%rdx, %rax
	mov	%rax, -8(%rsp)
	mov	UC_GREG(G_R8)(%rsp), %r8
	mov	UC_GREG(G_R9)(%rsp), %r9
	mov	UC_GREG(G_R10)(%rsp), %r10
	mov	UC_GREG(G_R11)(%rsp), %r11
	mov	UC_GREG(G_R12)(%rsp), %r12
	mov	UC_GREG(G_R13)(%rsp), %r13
	mov	UC_GREG(G_R14)(%rsp), %r14
	mov	UC_GREG(G_R15)(%rsp), %r15
	mov	UC_GREG(G_RDI)(%rsp), %rdi
	mov	UC_GREG(G_RSI)(%rsp), %rsi
	mov	UC_GREG(G_RBP)(%rsp), %rbp
	mov	UC_GREG(G_RBX)(%rsp), %rbx
	mov	UC_GREG(G_RDX)(%rsp), %rdx
	mov	UC_GREG(G_RAX)(%rsp), %rax
	lea	-8(%rsp), %rsp
	popfq					/* no flag changes after this */
	mov	UC_GREG(G_RSP)(%rsp), %rsp
stub_sig_jump:
	jmp	*%rcx

/*
 * Continues the start on the top of the signal stack, so that the host's
 * stack can go.  The first trap's frame lands below us there; the guest
 * thread never comes back to this frame.
 */
	.text
	.globl	stub_leave_host_stack
stub_leave_host_stack:
	movabs	$(STUB_THREAD + STUB_THREAD_SIZE), %rsp
	call	stub_start_guest
	ud2

/* Starts the mapper thread with all signals blocked (inherited); returns its id. */
	.text
	.globl	stub_clone_mapper
stub_clone_mapper:
	mov	$SYS_clone, %eax
	mov	$STUB_CLONE_FLAGS, %edi
	movabs	$(STUB_CMD + STUB_CMD_SIZE), %rsi
	xor	%edx, %edx
	xor	%r10d, %r10d
	xor	%r8d, %r8d
	syscall
	test	%rax, %rax
	jz	stub_mapper
	ret

	.section .note.GNU-stack, "", @progbits

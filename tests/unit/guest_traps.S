/*
 * Guest programs for the trap, interrupt, FPU and hostile-guest tests
 * (test_traps.c, test_cpu.c): position-independent x86-64 machine code
 * that the tests copy to VMT_CODE and run in a vmspace.  Each is
 * g_NAME .. g_NAME_end; LABEL marks an extra entry or resume point whose
 * offset the tests compute from g_NAME.
 *
 * Convention: "REPORT n" is `mov $n,%eax; syscall`, which the test sees
 * as T_SYSCALL with tf_rax == n.
 */
#include "host/trap/stub_abi.h"

#define GUEST(name)	.globl g_##name, g_##name##_end; g_##name:
#define END(name)	g_##name##_end:
#define LABEL(name)	.globl g_##name; g_##name:
#define REPORT(n)	mov $n, %eax; syscall

	.text

/*
 * Faulting instructions, each the first instruction of its program and
 * followed by a report, so that the test can step over it and see the
 * guest go on.
 */
GUEST(trap_hlt)
	hlt
	REPORT(1000)
	ud2
END(trap_hlt)

GUEST(trap_cli)
	cli
	REPORT(1000)
	ud2
END(trap_cli)

GUEST(trap_in)
	in	$0x80, %al
	REPORT(1000)
	ud2
END(trap_in)

GUEST(trap_out)
	out	%al, $0x80
	REPORT(1000)
	ud2
END(trap_out)

GUEST(trap_ud2)
	ud2
	REPORT(1000)
	ud2
END(trap_ud2)

GUEST(trap_int3)
	int3
	REPORT(1000)
	ud2
END(trap_int3)

/* The test passes rcx = 0 (and rax = rdx = 0). */
GUEST(trap_div)
	div	%ecx
	REPORT(1000)
	ud2
END(trap_div)

GUEST(trap_cr0)
	mov	%cr0, %rax
	REPORT(1000)
	ud2
END(trap_cr0)

/* int $0x81: the IDT gate is not user-accessible, so #GP. */
GUEST(trap_int81)
	int	$0x81
	REPORT(1000)
	ud2
END(trap_int81)

/* A jump to a non-canonical address; resume at the label. */
GUEST(trap_noncanon)
	movabs	$0x8000000000000000, %rax
	jmp	*%rax
LABEL(trap_noncanon_resume)
	REPORT(1000)
	ud2
END(trap_noncanon)

/* A load from a non-canonical address (rip stays at the mov). */
GUEST(trap_noncanon_load)
	movabs	$0x8000000000000000, %rax
LABEL(trap_noncanon_load_insn)
	mov	(%rax), %rbx
	REPORT(1000)
	ud2
END(trap_noncanon_load)

/* The i386 system-call gate from 64-bit code: getpid (20). */
GUEST(trap_int80)
	mov	$20, %eax
	int	$0x80
	REPORT(1000)
	ud2
END(trap_int80)

/* rt_sigreturn made from guest code is an ordinary trapped syscall. */
GUEST(trap_own_sigreturn)
	mov	$15, %eax
	syscall
	REPORT(1000)
	ud2
END(trap_own_sigreturn)

/* Single-stepping: the test sets TF in tf_rflags. */
GUEST(trap_step)
	nop
	nop
	REPORT(1000)
	ud2
END(trap_step)

/* Stores to r15 (a stub address), then reports. */
GUEST(trap_store)
	movq	$0x5a, (%r15)
	REPORT(1000)
	ud2
END(trap_store)

/* Loads from r15, then reports with the value in rbx. */
GUEST(trap_load)
	mov	(%r15), %rbx
	REPORT(1000)
	ud2
END(trap_load)

/*
 * A jump to r15 with the registers the test set (system-call arguments
 * included).  What follows is where the test resumes a guest that got
 * its control back.
 */
GUEST(trap_jump)
	jmp	*%r15
LABEL(trap_jump_back)
	REPORT(1000)
	ud2
END(trap_jump)

/* Reads %fs:0 into rbx and %gs:8 into r12, reports, and starts over. */
GUEST(trap_fsgs)
1:	mov	%fs:0, %rbx
	mov	%gs:8, %r12
	REPORT(1000)
	jmp	1b
END(trap_fsgs)

/* Spins forever at its first instruction. */
GUEST(trap_spin)
1:	jmp	1b
END(trap_spin)

/*
 * Blocks in a futex wait from the stub's own text on the allowed word at
 * rdi, with its current value: the filter allows it, and only a signal
 * can end it.  Resume at the label after the ud2 the stub text has
 * after its syscall.
 */
GUEST(trap_futex_block)
	mov	(%rdi), %edx
	mov	$202, %eax		/* futex */
	xor	%esi, %esi		/* FUTEX_WAIT */
	xor	%r10d, %r10d		/* no timeout */
	movabs	$(STUB_RESTORER + 5), %r11
	jmp	*%r11
LABEL(trap_futex_block_back)
	REPORT(1000)
1:	jmp	1b
END(trap_futex_block)

/*
 * A forged rt_sigreturn: r15 points at a ucontext the test built in a
 * data page (the kernel's rt_sigframe minus its pretcode, so it starts
 * exactly at the rsp of the sigreturn).  Touch it first so that the stub
 * has the page mapped when the host kernel reads it, then enter the
 * stub's restorer with rsp there.  The forged frame resumes at one of the
 * labels below.
 */
GUEST(trap_sigreturn)
	mov	(%r15), %rax
	mov	%r15, %rsp
	movabs	$STUB_RESTORER, %rax
	jmp	*%rax
LABEL(trap_sigreturn_spin)
1:	jmp	1b
LABEL(trap_sigreturn_report)
	REPORT(1000)
2:	jmp	2b
/* The handler's own wait for its reply, made from the stub's restorer. */
LABEL(trap_sigreturn_sleep)
	movabs	$(STUB_THREAD + 4), %rdi	/* stub_thread.reply */
	movl	$2, (%rdi)			/* WW_SLEEPING */
	mov	$202, %eax			/* futex */
	xor	%esi, %esi			/* FUTEX_WAIT */
	mov	$2, %edx
	xor	%r10d, %r10d
	movabs	$(STUB_RESTORER + 5), %rcx	/* its syscall instruction */
	jmp	*%rcx
END(trap_sigreturn)

/*
 * A rogue thread 0 entering its reset itself (stub_abi.h, STUB_RESET):
 * a forged rt_sigreturn as trap_sigreturn's gives it the signal stack
 * and mask of the test's frame; then it forges a system call's report
 * (the signal number, over the last real report's) and enters the
 * reset, which posts it and parks.
 */
GUEST(trap_rogue_reset)
	mov	(%r15), %rax
	mov	%r15, %rsp
	movabs	$STUB_RESTORER, %rax
	jmp	*%rax
LABEL(trap_rogue_reset_forge)
	movabs	$(STUB_THREAD + 16), %rdi	/* stub_thread.signo */
	movq	$31, (%rdi)			/* SIGSYS */
	movabs	$STUB_RESET, %rax
	jmp	*%rax
END(trap_rogue_reset)

/*
 * A trap with the stack pointer just below slot 0's signal stack: a
 * thread whose signal stack is slot 0's switches to it, one whose signal
 * stack holds this address traps where the handler cannot report.
 */
GUEST(trap_int3_low)
	movabs	$(STUB_RESET_SP - 32), %rsp
	int3
	REPORT(1000)
	ud2
END(trap_int3_low)

/*
 * Forging reports in the stub's thread page.  r15: a table of (address,
 * value) qword pairs ending with address 0, stored in order.  r12: if
 * nonzero, also store rbx at r12 bytes into the ucontext the stub last
 * reported (read from the thread page).  Then post the request word, as
 * the stub's handler would have done before waiting, and go on: count
 * in (r13) and, if r11 is nonzero, copy what r11 points to into 8(r13).
 * Both pages are touched first, so that nothing faults after the post.
 */
GUEST(trap_forge)
	incq	(%r13)
	test	%r11, %r11
	jz	0f
	mov	(%r11), %rax
0:	movabs	$STUB_THREAD, %r14
1:	mov	(%r15), %rax
	test	%rax, %rax
	jz	2f
	mov	8(%r15), %rcx
	mov	%rcx, (%rax)
	add	$16, %r15
	jmp	1b
2:	test	%r12, %r12
	jz	3f
	mov	32(%r14), %rax		/* stub_thread.ucontext */
	mov	%rbx, (%rax,%r12)
3:	lock orl $1, (%r14)		/* stub_thread.req |= WW_POSTED */
4:	incq	(%r13)
	test	%r11, %r11
	jz	4b
	mov	(%r11), %rax
	mov	%rax, 8(%r13)
	jmp	4b
END(trap_forge)

/*
 * FPU state.  r15: a data page.  ebx: 1 if the CPU has AVX (ymm), else
 * only xmm.  Layout of the page:
 *   0     16 registers x 32 bytes to load, 512: MXCSR, 516: x87 FCW
 *   1024  what the guest stored after its syscall (same layout)
 *   2048  what the guest found before loading anything (fresh entry)
 */
.macro FPU_LOAD base
	test	%ebx, %ebx
	jz	1f
	.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	vmovdqu	\base+32*\i(%r15), %ymm\i
	.endr
	jmp	2f
1:
	.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	movdqu	\base+32*\i(%r15), %xmm\i
	.endr
2:	ldmxcsr	\base+512(%r15)
	fldcw	\base+516(%r15)
.endm

.macro FPU_STORE base
	test	%ebx, %ebx
	jz	1f
	.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	vmovdqu	%ymm\i, \base+32*\i(%r15)
	.endr
	jmp	2f
1:
	.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	movdqu	%xmm\i, \base+32*\i(%r15)
	.endr
2:	stmxcsr	\base+512(%r15)
	fnstcw	\base+516(%r15)
.endm

GUEST(trap_fpu)
	FPU_LOAD 0
	REPORT(1000)
	FPU_STORE 1024
	REPORT(1001)
	ud2
LABEL(trap_fpu_fresh)
	FPU_STORE 2048
	FPU_LOAD 0
	REPORT(1000)
	FPU_STORE 1024
	REPORT(1001)
	ud2
END(trap_fpu)

	.section .note.GNU-stack, "", @progbits

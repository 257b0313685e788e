/*
 * The context switch: save the callee-saved registers on the old thread's
 * stack, keep its stack pointer, take the new one's and return into it.
 * Everything else a thread needs lives on its own stack already.
 *
 * void cpu_switch(uint64_t *old_sp, uint64_t new_sp);
 */
	.text
	.globl	cpu_switch
	.type	cpu_switch, @function
cpu_switch:
	push	%rbp
	push	%rbx
	push	%r12
	push	%r13
	push	%r14
	push	%r15
	mov	%rsp, (%rdi)
	mov	%rsi, %rsp
	pop	%r15
	pop	%r14
	pop	%r13
	pop	%r12
	pop	%rbx
	pop	%rbp
	ret
	.size	cpu_switch, . - cpu_switch

/*
 * Where a new thread's first switch returns: r12 holds thread_run's
 * argument (see thread_create).
 */
	.globl	thread_trampoline
	.type	thread_trampoline, @function
thread_trampoline:
	mov	%r12, %rdi
	call	thread_run
	ud2
	.size	thread_trampoline, . - thread_trampoline

	.section .note.GNU-stack, "", @progbits

/*
 * Guest programs of the host-layer benchmark (bench/hostbench.c).
 */
#define GUEST(name)	.globl g_##name, g_##name##_end; g_##name:
#define END(name)	g_##name##_end:

	.text
/* rdi = count: that many getpid system calls, then syscall 1000. */
GUEST(bench_syscalls)
	mov	%rdi, %rbx
1:	mov	$39, %eax
	syscall
	dec	%rbx
	jnz	1b
	mov	$1000, %eax
	syscall
	ud2
END(bench_syscalls)

/*
 * rdi = first page, rsi = count, rdx = stride, r8 = where to store the
 * TSC ticks each touch took, r9 = 0 to read, 1 to write; then syscall 1000.
 */
GUEST(bench_touch)
	mov	%rdi, %rbp
	mov	%rsi, %r13
	mov	%rdx, %r14
	mov	%r8, %r15
	mov	%r9, %rbx
1:	lfence
	rdtsc
	shl	$32, %rdx
	or	%rax, %rdx
	mov	%rdx, %r10
	test	%rbx, %rbx
	jnz	2f
	mov	(%rbp), %al
	jmp	3f
2:	movb	$1, (%rbp)
3:	rdtscp
	lfence
	shl	$32, %rdx
	or	%rax, %rdx
	sub	%r10, %rdx
	mov	%rdx, (%r15)
	add	$8, %r15
	add	%r14, %rbp
	dec	%r13
	jnz	1b
	mov	$1000, %eax
	syscall
	ud2
END(bench_touch)

	.section .note.GNU-stack, "", @progbits

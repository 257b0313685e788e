/*
 * Guest programs for the host-layer tests: position-independent x86-64
 * machine code that the tests copy into RAM and run in a vmspace.  Each
 * is g_NAME .. g_NAME_end.
 */
#define GUEST(name)	.globl g_##name, g_##name##_end; g_##name:
#define END(name)	g_##name##_end:

	.text
/* getpid; then exit(result of getpid) with marker registers. */
GUEST(syscall)
	mov	$0x1111, %rbx
	mov	$0x2222, %rdi
	mov	$0x3333, %rsi
	mov	$0x4444, %rdx
	mov	$0x5555, %r10
	mov	$0x6666, %r8
	mov	$0x7777, %r9
	mov	$0x8888, %r12
	mov	$0x9999, %r15
	mov	$39, %eax
	syscall
	mov	%rax, %rdi
	mov	$60, %eax
	syscall
	ud2
END(syscall)

	.section .note.GNU-stack, "", @progbits

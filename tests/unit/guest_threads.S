/*
 * Guest programs for the tests of several threads in one vmspace
 * (test_vmthread.c).  Results are reported with a system call (number
 * 1000 and up) whose registers the test reads.
 */
#define GUEST(name)	.globl g_##name, g_##name##_end; g_##name:
#define END(name)	g_##name##_end:

	.text
/* Reports 1000 with %rdi and %rsi as given, %rdx = its count; repeats. */
GUEST(thr_report)
	xor	%edx, %edx
1:	inc	%rdx
	mov	$1000, %eax
	syscall
	jmp	1b
	ud2
END(thr_report)

/*
 * %rdi = a counter, %rsi = n: adds 1 to the counter n times with lock
 * incq, then reports 1000; repeats.
 */
GUEST(thr_add)
1:	mov	%rsi, %rcx
2:	lock incq (%rdi)
	dec	%rcx
	jnz	2b
	mov	$1000, %eax
	syscall
	jmp	1b
	ud2
END(thr_add)

/* Spins without a system call. */
GUEST(thr_spin)
1:	pause
	jmp	1b
	ud2
END(thr_spin)

/* Loads the qword at (%rdi) into %rsi and reports it (1000); repeats. */
GUEST(thr_load)
1:	mov	(%rdi), %rsi
	mov	$1000, %eax
	syscall
	jmp	1b
	ud2
END(thr_load)

	.section .note.GNU-stack, "", @progbits

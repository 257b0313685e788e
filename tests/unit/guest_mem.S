/*
 * Guest programs for the memory tests of the vmspace API (test_vmspace.c):
 * position-independent x86-64 machine code that the tests copy into RAM
 * and run in a vmspace.  Each is g_mem_NAME .. g_mem_NAME_end.  Results
 * are reported with a system call (number 1000 and up) whose registers
 * the test reads; %rcx and %r11 do not survive a system call.
 */
#define GUEST(name)	.globl g_##name, g_##name##_end; g_##name:
#define END(name)	g_##name##_end:

	.text
/* Loads the qword at (%rdi) into %rsi and reports it (1000); repeats. */
GUEST(mem_load_loop)
1:	mov	(%rdi), %rsi
	mov	$1000, %eax
	syscall
	jmp	1b
	ud2
END(mem_load_loop)

/* Stores %rsi at (%rdi), loads it back into %rdx, reports (1001); repeats. */
GUEST(mem_store_loop)
1:	mov	%rsi, (%rdi)
	mov	(%rdi), %rdx
	mov	$1001, %eax
	syscall
	jmp	1b
	ud2
END(mem_store_loop)

/*
 * Loads (%rdi) into %rdx and reports (1000); then, repeatedly, stores
 * %rsi at (%rdi) and reports (1001).
 */
GUEST(mem_read_then_write)
	mov	(%rdi), %rdx
	mov	$1000, %eax
	syscall
1:	mov	%rsi, (%rdi)
	mov	$1001, %eax
	syscall
	jmp	1b
	ud2
END(mem_read_then_write)

/*
 * %rdi = base, %rsi = pages, %r12 = mask.  Writes i+1 at offset 0 and
 * ~(i+1) at offset 8 of page i, reporting 1001 whenever (i+1) & mask is
 * 0 (mask ~0: never) and 1002 after the last; then re-reads every page
 * and reports 1000 with %r9 = the sum of the offset-0 words and %r10 =
 * the number of pages whose two words are not what was written.
 */
GUEST(mem_fill)
	xor	%r8, %r8
1:	mov	%r8, %rax
	shl	$12, %rax
	lea	1(%r8), %rdx
	mov	%rdx, (%rdi,%rax)
	not	%rdx
	mov	%rdx, 8(%rdi,%rax)
	inc	%r8
	mov	%r8, %rax
	and	%r12, %rax
	jnz	2f
	mov	$1001, %eax
	syscall
2:	cmp	%rsi, %r8
	jb	1b
	mov	$1002, %eax
	syscall

	xor	%r8, %r8
	xor	%r9, %r9
	xor	%r10, %r10
3:	mov	%r8, %rax
	shl	$12, %rax
	mov	(%rdi,%rax), %rdx
	mov	8(%rdi,%rax), %rbx
	add	%rdx, %r9
	lea	1(%r8), %r13
	cmp	%r13, %rdx
	jne	4f
	not	%r13
	cmp	%r13, %rbx
	je	5f
4:	inc	%r10
5:	inc	%r8
	cmp	%rsi, %r8
	jb	3b
	mov	$1000, %eax
	syscall
	ud2
END(mem_fill)

/* %rdi = base, %rsi = pages: reports 1000 with %rdx = sum of the first qwords. */
GUEST(mem_sum)
	xor	%r8, %r8
	xor	%rdx, %rdx
1:	mov	%r8, %rax
	shl	$12, %rax
	add	(%rdi,%rax), %rdx
	inc	%r8
	cmp	%rsi, %r8
	jb	1b
	mov	$1000, %eax
	syscall
	ud2
END(mem_sum)

/*
 * With %rdx != 0: sets %xmm0 to %rsi:%rdi (high:low) and reports 1000.
 * Then reports 1001 with %rdi = low and %rsi = high qword of %xmm0.
 */
GUEST(mem_fpu)
	test	%rdx, %rdx
	jz	1f
	movq	%rdi, %xmm0
	movq	%rsi, %xmm1
	punpcklqdq %xmm1, %xmm0
	mov	$1000, %eax
	syscall
1:	movq	%xmm0, %rdi
	pshufd	$0x4e, %xmm0, %xmm1
	movq	%xmm1, %rsi
	mov	$1001, %eax
	syscall
	ud2
END(mem_fpu)

/* Jumps to %rdi. */
GUEST(mem_jump)
	jmp	*%rdi
	ud2
END(mem_jump)

/* Reports 1000 with %rdi = its own address; repeats. */
GUEST(mem_report)
1:	lea	1b(%rip), %rdi
	mov	$1000, %eax
	syscall
	jmp	1b
	ud2
END(mem_report)

/*
 * %rdi = base, %rsi = pages (at most 512): loads the qword at offset 8 * i
 * of page i and stores it back, for every page; reports 1000; repeats.
 * Reads and writes without changing memory.
 */
GUEST(mem_touch_loop)
1:	xor	%r8, %r8
2:	mov	%r8, %rax
	shl	$12, %rax
	lea	(%rax,%r8,8), %rax
	mov	(%rdi,%rax), %rdx
	mov	%rdx, (%rdi,%rax)
	inc	%r8
	cmp	%rsi, %r8
	jb	2b
	mov	$1000, %eax
	syscall
	jmp	1b
	ud2
END(mem_touch_loop)

	.section .note.GNU-stack, "", @progbits

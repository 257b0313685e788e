/*
 * Guest programs for the VM tests (test_vm_fault.c, test_pmap.c):
 * position-independent x86-64 code, g_vm_NAME .. g_vm_NAME_end, that the
 * tests map at VMP_CODE, all of it from g_vm_start to g_vm_end, and run
 * from the program's entry.  Each reports with a system call
 * (number 1000 and up in %rax, results in other registers) and, run
 * again, starts over with the registers the test left; %rcx and %r11 do
 * not survive a system call.
 */
#define GUEST(name)	.globl g_##name, g_##name##_end; g_##name:
#define END(name)	g_##name##_end:

	.text
	.globl	g_vm_start, g_vm_end
g_vm_start:
/* Loads the qword at (%rdi) into %rsi and reports 1000. */
GUEST(vm_load)
	mov	(%rdi), %rsi
	mov	$1000, %eax
	syscall
	jmp	g_vm_load
END(vm_load)

/* Stores %rsi at (%rdi) and reports 1001. */
GUEST(vm_store)
	mov	%rsi, (%rdi)
	mov	$1001, %eax
	syscall
	jmp	g_vm_store
END(vm_store)

/*
 * %rdi = base, %rsi = pages, %rdx = value: stores value + i at the start
 * of page i, then reports 1002 with %r9 = the sum of what it reads back.
 */
GUEST(vm_fill)
	xor	%r8, %r8
	xor	%r9, %r9
1:	mov	%r8, %rax
	shl	$12, %rax
	lea	(%rdx,%r8), %r10
	mov	%r10, (%rdi,%rax)
	add	(%rdi,%rax), %r9
	inc	%r8
	cmp	%rsi, %r8
	jb	1b
	mov	$1002, %eax
	syscall
	jmp	g_vm_fill
END(vm_fill)

/*
 * %rdi = base, %rsi = pages: reports 1000 with %rdx = the sum of the
 * first qwords of the pages.
 */
GUEST(vm_sum)
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
	jmp	g_vm_sum
END(vm_sum)

/*
 * %rsi = bytes: writes a qword in every page of the %rsi bytes below the
 * stack pointer, deepest last, then reports 1002.
 */
GUEST(vm_stack)
	mov	%rsp, %r8
1:	sub	$4096, %r8
	movq	$1, (%r8)
	sub	$4096, %rsi
	ja	1b
	mov	$1002, %eax
	syscall
	jmp	g_vm_stack
END(vm_stack)

/* Jumps to %rdi. */
GUEST(vm_jump)
	jmp	*%rdi
END(vm_jump)
g_vm_end:

	.section .note.GNU-stack, "", @progbits

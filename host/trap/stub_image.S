/*
 * The stub program, embedded in the vkernel so that it needs no file of
 * its own at run time (host/trap/trap_spawn.c execs it from a sealed memfd).
 */
	.section .rodata
	.balign 16
	.globl	trap_stub_image, trap_stub_image_end
trap_stub_image:
	.incbin	STUB_PATH
trap_stub_image_end:

	.section .note.GNU-stack, "", @progbits

/*
 * The vDSO's bytes (built/vdso.so, see the Makefile), embedded in the
 * vkernel; kern/kern_vdso.c copies them into pages of RAM at boot.
 */
	.section .rodata
	.globl vdso_image, vdso_image_end
	.balign 4096
vdso_image:
	.incbin VDSO_PATH
vdso_image_end:
	.section .note.GNU-stack, "", @progbits

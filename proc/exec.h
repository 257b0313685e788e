/*
 * execve's pieces: the argument area, the image being loaded, the ELF
 * loader and the stack builder.
 */
#ifndef PROC_EXEC_H
#define PROC_EXEC_H

#include "kern/proc.h"

struct vnode;

/* argv then envp strings, NUL-separated, as copied in. */
struct exec_args {
	char *ea_buf;
	size_t ea_len;
	long ea_argc, ea_envc;
};

#define EXEC_ARGMAX	(2 * 1024 * 1024)	/* argv + envp: RLIMIT_STACK / 4 */

/* Appends a kernel string to the argument area; -E2BIG if it is full. */
int args_add(struct exec_args *ea, const char *s);

struct image {
	struct vnode *im_vp;
	const char *im_name;		/* its path, for the log */
	const char *im_hdr;		/* the file's first page */
	size_t im_hdrlen;
	struct vmspace *im_vmspace;	/* the new address space */
	uint64_t im_entry;		/* the program's entry (AT_ENTRY) */
	uint64_t im_start;		/* where the thread starts: ld.so's, or im_entry */
	uint64_t im_phdr, im_phnum;	/* where the program headers are mapped */
	uint64_t im_data;		/* its first writable segment, or 0 */
	uint64_t im_base;		/* load bias (ET_DYN) */
	uint64_t im_interp_base;	/* ld.so's load bias (AT_BASE), or 0 */
	uint64_t im_vdso;		/* the vDSO (AT_SYSINFO_EHDR), or 0 */
	uint64_t im_sp;			/* the initial stack pointer */
};

int kern_execve(struct lwp *lp, const char *path, struct exec_args *ea);
int exec_read(struct vnode *vp, struct vmspace *vm, uint64_t buf, size_t len,
    uint64_t off);

/*
 * Finds an executable regular file at path for process p: a referenced
 * vnode, or -ENOENT, -EACCES...
 */
int exec_lookup(struct proc *p, const char *path, struct vnode **vpp);

/*
 * Builds im->im_vmspace from the ELF image and its interpreter, if it
 * has one; -ENOEXEC if it is not one, or the interpreter's errors.
 */
int elf_load(struct image *im, struct proc *p);

/* Maps the stack and lays out argc, argv, envp and auxv as Linux does. */
int exec_stack(struct image *im, const struct exec_args *ea, const char *path);

/*
 * How far a stack may grow (vm_stack_max) under RLIMIT_STACK soft limit
 * cur: exec sets it, and so does a change of the limit, as Linux reads
 * the limit at each growth.
 */
uint64_t exec_stack_max(rlim_t cur);

#endif /* PROC_EXEC_H */

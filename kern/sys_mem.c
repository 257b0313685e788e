/*
 * Memory system calls: thin wrappers over vm/ with Linux's argument rules.
 */
#include <sys/mman.h>

#include "kern/syscall.h"
#include "vm/vm.h"

SYSCALL(brk)
{
	return (long)vm_brk(lp->lwp_proc->p_vmspace, args[0]);
}

SYSCALL(mmap)
{
	int flags = (int)args[3];
	if (!(flags & MAP_ANONYMOUS)) {
		/* As Linux, a bad descriptor is found first. */
		struct file *fp = fget(&lp->lwp_proc->p_fs, (int)args[4]);
		if (fp == NULL)
			return -EBADF;
		fdrop(fp);
		return -ENODEV;	/* file mappings: the vnode pager is not written yet */
	}
	return vm_mmap(lp->lwp_proc->p_vmspace, args[0], args[1], (int)args[2],
	    flags, NULL, 0);
}

SYSCALL(munmap)
{
	return vm_munmap(lp->lwp_proc->p_vmspace, args[0], args[1]);
}

SYSCALL(mprotect)
{
	return vm_mprotect(lp->lwp_proc->p_vmspace, args[0], args[1], (int)args[2]);
}

SYSCALL(madvise)
{
	return vm_madvise(lp->lwp_proc->p_vmspace, args[0], args[1], (int)args[2]);
}

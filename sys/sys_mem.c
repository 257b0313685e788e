/*
 * Memory system calls: thin wrappers over vm/ with Linux's argument rules.
 */
#include <sys/mman.h>

#include "fs/file.h"
#include "fs/tmpfs/tmpfs.h"
#include "fs/vnode.h"
#include "fs/vnode_pager.h"
#include "sys/syscall.h"
#include "vm/vm.h"
#include "vm/vm_object.h"

long
sys_brk(struct lwp *lp, const uint64_t *args)
{
	return (long)vm_brk(lp->lwp_proc->p_vmspace, args[0]);
}

/*
 * mmap of a file: a regular file opened for reading.  A file with pages
 * of its own (v_object) maps them; others go through a copying object of
 * its own (fs/vnode_pager.c).  A private mapping is Linux's; a
 * shared one is refused if it could write (the page cache it needs is
 * still to come: -ENODEV, logged) and is a private copy that may never
 * become writable otherwise.  Other files (pipes, devices, directories,
 * procfs) have no pages to map: -ENODEV, as Linux's without mmap.
 */
static long
mmap_file(struct lwp *lp, uint64_t addr, uint64_t len, int prot, int flags,
    int fd, uint64_t off)
{
	struct file *fp = fget(&lp->lwp_proc->p_fs, fd);
	if (fp == NULL)
		return -EBADF;	/* as Linux, a bad descriptor is found first */
	long r;
	int maxprot = VM_PROT_ALL;
	bool shared = (flags & MAP_TYPE) != MAP_PRIVATE;
	if (shared && (prot & PROT_WRITE) && !FWRITE(fp)) {
		r = -EACCES;
		goto out;
	}
	if (!FREAD(fp)) {
		r = -EACCES;
		goto out;
	}
	struct vnode *vp = fp->f_vnode;
	if (fp->f_type != DTYPE_VNODE || fp->f_ops != &vnops_fileops ||
	    vp == NULL || vp->v_type != VREG) {
		r = -ENODEV;
		goto out;
	}
	if (vp->v_object != NULL) {
		/*
		 * The file's own pages (tmpfs today): every mapping maps its
		 * one object, MAP_SHARED directly, MAP_PRIVATE copy-on-write.
		 */
		if ((r = tmpfs_seal_mmap(vp, prot, shared, &maxprot)) < 0)
			goto out;
		if (shared && !FWRITE(fp))
			maxprot &= ~VM_PROT_WRITE;
		r = vm_mmap_maxprot(lp->lwp_proc->p_vmspace, addr, len, prot,
		    maxprot, flags, vp->v_object, off);
		goto out;
	}
	if (shared) {
		if (prot & PROT_WRITE) {
			static bool logged;
			if (!logged)
				kprintf("pid %d (%s): mmap: writable shared file mappings "
				    "need the page cache (not written yet)\n",
				    lp->lwp_proc->p_pid, lp->lwp_proc->p_comm);
			logged = true;
			r = -ENODEV;
			goto out;
		}
		maxprot &= ~VM_PROT_WRITE;
	}
	struct vm_object *obj = vnode_pager_alloc(vp);
	if (obj == NULL) {
		r = -ENOMEM;
		goto out;
	}
	r = vm_mmap_maxprot(lp->lwp_proc->p_vmspace, addr, len, prot, maxprot,
	    flags, obj, off);
	vm_object_deallocate(obj);	/* the mapping holds its own */
out:
	fdrop(fp);
	return r;
}

long
sys_mmap(struct lwp *lp, const uint64_t *args)
{
	int flags = (int)args[3];
	if (!(flags & MAP_ANONYMOUS))
		return mmap_file(lp, args[0], args[1], (int)args[2], flags,
		    (int)args[4], args[5]);
	return vm_mmap(lp->lwp_proc->p_vmspace, args[0], args[1], (int)args[2],
	    flags, NULL, 0);
}

long
sys_munmap(struct lwp *lp, const uint64_t *args)
{
	return vm_munmap(lp->lwp_proc->p_vmspace, args[0], args[1]);
}

long
sys_mprotect(struct lwp *lp, const uint64_t *args)
{
	return vm_mprotect(lp->lwp_proc->p_vmspace, args[0], args[1], (int)args[2]);
}

long
sys_madvise(struct lwp *lp, const uint64_t *args)
{
	return vm_madvise(lp->lwp_proc->p_vmspace, args[0], args[1], (int)args[2]);
}

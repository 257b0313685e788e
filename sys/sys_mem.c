/*
 * Memory system calls: thin wrappers over vm/ with Linux's argument rules.
 */
#include <sys/mman.h>

#include "fs/file.h"
#include "fs/tmpfs/tmpfs.h"
#include "fs/vnode.h"
#include "fs/vnode_pager.h"
#include "kern/ucred.h"
#include "sys/syscall.h"
#include "kern/kmem.h"
#include "vm/vm.h"
#include "vm/vm_object.h"

long
sys_brk(struct lwp *lp, const uint64_t *args)
{
	return (long)vm_brk(lp->lwp_proc->p_vmspace, args[0]);
}

/*
 * mmap of a file: a regular file opened for reading, through its page
 * cache object (fs/vnode_pager.h): MAP_SHARED maps the object itself,
 * MAP_PRIVATE maps it copy-on-write.  A shared mapping of a file not
 * open for writing may never become writable (Linux's VM_MAYWRITE).
 * Other files (pipes, devices, directories, procfs) have no pages to
 * map: -ENODEV, as Linux's without mmap.
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
	if (shared && !FWRITE(fp))
		maxprot &= ~VM_PROT_WRITE;
	/* A memfd sealed against writes: no shared writable mapping. */
	if ((r = tmpfs_seal_mmap(vp, prot, shared, &maxprot)) < 0)
		goto out;
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
	struct vmspace *vm = lp->lwp_proc->p_vmspace;
	long r = vm_mmap(vm, args[0], args[1], (int)args[2], flags, NULL, 0);
	if (r >= 0)
		vm_mmap_touch_ahead(vm, (uint64_t)r, args[1], (int)args[2],
		    flags);
	return r;
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

/*
 * msync as Linux's: EINVAL for an unaligned start, unknown flags or
 * MS_SYNC with MS_ASYNC; the shared file mappings in the range are
 * written back (MS_SYNC: durably, as fdatasync of their files; MS_ASYNC
 * writes too, which Linux leaves to its flusher); MS_INVALIDATE needs
 * nothing more, the pages being the file's own.  Holes in the range give
 * ENOMEM after the mapped parts are done.
 */
long
sys_msync(struct lwp *lp, const uint64_t *args)
{
	uint64_t start = args[0], len = args[1];
	int flags = (int)args[2];
	struct vm_map *map = &lp->lwp_proc->p_vmspace->vm_map;

	if (flags & ~(MS_ASYNC | MS_INVALIDATE | MS_SYNC))
		return -EINVAL;
	if ((start & PAGE_MASK) != 0)
		return -EINVAL;
	if ((flags & MS_ASYNC) && (flags & MS_SYNC))
		return -EINVAL;
	uint64_t end = start + roundup2(len, PAGE_SIZE);
	if (end < start)
		return -ENOMEM;
	if (end == start)
		return 0;

	/* The files and page ranges first: writing them back sleeps. */
	struct vm_map_entry *e;
	long error = 0;
	size_t n = 0;
	bool mapped = vm_map_lookup_entry(map, start, &e);
	if (!mapped)
		e = e->next;
	for (struct vm_map_entry *x = e; x != VM_MAP_END(map) && x->start < end;
	    x = x->next)
		n++;
	struct range { struct vnode *vp; uint64_t s, e; } *r = NULL;
	if (n > 0 && (r = kmalloc(n * sizeof(*r), 0)) == NULL)
		return -ENOMEM;
	n = 0;
	uint64_t at = start;
	for (; e != VM_MAP_END(map) && e->start < end; e = e->next) {
		if (e->start > at)
			error = -ENOMEM;	/* a hole */
		at = e->end;
		struct vm_object *obj = e->object;
		if (obj == NULL || obj->type != OBJT_VNODE ||
		    (e->eflags & MAP_ENTRY_COW))
			continue;
		uint64_t s = MAX(start, e->start), t = MIN(end, e->end);
		r[n].vp = vref(obj->handle);
		r[n].s = vm_map_entry_pindex(e, s);
		r[n++].e = vm_map_entry_pindex(e, t - 1) + 1;
	}
	if (at < end)
		error = -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct vnode *vp = r[i].vp;
		int e2 = vnode_pager_clean(vp, r[i].s, r[i].e, 0);
		if (e2 == 0 && (flags & MS_SYNC) && vp->v_op->vop_fsync != NULL)
			e2 = vp->v_op->vop_fsync(vp, true);
		if (e2 < 0 && (error == 0 || error == -ENOMEM))
			error = e2;
		vrele(vp);
	}
	kfree(r);
	return error;
}

long
sys_mremap(struct lwp *lp, const uint64_t *args)
{
	return vm_mremap(lp->lwp_proc->p_vmspace, args[0], args[1], args[2],
	    (int)args[3], args[4]);
}

long
sys_mincore(struct lwp *lp, const uint64_t *args)
{
	return vm_mincore(lp->lwp_proc->p_vmspace, args[0], args[1], args[2]);
}

/*
 * The memory locks.  Memory here is never paged out to swap (the
 * pageout daemon frees only clean file pages, which come back from the
 * file), so a lock has nothing to hold: the calls check their arguments
 * and the limit as Linux does and succeed.  Without privilege (Linux's
 * CAP_IPC_LOCK) RLIMIT_MEMLOCK bounds each request: 0 refuses locking
 * with EPERM, a larger range gives ENOMEM.  The process's total locked
 * size is not kept, so several requests may together pass the limit.
 */
static long
mlock_check(struct lwp *lp, uint64_t start, uint64_t len, bool lock)
{
	struct proc *p = lp->lwp_proc;
	struct vm_map *map = &p->p_vmspace->vm_map;
	uint64_t s = rounddown2(start, PAGE_SIZE);
	uint64_t end = roundup2(start + len, PAGE_SIZE);

	if (start + len < start)
		return -EINVAL;
	if (end == s)
		return 0;
	if (lock && !cred_is_root(p->p_ucred)) {
		uint64_t lim = p->p_rlimit[RLIMIT_MEMLOCK].rlim_cur;
		if (lim == 0)
			return -EPERM;
		if (end - s > lim)
			return -ENOMEM;
	}
	/* Every page of the range must be mapped. */
	struct vm_map_entry *e;
	if (!vm_map_lookup_entry(map, s, &e))
		return -ENOMEM;
	for (uint64_t at = s; at < end; e = e->next) {
		if (e == VM_MAP_END(map) || e->start > at)
			return -ENOMEM;
		at = e->end;
	}
	return 0;
}

long
sys_mlock(struct lwp *lp, const uint64_t *args)
{
	return mlock_check(lp, args[0], args[1], true);
}

long
sys_mlock2(struct lwp *lp, const uint64_t *args)
{
	if (args[2] & ~(uint64_t)MLOCK_ONFAULT)
		return -EINVAL;
	return mlock_check(lp, args[0], args[1], true);
}

long
sys_munlock(struct lwp *lp, const uint64_t *args)
{
	return mlock_check(lp, args[0], args[1], false);
}

long
sys_mlockall(struct lwp *lp, const uint64_t *args)
{
	struct proc *p = lp->lwp_proc;
	uint64_t flags = args[0];

	if (flags == 0 || (flags & ~(uint64_t)(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)) ||
	    (flags & (MCL_CURRENT | MCL_FUTURE)) == 0)
		return -EINVAL;
	if (cred_is_root(p->p_ucred))
		return 0;
	uint64_t lim = p->p_rlimit[RLIMIT_MEMLOCK].rlim_cur;
	if (lim == 0)
		return -EPERM;
	if ((flags & MCL_CURRENT) && p->p_vmspace->vm_map.size > lim)
		return -ENOMEM;
	return 0;
}

long
sys_munlockall(struct lwp *lp, const uint64_t *args)
{
	(void)lp;
	(void)args;
	return 0;
}

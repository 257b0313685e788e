/*
 * Pagers: where the pages of a vm_object come from and go back to.  Each
 * object has an operations table.  Anonymous objects have the anonymous
 * pager: it holds no data (a page that is not resident reads as zero, or
 * from the object's backing object) and cannot clean pages yet (no swap).
 * Objects of files (OBJT_VNODE) get their table from the file system,
 * which creates them with vm_object_allocate_vnode.
 *
 * Locking: the big kernel lock.  getpage may sleep (file I/O); the caller
 * holds a reference to the object across it and revalidates whatever
 * else it looked at.
 */
#ifndef VM_VM_PAGER_H
#define VM_VM_PAGER_H

#include <stdint.h>

struct vm_object;
struct vm_page;

struct vm_pager_ops {
	const char *name;
	/*
	 * Makes page pindex of obj resident: finds or reads it, inserts it
	 * in obj (vm_object_page_insert) and returns it in *mp.  Returns 0;
	 * -ENOENT if the pager has no data for it (the caller looks in the
	 * backing object or fills a zero page); -EIO for an I/O error or an
	 * index beyond the end of the file (the process gets SIGBUS);
	 * -ENOMEM.
	 */
	int (*getpage)(struct vm_object *obj, uint64_t pindex,
	    struct vm_page **mp);
	/*
	 * Writes back those of obj's pages at indices idx[0..n) (ascending)
	 * that are still resident and dirty, all in flight at once so that
	 * the disk can merge neighbours.  Returns 0, -EIO (pages not written
	 * stay dirty), or -ENOSYS if the pager has no store.  May sleep.
	 */
	int (*putpages)(struct vm_object *obj, const uint64_t *idx, int n);
#define VM_PAGER_PUTBATCH	64	/* the most indices putpages gets */
	/*
	 * The last reference to obj is gone and its pages are about to be
	 * freed (clean them first if they must survive); NULL if nothing to do.
	 */
	void (*dealloc)(struct vm_object *obj);
	/*
	 * Optional, for an object with an owner that holds its first
	 * reference (a vnode's v_object): reference is called after each
	 * other reference is taken, release after each is dropped (ref_count
	 * already lowered, obj possibly freed by the time release returns
	 * through the owner).  The vnode pager keeps its vnode referenced
	 * once per such reference, so a file stays while it is mapped.
	 */
	void (*reference)(struct vm_object *obj);
	void (*release)(struct vm_object *obj);
};

extern const struct vm_pager_ops anon_pager_ops;

#endif /* VM_VM_PAGER_H */

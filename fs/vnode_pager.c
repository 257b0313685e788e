/*
 * The copying vnode pager: what a mapping of a regular file reads until
 * there is a page cache.  Each mmap of a file gets an object of its own
 * (OBJT_VNODE, holding a reference to the vnode) whose pages are read
 * from the file at their first fault, through the file system's
 * vop_read, into fresh pages the object keeps until the mapping goes.
 *
 * So a mapping sees the file as it was when each of its pages was first
 * touched: a later write(2) to the file does not show in pages already
 * read, and two processes mapping one file hold two copies (a fork
 * shares its parent's).  That is enough for private mappings (programs,
 * libraries, data files) and for read-only shared ones; a writable
 * shared mapping needs one object per file, kept coherent with read and
 * write: the page cache, still to come (sys_mem.c refuses it).
 *
 * As Linux: the part of the last page past the end of the file reads as
 * zero, and a page wholly past it gives SIGBUS (getpage's -EIO).
 */
#include "fs/vnode.h"
#include "kern/uio.h"
#include "vm/vm_object.h"
#include "fs/vnode_pager.h"

static int
vnode_pager_getpage(struct vm_object *obj, uint64_t pindex,
    struct vm_page **mp)
{
	struct vnode *vp = obj->handle;

	if (vp->v_size == 0 || pindex > (vp->v_size - 1) >> PAGE_SHIFT)
		return -EIO;		/* wholly past the end of the file */
	struct vm_page *m = vm_page_alloc(0, VM_ALLOC_ZERO);
	if (m == NULL)
		return -ENOMEM;
	uint64_t off = pindex << PAGE_SHIFT;
	struct kiovec iov = { (uint64_t)VM_PAGE_TO_DMAP(m),
	    MIN(PAGE_SIZE, vp->v_size - off) };
	struct uio uio = { &iov, 1, (int64_t)off, iov.iov_len, UIO_SYSSPACE,
	    UIO_READ, NULL };
	/* A short read (the file shrank meanwhile) leaves zeros, as a hole. */
	int error = vp->v_op->vop_read(vp, &uio);
	if (error < 0) {
		vm_page_free(m, 0);
		return -EIO;
	}
	/* The read may have slept: another fault may have read the page. */
	struct vm_page *other = vm_object_page_lookup(obj, pindex);
	if (other != NULL) {
		vm_page_free(m, 0);
		*mp = other;
		return 0;
	}
	vm_object_page_insert(obj, m, pindex);
	*mp = m;
	return 0;
}

static int
vnode_pager_putpage(struct vm_object *obj, struct vm_page *m)
{
	(void)obj;
	(void)m;
	return -ENOSYS;		/* no shared writable mappings yet */
}

/*
 * WARNING: the last vrele may sleep (ext2 frees an unlinked file's
 * blocks), inside munmap's or exit's walk of a map.  That is safe while
 * one thread at a time uses a map (threads share none yet: a vfork
 * parent sleeps); with threads, the release must be deferred.
 */
static void
vnode_pager_dealloc(struct vm_object *obj)
{
	vrele(obj->handle);
	obj->handle = NULL;
}

static const struct vm_pager_ops vnode_pager_ops = {
	.name = "vnode-copy",
	.getpage = vnode_pager_getpage,
	.putpage = vnode_pager_putpage,
	.dealloc = vnode_pager_dealloc,
};

struct vm_object *
vnode_pager_alloc(struct vnode *vp)
{
	struct vm_object *obj = vm_object_allocate_vnode(&vnode_pager_ops, vp);
	if (obj != NULL)
		vref(vp);
	return obj;
}

/*
 * The page cache's vnode side (see vnode_pager.h): each regular file's
 * one vm_object, its references, write-back of its dirty pages, and
 * truncation.  The file system supplies the pager that moves pages
 * between the object and its disk (ext2: ext2_pager.c).
 *
 * The generic pager is for a file system that keeps its data elsewhere
 * and made no object (tmpfs, until its data are the object's pages):
 * getpage copies the file's bytes in with vop_read, putpage writes them
 * back with vop_write.  Its pages are not the ones read(2) and write(2)
 * use, so while a file is mapped a write(2) does not show in pages
 * already read, and the pages are written back and dropped when the
 * last mapping goes, so a later mapping reads the file afresh.
 *
 * As Linux: the part of the last page past the end of the file reads as
 * zero, and a page wholly past it gives SIGBUS (getpage's -EIO).
 */
#include <stdlib.h>

#include "fs/vnode.h"
#include "kern/uio.h"
#include "kern/kmem.h"
#include "vm/pmap.h"
#include "vm/vm.h"
#include "vm/vm_object.h"
#include "vm/vm_page_ext.h"
#include "fs/vnode_pager.h"

/* The file's bytes [off, off + len) to or from page m, via its vnops. */
static int
generic_io(struct vnode *vp, struct vm_page *m, uint64_t off, size_t len,
    enum uio_rw rw)
{
	struct kiovec iov = { (uint64_t)VM_PAGE_TO_DMAP(m), len };
	struct uio uio = { &iov, 1, (int64_t)off, len, UIO_SYSSPACE, rw, NULL };
	return rw == UIO_READ ? vp->v_op->vop_read(vp, &uio) :
	    vp->v_op->vop_write(vp, &uio);
}

static int
generic_getpage(struct vm_object *obj, uint64_t pindex, struct vm_page **mp)
{
	struct vnode *vp = obj->handle;

	if (vp->v_size == 0 || pindex > (vp->v_size - 1) >> PAGE_SHIFT)
		return -EIO;		/* wholly past the end of the file */
	struct vm_page *m = vm_page_alloc(0, VM_ALLOC_ZERO);
	if (m == NULL)
		return -ENOMEM;
	uint64_t off = pindex << PAGE_SHIFT;
	/* A short read (the file shrank meanwhile) leaves zeros, as a hole. */
	if (generic_io(vp, m, off, MIN(PAGE_SIZE, vp->v_size - off),
	    UIO_READ) < 0) {
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
generic_putpages(struct vm_object *obj, const uint64_t *idx, int n)
{
	struct vnode *vp = obj->handle;
	int error = 0;

	for (int i = 0; i < n; i++) {
		struct vm_page *m = vm_object_page_lookup(obj, idx[i]);
		uint64_t off = idx[i] << PAGE_SHIFT;
		/* Gone or past the end (truncated meanwhile): nothing to keep. */
		if (m == NULL || off >= vp->v_size || !vnode_pager_cleaning(m))
			continue;
		m->hold_count++;
		if (generic_io(vp, m, off, MIN(PAGE_SIZE, vp->v_size - off),
		    UIO_WRITE) < 0) {
			vm_object_page_dirty(m);
			error = -EIO;
		}
		m->hold_count--;
	}
	return error;
}

bool
vnode_pager_cleaning(struct vm_page *m)
{
	if (!pmap_is_modified(m))
		return false;
	/* A write from now on faults, and dirties it again. */
	pmap_page_protect(m, VM_PROT_READ);
	pmap_clear_modify(m);
	return true;
}

void
vnode_pager_reference(struct vm_object *obj)
{
	vref(obj->handle);
}

void
vnode_pager_release(struct vm_object *obj)
{
	vrele(obj->handle);
}

/*
 * WARNING: the last vrele may sleep (ext2 frees an unlinked file's
 * blocks; the generic pager writes its pages back), inside munmap's or
 * exit's walk of a map.  That is safe while one thread at a time uses a
 * map (a vfork parent sleeps); with threads sharing a map, the release
 * must be deferred.
 */
static void
generic_release(struct vm_object *obj)
{
	struct vnode *vp = obj->handle;
	if (obj->ref_count == 1)	/* the last mapping went */
		(void)vnode_pager_clean(vp, 0, UINT64_MAX, VPC_ALL | VPC_INVAL);
	vrele(vp);
}

static const struct vm_pager_ops generic_pager_ops = {
	.name = "vnode-generic",
	.getpage = generic_getpage,
	.putpages = generic_putpages,
	.reference = vnode_pager_reference,
	.release = generic_release,
};

int
vnode_pager_setup(struct vnode *vp, const struct vm_pager_ops *ops)
{
	KASSERT(vp->v_object == NULL, "vnode_pager_setup: has an object");
	KASSERT(ops->reference != NULL && ops->release != NULL,
	    "vnode_pager_setup: a pager that does not hold its vnode");
	vp->v_object = vm_object_allocate_vnode(ops, vp);
	return vp->v_object != NULL ? 0 : -ENOMEM;
}

struct vm_object *
vnode_pager_alloc(struct vnode *vp)
{
	if (vp->v_object == NULL && vnode_pager_setup(vp, &generic_pager_ops) < 0)
		return NULL;
	vm_object_reference(vp->v_object);
	return vp->v_object;
}

void
vnode_pager_free(struct vnode *vp)
{
	struct vm_object *obj = vp->v_object;
	if (obj == NULL)
		return;
	KASSERT(obj->ref_count == 1, "vnode_pager_free: object still held");
	vp->v_object = NULL;
	vm_object_deallocate(obj);
}

bool
vnode_pager_dirty(struct vnode *vp)
{
	return vp->v_object != NULL &&
	    (vp->v_object->flags & OBJ_MIGHTBEDIRTY) != 0;
}

struct collect {
	uint64_t idx[VM_PAGER_PUTBATCH];
	int n;
};

static void
collect_dirty(struct vm_object *obj, struct vm_page *m, void *arg)
{
	struct collect *c = arg;
	(void)obj;
	if (pmap_is_modified(m))
		c->idx[c->n++] = m->pindex;
}

static int
cmp_index(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void
inval_one(struct vm_object *obj, struct vm_page *m, void *arg)
{
	(void)obj;
	(void)arg;
	if (m->hold_count != 0 || pmap_is_modified(m))
		return;		/* in use, its write failed, or written again */
	pmap_page_protect(m, VM_PROT_NONE);
	if (!(VM_PAGE_EXT(m)->flags & PGX_DIRTY))
		vm_object_page_free(m);
}

int
vnode_pager_clean(struct vnode *vp, uint64_t start, uint64_t end, int flags)
{
	struct vm_object *obj = vp->v_object;
	int error = 0;

	if (obj == NULL)
		return 0;
	if (flags & VPC_ALL) {
		/* Every page dirtied since the last whole clean set it. */
		if (!(obj->flags & OBJ_MIGHTBEDIRTY) && !(flags & VPC_INVAL))
			return 0;
		obj->flags &= ~OBJ_MIGHTBEDIRTY;
	}
	/* No page lies wholly past the end: truncation frees them. */
	end = MIN(end, howmany(vp->v_size, PAGE_SIZE));
	/*
	 * A window of the batch's size at a time, so that nothing is
	 * allocated (this is what frees memory), each window's dirty pages
	 * in index order to the pager at once: clustered write-back.
	 */
	for (uint64_t w = start; w < end && obj->resident_page_count > 0;
	    w += VM_PAGER_PUTBATCH) {
		struct collect c;
		c.n = 0;
		vm_object_foreach(obj, w, MIN(end, w + VM_PAGER_PUTBATCH),
		    collect_dirty, &c);
		if (c.n == 0)
			continue;
		qsort(c.idx, (size_t)c.n, sizeof(uint64_t), cmp_index);
		int e = obj->pager->putpages(obj, c.idx, c.n);
		if (e < 0 && error == 0)
			error = e;
	}
	if (flags & VPC_INVAL)
		vm_object_foreach(obj, start, UINT64_MAX, inval_one, NULL);
	return error;
}

static void
truncate_one(struct vm_object *obj, struct vm_page *m, void *arg)
{
	(void)obj;
	(void)arg;
	pmap_page_protect(m, VM_PROT_NONE);
	VM_PAGE_EXT(m)->flags &= ~PGX_DIRTY;
	vm_object_page_free(m);
}

void
vnode_pager_setsize(struct vnode *vp, uint64_t size)
{
	struct vm_object *obj = vp->v_object;
	if (obj == NULL)
		return;
	vm_object_foreach(obj, howmany(size, PAGE_SIZE), UINT64_MAX,
	    truncate_one, NULL);
	vm_object_shadows_truncate(obj, howmany(size, PAGE_SIZE));
	if (size % PAGE_SIZE != 0) {
		struct vm_page *m = vm_object_page_lookup(obj, size >> PAGE_SHIFT);
		if (m != NULL)
			memset((char *)VM_PAGE_TO_DMAP(m) + size % PAGE_SIZE, 0,
			    PAGE_SIZE - size % PAGE_SIZE);
	}
}

void
vnode_pager_punch(struct vnode *vp, uint64_t first, uint64_t last)
{
	if (vp->v_object != NULL)
		vm_object_foreach(vp->v_object, first, last, truncate_one, NULL);
}

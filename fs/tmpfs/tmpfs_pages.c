/*
 * tmpfs file data: a regular file's pages are the pages of its vm_object
 * (v_object), an object with no store behind it.  read and write copy to
 * and from those pages, and mmap maps the object itself, so a shared
 * mapping, read(2), write(2) and every other mapping see one copy of each
 * page.  A hole is an index with no page: it reads as zeros, and a fault
 * on it (below the end of the file) fills it with a zero page.
 *
 * Pages are counted against the mount's budget (size=) when they enter
 * the object and given back when they leave it.  When the node is freed
 * (no name, no reference) while mappings still hold its object, the
 * object is handed over to them as shared anonymous memory
 * (tmpfs_obj_detach): its pages stay, uncounted, until the last mapping
 * goes, as Linux keeps an unlinked file alive through its mappings.
 */
#include "fs/tmpfs/tmpfs.h"
#include "vm/vm_object.h"
#include "vm/vm_pager.h"

static struct tmpfs_mount *
obj_mount(struct vm_object *obj)
{
	return VFSTOTM(((struct vnode *)obj->handle)->v_mount);
}

/*
 * A new zeroed page of file vp at pindex (which has none), within the
 * mount's budget; NULL when the mount or RAM is full.
 */
static struct vm_page *
tmpfs_page_new(struct vnode *vp, uint64_t pindex)
{
	struct tmpfs_mount *tm = VFSTOTM(vp->v_mount);

	if (tm->tm_pages_used >= tm->tm_pages_max)
		return NULL;
	struct vm_page *m = vm_object_page_alloc(vp->v_object, pindex, true);
	if (m == NULL)
		return NULL;
	tm->tm_pages_used++;
	vp->v_blocks += PAGE_SIZE / 512;
	return m;
}

/*
 * The pager of a tmpfs file's object: a page below the end of the file
 * that is not resident is a hole, and becomes a zero page; a page wholly
 * past the end gives SIGBUS (-EIO), as does a full mount (Linux's shmem
 * fault answers ENOSPC with SIGBUS too).  Never sleeps.
 */
static int
tmpfs_pager_getpage(struct vm_object *obj, uint64_t pindex,
    struct vm_page **mp)
{
	struct vnode *vp = obj->handle;

	if (pindex >= howmany(vp->v_size, PAGE_SIZE))
		return -EIO;
	if ((*mp = tmpfs_page_new(vp, pindex)) == NULL)
		return -EIO;
	return 0;
}

static int
tmpfs_pager_putpage(struct vm_object *obj, struct vm_page *m)
{
	(void)obj;
	(void)m;
	return -ENOSYS;		/* the pages are the store: nothing to write */
}

/* The last reference: the node is gone (detach ran) or never mapped. */
static void
tmpfs_pager_dealloc(struct vm_object *obj)
{
	if (obj->handle != NULL)
		obj_mount(obj)->tm_pages_used -= obj->resident_page_count;
}

static const struct vm_pager_ops tmpfs_pager_ops = {
	.name = "tmpfs",
	.getpage = tmpfs_pager_getpage,
	.putpage = tmpfs_pager_putpage,
	.dealloc = tmpfs_pager_dealloc,
};

int
tmpfs_obj_alloc(struct vnode *vp)
{
	vp->v_object = vm_object_allocate_vnode(&tmpfs_pager_ops, vp);
	return vp->v_object != NULL ? 0 : -ENOMEM;
}

void
tmpfs_obj_detach(struct vnode *vp)
{
	struct vm_object *obj = vp->v_object;

	vp->v_object = NULL;
	if (obj == NULL)
		return;
	if (obj->ref_count > 1) {
		/*
		 * Mappings still hold it: their pages leave the mount's count,
		 * and the object becomes the shared anonymous memory they
		 * share (a hole now fills with zeros, no end of file).
		 */
		VFSTOTM(vp->v_mount)->tm_pages_used -= obj->resident_page_count;
		obj->type = OBJT_ANON;
		obj->pager = &anon_pager_ops;
		obj->handle = NULL;
	}
	vm_object_deallocate(obj);
}

int
tmpfs_getpage(struct vnode *vp, uint64_t pindex, bool alloc,
    struct vm_page **mp)
{
	if (pindex >= TMPFS_MAXFILESIZE / PAGE_SIZE)
		return -EFBIG;
	*mp = vm_object_page_lookup(vp->v_object, pindex);
	if (*mp == NULL && alloc && (*mp = tmpfs_page_new(vp, pindex)) == NULL)
		return -ENOSPC;
	return 0;
}

int
tmpfs_truncate(struct vnode *vp, uint64_t size)
{
	if (size > TMPFS_MAXFILESIZE)
		return -EFBIG;
	if (size < vp->v_size) {
		struct vm_object *obj = vp->v_object;
		uint64_t before = obj->resident_page_count;
		vm_object_page_remove_mapped(obj, howmany(size, PAGE_SIZE),
		    UINT64_MAX);
		uint64_t freed = before - obj->resident_page_count;
		VFSTOTM(vp->v_mount)->tm_pages_used -= freed;
		vp->v_blocks -= freed * (PAGE_SIZE / 512);
		/*
		 * Zero the tail of the last page, so that growing the file
		 * again shows zeros (mappings see it at once, as on Linux).
		 */
		struct vm_page *m;
		if ((size & PAGE_MASK) != 0 &&
		    (m = vm_object_page_lookup(obj, size / PAGE_SIZE)) != NULL)
			memset((char *)VM_PAGE_TO_DMAP(m) + (size & PAGE_MASK), 0,
			    PAGE_SIZE - (size & PAGE_MASK));
	}
	vp->v_size = size;
	return 0;
}

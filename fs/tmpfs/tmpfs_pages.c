/*
 * tmpfs file data: a regular file's pages are its vnode's page-cache
 * object (v_object, fs/vnode_pager.h), an object with no store behind
 * it.  read and write copy to and from those pages, and mmap maps the
 * object itself, so a shared mapping, read(2), write(2) and every other
 * mapping see one copy of each page.  A hole is an index with no page: it
 * reads as zeros, and a fault on it (below the end of the file) fills it
 * with a zero page.
 *
 * The pages are wired (wire_count 1) while they are the file's: with no
 * store to write them to, the pageout daemon must never take one, as
 * Linux keeps shmem pages without swap.  They are unwired just before
 * they leave the object (truncation, the node's end).  Each counts
 * against the mount's budget (size=).  A mapping holds the vnode (the
 * page cache's contract), so a file's object lives while it is mapped,
 * name or no name.
 */
#include "fs/tmpfs/tmpfs.h"
#include "fs/vnode_pager.h"
#include "kern/thread.h"
#include "vm/vm_object.h"
#include "vm/vm_pager.h"

/*
 * A new zeroed, wired page of file vp at pindex (which has none), within
 * the mount's budget; NULL when the mount or RAM is full.
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
	m->wire_count = 1;
	tm->tm_pages_used++;
	vp->v_blocks += PAGE_SIZE / 512;
	return m;
}

/* Unwires and uncounts a page about to leave its file (arg: the vnode). */
static void
tmpfs_page_release(struct vm_object *obj, struct vm_page *m, void *arg)
{
	struct vnode *vp = arg;
	(void)obj;
	m->wire_count = 0;
	VFSTOTM(vp->v_mount)->tm_pages_used--;
	vp->v_blocks -= PAGE_SIZE / 512;
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

/* Write-back (sync, msync): the pages are the store, nothing to write. */
static int
tmpfs_pager_putpages(struct vm_object *obj, const uint64_t *idx, int n)
{
	(void)obj;
	(void)idx;
	(void)n;
	return 0;
}

static const struct vm_pager_ops tmpfs_pager_ops = {
	.name = "tmpfs",
	.getpage = tmpfs_pager_getpage,
	.putpages = tmpfs_pager_putpages,
	.reference = vnode_pager_reference,
	.release = vnode_pager_release,
};

void
tmpfs_lock(struct vnode *vp)
{
	struct tmpfs_node *tn = VTOTN(vp);
	while (tn->tn_locked) {
		tn->tn_lwanted = true;
		tsleep(&tn->tn_locked, 0, "tmpfslk", 0);
	}
	tn->tn_locked = true;
}

void
tmpfs_unlock(struct vnode *vp)
{
	struct tmpfs_node *tn = VTOTN(vp);
	tn->tn_locked = false;
	if (tn->tn_lwanted) {
		tn->tn_lwanted = false;
		wakeup(&tn->tn_locked);
	}
}

int
tmpfs_obj_alloc(struct vnode *vp)
{
	return vnode_pager_setup(vp, &tmpfs_pager_ops);
}

void
tmpfs_obj_free(struct vnode *vp)
{
	if (vp->v_object != NULL)
		vm_object_foreach(vp->v_object, 0, UINT64_MAX, tmpfs_page_release,
		    vp);
	/* vnode_free frees the object (vnode_pager_free). */
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
		/* Out of every mapping and freed, the tail of the last zeroed. */
		vm_object_foreach(vp->v_object, howmany(size, PAGE_SIZE),
		    UINT64_MAX, tmpfs_page_release, vp);
		vnode_pager_setsize(vp, size);
	}
	vp->v_size = size;
	return 0;
}

void
tmpfs_punch_pages(struct vnode *vp, uint64_t first, uint64_t last)
{
	vm_object_foreach(vp->v_object, first, last, tmpfs_page_release, vp);
	vnode_pager_punch(vp, first, last);
}

/*
 * ext2 file data in the page cache: the pager of a regular file's
 * v_object.  A page holds PAGE_SIZE / block size consecutive logical
 * blocks (a block is never larger than a page here); each is found
 * through the block map and moved straight between the page and the
 * disk (bio_page.c), contiguous blocks in one transfer.  Holes, and
 * the part of the last page past the end of the file, read as zero.
 *
 * Blocks are allocated by write(2), before it copies (so ENOSPC reaches
 * the writer, as Linux's ext2 says it), and at write-back for a hole
 * that only a mapping wrote (a writer through a mapping has no call to
 * return the error to; Linux's ext2 also allocates then).
 *
 * Locking: the node lock, taken by the pager entry points unless the
 * thread holds it already (a page fault while its own read or write
 * copies, see ext2_ilock_cond).
 */
#include "dev/disk.h"
#include "fs/buf.h"
#include "fs/ext2/ext2.h"
#include "fs/vnode_pager.h"
#include "vm/vm_object.h"

/*
 * Moves page pindex of vp (its memory at data) from or to the disk: the
 * blocks that hold bytes before the end of the file; alloc fills holes
 * (writing).  Reading zeroes holes and everything past the end of the
 * file.  0, -EIO, or the block map's error.
 */
static int
page_io(struct vnode *vp, uint64_t pindex, char *data, bool read, bool alloc)
{
	struct ext2_mount *um = VTOUM(vp);
	struct disk *dk = um->um_disk;
	uint32_t bs = um->um_bsize, bpp = PAGE_SIZE / bs;
	uint64_t off = pindex << PAGE_SHIFT;
	size_t valid = off < vp->v_size ? MIN(PAGE_SIZE, vp->v_size - off) : 0;
	uint32_t nblk = (uint32_t)howmany(valid, bs);
	uint32_t run = 0, run_bn = 0, i;
	bool allocated = false;
	int error = 0;

	if (read)
		memset(data + valid, 0, PAGE_SIZE - valid);
	else
		/* As Linux: what a mapping wrote past the end is not kept. */
		memset(data + valid, 0, nblk * bs - valid);
	for (i = 0; i <= nblk; i++) {
		uint32_t bn = 0;
		bool isnew = false;
		if (i < nblk) {
			error = ext2_bmap(vp, pindex * bpp + i, alloc, &bn, &isnew);
			if (error < 0)
				break;
			if (isnew) {
				bforget(dk, (uint64_t)bn * um->um_secperblk);
				allocated = true;
			}
			if (bn == 0 && read)
				memset(data + i * bs, 0, bs);
			if (bn != 0 && run > 0 && bn == run_bn + run) {
				run++;
				continue;
			}
		}
		if (run > 0) {
			uint32_t first = i - run;
			error = bio_pageio(dk, (uint64_t)run_bn * um->um_secperblk,
			    data + first * bs, run * bs, read);
			if (error < 0)
				break;
		}
		run = bn != 0 ? 1 : 0;
		run_bn = bn;
	}
	if (allocated) {
		int e = ext2_iupdate(vp);
		if (error == 0)
			error = e;
	}
	return error;
}

int
ext2_getpage(struct vnode *vp, uint64_t pindex, bool fill, struct vm_page **mp)
{
	struct vm_object *obj = vp->v_object;
	struct vm_page *m = vm_object_page_lookup(obj, pindex);
	if (m != NULL) {
		*mp = m;
		return 0;
	}
	if (!fill)
		m = vm_object_page_alloc(obj, pindex, true);
	else if ((m = vm_page_alloc(0, 0)) != NULL) {
		m->hold_count++;	/* not in the object yet: nobody frees it */
		int error = page_io(vp, pindex, VM_PAGE_TO_DMAP(m), true, false);
		m->hold_count--;
		if (error < 0) {
			vm_page_free(m, 0);
			return error;
		}
		vm_object_page_insert(obj, m, pindex);
	}
	if (m == NULL)
		return -ENOMEM;
	*mp = m;
	return 0;
}

static int
ext2_pager_getpage(struct vm_object *obj, uint64_t pindex, struct vm_page **mp)
{
	struct vnode *vp = obj->handle;
	bool taken = ext2_ilock_cond(vp);
	int error;
	if (vp->v_size == 0 || pindex > (vp->v_size - 1) >> PAGE_SHIFT)
		error = -EIO;		/* wholly past the end: SIGBUS */
	else
		error = ext2_getpage(vp, pindex, true, mp);
	ext2_iunlock_cond(vp, taken);
	return error;
}

static int
ext2_pager_putpage(struct vm_object *obj, struct vm_page *m)
{
	struct vnode *vp = obj->handle;
	uint64_t pindex = m->pindex;
	int error = 0;

	if (VTOUM(vp)->um_ronly)
		return -EROFS;
	bool taken = ext2_ilock_cond(vp);
	/* Locking may have slept: the page may have gone (truncated). */
	if (m->object == obj && m->pindex == pindex &&
	    (pindex << PAGE_SHIFT) < vp->v_size && vnode_pager_cleaning(m)) {
		m->hold_count++;
		error = page_io(vp, pindex, VM_PAGE_TO_DMAP(m), false, true);
		m->hold_count--;
	}
	ext2_iunlock_cond(vp, taken);
	return error;
}

const struct vm_pager_ops ext2_pager_ops = {
	.name = "ext2",
	.getpage = ext2_pager_getpage,
	.putpage = ext2_pager_putpage,
	.reference = vnode_pager_reference,
	.release = vnode_pager_release,
};

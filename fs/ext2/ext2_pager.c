/*
 * ext2 file data in the page cache: the pager of a regular file's
 * v_object.  A page holds PAGE_SIZE / block size consecutive logical
 * blocks (a block is never larger than a page here); each is found
 * through the block map and moved straight between the page and the
 * disk (bio_page.c), contiguous blocks in one transfer.  Holes, and
 * the part of the last page past the end of the file, read as zero.
 *
 * Clustering: the transfers of many pages are started before any is
 * waited for, and the disk merges neighbours into one host call.  A
 * sequential reader reads EXT2_READAHEAD pages at a time, a fault
 * EXT2_FAULTAHEAD (the pages after it are likely next), and write-back
 * gets its dirty pages in batches (vnode_pager_clean).  Faults that go
 * through a file in order (a mapped read) start the next window's read
 * in the background as read(2) does, so the disk works while the
 * process reads the pages it has.
 *
 * Blocks are allocated by write(2), before it copies (so ENOSPC reaches
 * the writer, as Linux's ext2 says it), and at write-back for a hole
 * that only a mapping wrote (a writer through a mapping has no call to
 * return the error to; Linux's ext2 also allocates then).
 *
 * Locking: the node lock, taken by the pager entry points unless the
 * thread holds it already (a page fault while its own read or write
 * copies, see ext2_ilock_cond).  Pages being read or written are held,
 * so the pageout daemon leaves them alone.
 */
#include "dev/disk.h"
#include "fs/buf.h"
#include "fs/ext2/ext2.h"
#include "fs/vnode_pager.h"
#include "kern/kmem.h"
#include "vm/vm_object.h"

#define PAGEIO_MAX	64	/* transfers started before waiting */
#define EXT2_FAULTAHEAD	16	/* pages a fault reads: it and the next */

/* Transfers in flight, and the first error of those that ended. */
struct pageio {
	struct disk *dk;
	struct buf *bp[PAGEIO_MAX];
	int n;
	int error;
};

static void
pageio_wait(struct pageio *pio)
{
	for (int i = 0; i < pio->n; i++) {
		int e = bio_pagewait(pio->bp[i]);
		if (e < 0 && pio->error == 0)
			pio->error = e;
	}
	pio->n = 0;
}

static void
pageio_start(struct pageio *pio, uint64_t blkno, void *data, size_t size,
    bool read)
{
	if (pio->n == PAGEIO_MAX)
		pageio_wait(pio);
	struct buf *bp = bio_pagestart(pio->dk, blkno, data, size, read);
	if (bp != NULL)
		pio->bp[pio->n++] = bp;
	else if (pio->error == 0)
		pio->error = -ENOMEM;
}

/*
 * Starts moving page pindex of vp (its memory at data) from or to the
 * disk: the blocks that hold bytes before the end of the file; alloc
 * fills holes (writing), and sets *allocated if it did.  Reading zeroes
 * holes and everything past the end of the file.  0 or the block map's
 * error; the transfers' own are pio's.
 */
static int
page_io(struct vnode *vp, uint64_t pindex, char *data, bool read, bool alloc,
    struct pageio *pio, bool *allocated)
{
	struct ext2_mount *um = VTOUM(vp);
	uint32_t bs = um->um_bsize, bpp = PAGE_SIZE / bs;
	uint64_t off = pindex << PAGE_SHIFT;
	size_t valid = off < vp->v_size ? MIN(PAGE_SIZE, vp->v_size - off) : 0;
	uint32_t nblk = (uint32_t)howmany(valid, bs);
	uint32_t run = 0, run_bn = 0;

	if (read)
		memset(data + valid, 0, PAGE_SIZE - valid);
	else
		/* As Linux: what a mapping wrote past the end is not kept. */
		memset(data + valid, 0, nblk * bs - valid);
	for (uint32_t i = 0; i <= nblk; i++) {
		uint32_t bn = 0;
		bool isnew = false;
		if (i < nblk) {
			int error = ext2_bmap(vp, pindex * bpp + i, alloc, &bn,
			    &isnew);
			if (error < 0)
				return error;
			if (isnew) {
				bforget(um->um_disk, (uint64_t)bn * um->um_secperblk);
				*allocated = true;
			}
			if (bn == 0 && read)
				memset(data + i * bs, 0, bs);
			if (bn != 0 && run > 0 && bn == run_bn + run) {
				run++;
				continue;
			}
		}
		if (run > 0)
			pageio_start(pio, (uint64_t)run_bn * um->um_secperblk,
			    data + (i - run) * bs, run * bs, read);
		run = bn != 0 ? 1 : 0;
		run_bn = bn;
	}
	return 0;
}

/*
 * Reads the pages of vp from pindex on that are not resident, up to
 * count of them and the end of the file, and inserts them: 0, or the
 * error of the first (the others are only read ahead).
 */
static int
read_pages(struct vnode *vp, uint64_t pindex, uint32_t count)
{
	struct vm_object *obj = vp->v_object;
	struct vm_page *pages[EXT2_READAHEAD];
	struct pageio pio = { .dk = VTOUM(vp)->um_disk };
	uint64_t last = vp->v_size == 0 ? 0 : (vp->v_size - 1) >> PAGE_SHIFT;
	uint32_t n = 0;
	bool allocated = false;
	int error = 0;

	count = MIN(count, EXT2_READAHEAD);
	for (; n < count && pindex + n <= last; n++) {
		if (vm_object_page_lookup(obj, pindex + n) != NULL)
			break;
		struct vm_page *m = vm_page_alloc(0, 0);
		if (m == NULL)
			break;
		m->hold_count++;	/* in no object yet: nobody frees it */
		pages[n] = m;
		error = page_io(vp, pindex + n, VM_PAGE_TO_DMAP(m), true, false,
		    &pio, &allocated);
		if (error < 0) {
			n++;
			break;
		}
	}
	pageio_wait(&pio);
	if (error == 0)
		error = pio.error;
	if (n == 0 && error == 0)
		error = -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		struct vm_page *m = pages[i];
		/* The reads slept: a fault of our own may have read it. */
		if (error < 0 || vm_object_page_lookup(obj, pindex + i) != NULL) {
			m->hold_count--;
			vm_page_free(m, 0);
			pages[i] = NULL;
		} else {
			vm_object_page_insert(obj, m, pindex + i);
		}
	}
	/* Held until all are in: an insertion may reclaim the others. */
	for (uint32_t i = 0; i < n; i++)
		if (pages[i] != NULL)
			pages[i]->hold_count--;
	/* A page read ahead may be the bad one: try the first alone. */
	if (error < 0 && count > 1)
		return read_pages(vp, pindex, 1);
	return error;
}

struct ext2_ra {
	uint64_t index;		/* pages [index, index + n) */
	uint32_t n;
	int error;		/* a block map error: nothing to insert */
	struct vm_page *pages[EXT2_READAHEAD];	/* held, in no object */
	struct pageio pio;
};

void
ext2_readahead(struct vnode *vp, uint64_t pindex)
{
	struct ext2_node *np = VTON(vp);
	struct vm_object *obj = vp->v_object;
	uint64_t last = vp->v_size == 0 ? 0 : (vp->v_size - 1) >> PAGE_SHIFT;
	uint64_t next = pindex + 1;
	bool allocated = false;

	if (np->n_ra != NULL && np->n_ra->n > 0)
		return;
	while (next <= MIN(last, pindex + EXT2_READAHEAD) &&
	    vm_object_page_lookup(obj, next) != NULL)
		next++;
	if (next > MIN(last, pindex + EXT2_READAHEAD))
		return;		/* all there, or the end */
	if (np->n_ra == NULL &&
	    (np->n_ra = kmalloc(sizeof(*np->n_ra), KM_ZERO)) == NULL)
		return;
	struct ext2_ra *ra = np->n_ra;
	ra->index = next;
	ra->error = 0;
	ra->pio = (struct pageio){ .dk = VTOUM(vp)->um_disk };
	for (ra->n = 0; ra->n < EXT2_READAHEAD && next + ra->n <= last; ) {
		if (vm_object_page_lookup(obj, next + ra->n) != NULL)
			break;
		struct vm_page *m = vm_page_alloc(0, 0);
		if (m == NULL)
			break;
		m->hold_count++;
		ra->pages[ra->n++] = m;
		if ((ra->error = page_io(vp, ra->index + ra->n - 1,
		    VM_PAGE_TO_DMAP(m), true, false, &ra->pio, &allocated)) < 0)
			break;
	}
}

void
ext2_readahead_end(struct vnode *vp, bool discard)
{
	struct ext2_ra *ra = VTON(vp)->n_ra;
	struct vm_object *obj = vp->v_object;

	if (ra == NULL || ra->n == 0)
		return;
	bool taken = ext2_ilock_cond(vp);	/* one waiter per transfer */
	if (ra->n == 0) {
		ext2_iunlock_cond(vp, taken);
		return;
	}
	pageio_wait(&ra->pio);
	if (ra->error == 0)
		ra->error = ra->pio.error;
	uint32_t n = ra->n;
	ra->n = 0;		/* from here no other caller waits for it */
	for (uint32_t i = 0; i < n; i++) {
		struct vm_page *m = ra->pages[i];
		if (discard || ra->error < 0 ||
		    vm_object_page_lookup(obj, ra->index + i) != NULL) {
			m->hold_count--;
			vm_page_free(m, 0);
			ra->pages[i] = NULL;
		} else {
			vm_object_page_insert(obj, m, ra->index + i);
		}
	}
	for (uint32_t i = 0; i < n; i++)
		if (ra->pages[i] != NULL)
			ra->pages[i]->hold_count--;
	ext2_iunlock_cond(vp, taken);
}

int
ext2_getpage(struct vnode *vp, uint64_t pindex, bool fill, struct vm_page **mp)
{
	return ext2_getpages(vp, pindex, fill ? 1 : 0, mp);
}

int
ext2_getpages(struct vnode *vp, uint64_t pindex, uint32_t count,
    struct vm_page **mp)
{
	struct vm_object *obj = vp->v_object;
	struct vm_page *m = vm_object_page_lookup(obj, pindex);
	struct ext2_ra *ra = VTON(vp)->n_ra;
	int error;

	if (m == NULL && ra != NULL && ra->n > 0 && pindex >= ra->index &&
	    pindex < ra->index + ra->n) {
		ext2_readahead_end(vp, false);	/* it is being read */
		m = vm_object_page_lookup(obj, pindex);
	}
	if (m == NULL && count == 0)
		m = vm_object_page_alloc(obj, pindex, true);
	else if (m == NULL) {
		if ((error = read_pages(vp, pindex, count)) < 0)
			return error;
		m = vm_object_page_lookup(obj, pindex);
	}
	if (m == NULL)
		return -ENOMEM;
	*mp = m;
	return 0;
}

/*
 * A fault that needs page pindex.  The pages it reads with it are mapped
 * by the faults after it without coming here (vm_fault_prefault and the
 * host's fault-around), so a mapped read comes here once per window:
 * the page of a fault is sequential when it lies within two windows past
 * the last one read (or is the first of the file), and then the next
 * window is read ahead, which the next fault here waits for, if at all.
 */
static int
ext2_pager_getpage(struct vm_object *obj, uint64_t pindex, struct vm_page **mp)
{
	struct vnode *vp = obj->handle;
	struct ext2_node *np = VTON(vp);
	bool taken = ext2_ilock_cond(vp);
	int error;
	if (vp->v_size == 0 || pindex > (vp->v_size - 1) >> PAGE_SHIFT) {
		error = -EIO;		/* wholly past the end: SIGBUS */
	} else {
		bool sequential = pindex == 0 || (pindex >= np->n_lastfault &&
		    pindex < np->n_lastfault + 2 * EXT2_READAHEAD);
		np->n_lastfault = pindex + 1;
		error = ext2_getpages(vp, pindex, EXT2_FAULTAHEAD, mp);
		if (error == 0 && sequential) {
			(*mp)->hold_count++;	/* its allocations may reclaim */
			ext2_readahead(vp, pindex);
			(*mp)->hold_count--;
		}
	}
	ext2_iunlock_cond(vp, taken);
	return error;
}

static int
ext2_pager_putpages(struct vm_object *obj, const uint64_t *idx, int n)
{
	struct vnode *vp = obj->handle;
	struct vm_page *held[VM_PAGER_PUTBATCH];
	struct pageio pio = { .dk = VTOUM(vp)->um_disk };
	bool allocated = false;
	int nheld = 0, error = 0;

	if (VTOUM(vp)->um_ronly)
		return -EROFS;
	KASSERT(n <= VM_PAGER_PUTBATCH, "ext2_pager_putpages: too many");
	bool taken = ext2_ilock_cond(vp);
	for (int i = 0; i < n; i++) {
		/* Locking may have slept: pages may have gone (truncated). */
		struct vm_page *m = vm_object_page_lookup(obj, idx[i]);
		if (m == NULL || (idx[i] << PAGE_SHIFT) >= vp->v_size ||
		    !vnode_pager_cleaning(m))
			continue;
		m->hold_count++;
		held[nheld++] = m;
		int e = page_io(vp, idx[i], VM_PAGE_TO_DMAP(m), false, true, &pio,
		    &allocated);
		if (e < 0) {
			vm_object_page_dirty(m);	/* still to write */
			if (error == 0)
				error = e;
		}
	}
	pageio_wait(&pio);
	for (int i = 0; i < nheld; i++) {
		if (pio.error < 0)
			vm_object_page_dirty(held[i]);
		held[i]->hold_count--;
	}
	if (error == 0)
		error = pio.error;
	/* New blocks hang from the inode: it goes with them. */
	if (allocated) {
		int e = ext2_iupdate(vp);
		if (error == 0)
			error = e;
	}
	ext2_iunlock_cond(vp, taken);
	return error;
}

const struct vm_pager_ops ext2_pager_ops = {
	.name = "ext2",
	.getpage = ext2_pager_getpage,
	.putpages = ext2_pager_putpages,
	.reference = vnode_pager_reference,
	.release = vnode_pager_release,
};

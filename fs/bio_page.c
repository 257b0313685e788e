/*
 * Transfers of the page cache (see buf.h): a file's data go between its
 * pages and the disk directly, in a struct buf that is in no hash chain
 * and no queue, so a block is never both a buffer and a page.  The disk
 * driver sees an ordinary transfer, and biodone wakes the thread that
 * waits for it.
 */
#include "dev/disk.h"
#include "fs/buf.h"
#include "kern/kmem.h"

struct buf *
bio_pagestart(struct disk *dk, uint64_t blkno, void *data, size_t size,
    bool read)
{
	KASSERT(size % DEV_BSIZE == 0 && size > 0, "bio_pagestart: odd size");
	struct buf *bp = kmalloc(sizeof(*bp), KM_ZERO);
	if (bp == NULL)
		return NULL;
	bp->b_disk = dk;
	bp->b_blkno = blkno;
	bp->b_bcount = size;
	bp->b_data = data;
	bp->b_flags = B_BUSY | (read ? B_READ : 0);
	if (!read)
		dk->d_writes++;
	dk->d_strategy(dk, bp);
	return bp;
}

int
bio_pagewait(struct buf *bp)
{
	int error = biowait(bp);
	kfree(bp);
	return error < 0 ? -EIO : 0;
}

int
bio_pageio(struct disk *dk, uint64_t blkno, void *data, size_t size,
    bool read)
{
	struct buf *bp = bio_pagestart(dk, blkno, data, size, read);
	return bp != NULL ? bio_pagewait(bp) : -ENOMEM;
}

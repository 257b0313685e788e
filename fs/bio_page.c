/*
 * Transfers of the page cache (see buf.h): a file's data go between its
 * pages and the disk directly, in a struct buf that is in no hash chain
 * and no queue, so a block is never both a buffer and a page.  The disk
 * driver sees an ordinary transfer; biodone hands the end to b_iodone,
 * or wakes the thread waiting in biowait.
 */
#include "dev/disk.h"
#include "fs/buf.h"
#include "vm/kmem.h"

static struct buf *
page_buf(struct disk *dk, uint64_t blkno, void *data, size_t size, bool read)
{
	KASSERT(size % DEV_BSIZE == 0 && size > 0, "bio_page: odd size");
	struct buf *bp = kmalloc(sizeof(*bp), KM_ZERO);
	if (bp == NULL)
		return NULL;
	bp->b_disk = dk;
	bp->b_blkno = blkno;
	bp->b_bcount = size;
	bp->b_data = data;
	bp->b_flags = B_BUSY | B_PAGEIO | (read ? B_READ : 0);
	if (!read)
		dk->d_writes++;
	return bp;
}

int
bio_pageio(struct disk *dk, uint64_t blkno, void *data, size_t size,
    bool read)
{
	struct buf *bp = page_buf(dk, blkno, data, size, read);
	if (bp == NULL)
		return -ENOMEM;
	dk->d_strategy(dk, bp);
	int error = biowait(bp);
	kfree(bp);
	return error < 0 ? -EIO : 0;
}

struct buf *
bio_pagestart(struct disk *dk, uint64_t blkno, void *data, size_t size,
    bool read, void (*done)(struct buf *), void *arg)
{
	struct buf *bp = page_buf(dk, blkno, data, size, read);
	if (bp == NULL)
		return NULL;
	bp->b_flags |= B_ASYNC;		/* a failed write is bsync's to report */
	bp->b_iodone = done;
	bp->b_private = arg;
	dk->d_strategy(dk, bp);
	return bp;
}

void
bio_pagefree(struct buf *bp)
{
	kfree(bp);
}

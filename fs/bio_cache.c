/*
 * The buffer cache (see buf.h): buffers, their hash and queues, and the
 * transfers.
 *
 * Headers come from a kmem cache and data from kmalloc, so all of it is
 * RAM.  The cache holds at most biostats.maxbytes of data; past that,
 * getblk recycles the oldest clean buffer or, if none, has the oldest
 * delayed writes written and waits for one to come clean.  When the page
 * allocator runs dry it calls bio_reclaim, which frees clean buffers
 * without sleeping.
 *
 * A write-behind that fails (bawrite, the syncer, bsync) leaves the
 * buffer clean and valid, as Linux does, and its error on the disk
 * (d_wberror) for the next bsync to report: a write nobody waits for
 * must still fail someone's fsync.
 *
 * Shapes: the buffers of a disk never overlap, so that one sector has
 * one copy in RAM, whoever reads it (a file system, the block device).
 * A buffer of the disk's block size aligned on it is *regular*; two
 * regular buffers overlap only if they are the same block.  Any other
 * (the 1 KiB superblock ext2 reads before it knows its block size, the
 * short last block of the block device, a file system whose size the
 * disk was not told) is *odd*: before one is made, getblk writes out and
 * drops every buffer it overlaps, and so for a regular one while the
 * disk has odd buffers (d_nodd).  An odd buffer is not kept once it is
 * clean, so that the search, a few hundred hash look-ups, stays rare.
 */
#include "dev/disk.h"
#include "fs/bio_var.h"
#include "kern/thread.h"
#include "kern/kmem.h"

#define BIO_RAM_SHARE	4		/* the cache may fill a quarter of RAM */
#define BIO_MAXBSIZE	(64 * 1024)	/* largest buffer */

struct bufq bufclean = TAILQ_HEAD_INITIALIZER(bufclean);
struct bufq bufdirty = TAILQ_HEAD_INITIALIZER(bufdirty);
struct biostats biostats;

static struct kmem_cache *buf_zone;
static struct bufq *bufhash;
static int bufhash_shift;		/* 64 - log2(chains) */
static int bio_cleanwaiters;		/* sleeping on &bufclean for a buffer */

static struct bufq *
bio_chain(const struct disk *dk, uint64_t blkno)
{
	/* Fibonacci hashing: block numbers are multiples of the block size. */
	uint64_t h = (blkno ^ ((uintptr_t)dk >> 6)) * 0x9e3779b97f4a7c15ULL;
	return &bufhash[h >> bufhash_shift];
}

static struct buf *
bio_lookup(const struct disk *dk, uint64_t blkno)
{
	struct buf *bp;
	TAILQ_FOREACH(bp, bio_chain(dk, blkno), b_hash)
		if (bp->b_disk == dk && bp->b_blkno == blkno)
			return bp;
	return NULL;
}

/* Is the block of size bytes at blkno of another shape than dk's blocks? */
static bool
bio_odd(const struct disk *dk, uint64_t blkno, size_t size)
{
	return size != dk->d_bsize || blkno % (dk->d_bsize / DEV_BSIZE) != 0;
}

/*
 * A buffer of dk other than the block itself (blkno, size) that
 * overlaps it, or NULL.  Only odd blocks, or any while the disk has odd
 * buffers, can meet one.
 */
static struct buf *
bio_overlap(const struct disk *dk, uint64_t blkno, size_t size)
{
	uint64_t nsec = size / DEV_BSIZE, reach = BIO_MAXBSIZE / DEV_BSIZE - 1;
	struct buf *bp;

	if (!bio_odd(dk, blkno, size) && dk->d_nodd == 0)
		return NULL;
	for (uint64_t s = blkno > reach ? blkno - reach : 0; s < blkno + nsec; s++)
		if ((bp = bio_lookup(dk, s)) != NULL &&
		    s + bp->b_bcount / DEV_BSIZE > blkno &&
		    (s != blkno || bp->b_bcount != size))
			return bp;
	return NULL;
}

void
bio_sleep(const void *chan, const char *wmesg, struct disk *dk)
{
	if (curthread != NULL)
		tsleep(chan, 0, wmesg, 0);
	else
		dk->d_poll(dk);
}

void
bio_acquire(struct buf *bp)
{
	KASSERT(!(bp->b_flags & B_BUSY), "bio_acquire: busy buffer");
	TAILQ_REMOVE((bp->b_flags & B_DELWRI) ? &bufdirty : &bufclean, bp,
	    b_freelist);
	bp->b_flags |= B_BUSY;
}

static void
bio_undirty(struct buf *bp)
{
	if (bp->b_flags & B_DELWRI) {
		bp->b_flags &= ~B_DELWRI;
		biostats.ndirty--;
		biostats.dirtybytes -= bp->b_bcount;
	}
}

/* Frees a buffer that is on no queue. */
static void
bio_destroy(struct buf *bp)
{
	TAILQ_REMOVE(bio_chain(bp->b_disk, bp->b_blkno), bp, b_hash);
	if (bio_odd(bp->b_disk, bp->b_blkno, bp->b_bcount))
		bp->b_disk->d_nodd--;
	bio_undirty(bp);
	if (bp->b_flags & B_WANTED)
		wakeup(bp);	/* they look it up again and find none */
	biostats.bytes -= bp->b_bcount;
	biostats.nbufs--;
	kfree(bp->b_data);
	kmem_cache_free(buf_zone, bp);
}

/*
 * Starts writing the oldest delayed writes, about bytes' worth, and
 * sleeps until some buffer is clean.  False if there was nothing to
 * write and nothing being written: waiting would be forever.
 */
static bool
bio_clean_some(size_t bytes)
{
	struct disk *dk = NULL, *d;
	struct buf *bp;

	for (size_t started = 0; started < bytes &&
	    (bp = TAILQ_FIRST(&bufdirty)) != NULL; started += bp->b_bcount) {
		bio_acquire(bp);
		dk = bp->b_disk;
		bawrite(bp);
	}
	TAILQ_FOREACH(d, &disklist, d_list)
		if (dk == NULL && d->d_writes > 0)
			dk = d;
	if (dk == NULL)
		return false;
	/* Writes that failed at once are clean already. */
	if (TAILQ_EMPTY(&bufclean)) {
		bio_cleanwaiters++;
		bio_sleep(&bufclean, "bioclean", dk);
		bio_cleanwaiters--;
	}
	return true;
}

/*
 * A new busy buffer for the block, on its hash chain.  NULL if it slept
 * to make room (the caller must look the block up again: someone may
 * have made it meanwhile), or, with *nomem, if RAM is exhausted.
 */
static struct buf *
bio_create(struct disk *dk, uint64_t blkno, size_t size, bool *nomem)
{
	*nomem = false;
	while (biostats.bytes + size > biostats.maxbytes) {
		struct buf *old = TAILQ_FIRST(&bufclean);
		if (old != NULL) {
			bio_acquire(old);
			bio_destroy(old);
			continue;
		}
		if (bio_clean_some(size))
			return NULL;
		break;		/* every buffer is busy: go over the cap */
	}
	/* Failing, the allocators have had bio_reclaim free clean buffers. */
	struct buf *bp = kmem_cache_alloc(buf_zone, KM_ZERO);
	void *data = bp != NULL ? kmalloc(size, 0) : NULL;
	if (data == NULL) {
		kmem_cache_free(buf_zone, bp);
		if (!bio_clean_some(size))
			*nomem = true;
		return NULL;
	}
	bp->b_disk = dk;
	bp->b_blkno = blkno;
	bp->b_bcount = size;
	bp->b_data = data;
	bp->b_flags = B_BUSY;
	TAILQ_INSERT_HEAD(bio_chain(dk, blkno), bp, b_hash);
	if (bio_odd(dk, blkno, size))
		dk->d_nodd++;
	biostats.bytes += size;
	biostats.nbufs++;
	return bp;
}

/*
 * Writes out and drops the buffers that overlap the block (blkno, size)
 * without being it.  True if it slept (the caller looks the block up
 * again), false once none is left.
 */
static bool
bio_unoverlap(struct disk *dk, uint64_t blkno, size_t size)
{
	struct buf *bp;

	while ((bp = bio_overlap(dk, blkno, size)) != NULL) {
		if (bp->b_flags & B_BUSY) {
			bp->b_flags |= B_WANTED;
			bio_sleep(bp, "bioshape", dk);
			return true;
		}
		bio_acquire(bp);
		if (!(bp->b_flags & B_DELWRI)) {
			bio_destroy(bp);
			continue;
		}
		/* Its bytes reach the disk before another shape reads them;
		 * a failure is the next fsync's, as a write-behind's. */
		int error = bwrite(bp);
		if (error != 0 && dk->d_wberror == 0)
			dk->d_wberror = error;
		return true;
	}
	return false;
}

struct buf *
getblk(struct disk *dk, uint64_t blkno, size_t size)
{
	KASSERT(size > 0 && size % DEV_BSIZE == 0 && size <= BIO_MAXBSIZE,
	    "getblk: bad size");
	for (;;) {
		bool nomem;
		struct buf *bp = bio_lookup(dk, blkno);
		if (bp == NULL || bp->b_bcount != size) {
			/* Not cached in this shape: none other may stay. */
			if (bio_unoverlap(dk, blkno, size))
				continue;
			bp = bio_create(dk, blkno, size, &nomem);
			if (bp != NULL)
				return bp;
			if (nomem) {
				kprintf("%s: no memory for a buffer of %zu bytes\n",
				    dk->d_name, size);
				return NULL;
			}
			continue;
		}
		if (bp->b_flags & B_BUSY) {
			bp->b_flags |= B_WANTED;
			bio_sleep(bp, "getblk", dk);
			continue;
		}
		bio_acquire(bp);
		bp->b_flags &= ~(B_DONE | B_ERROR | B_READ);
		bp->b_error = 0;
		return bp;
	}
}

int
bread(struct disk *dk, uint64_t blkno, size_t size, struct buf **bpp)
{
	*bpp = NULL;
	struct buf *bp = getblk(dk, blkno, size);
	if (bp == NULL)
		return -ENOMEM;
	if (!(bp->b_flags & B_CACHE)) {
		bp->b_flags |= B_READ;
		dk->d_strategy(dk, bp);
		int error = biowait(bp);
		bp->b_flags &= ~B_READ;
		if (error != 0) {
			bp->b_flags |= B_INVAL;
			brelse(bp);
			return error;
		}
	}
	*bpp = bp;
	return 0;
}

void
breada(struct disk *dk, uint64_t blkno, size_t size)
{
	bool nomem;
	/* An odd block is not kept: reading it ahead is for nothing. */
	if (bio_lookup(dk, blkno) != NULL || bio_odd(dk, blkno, size) ||
	    bio_overlap(dk, blkno, size) != NULL)
		return;
	if (biostats.bytes + size > biostats.maxbytes &&
	    TAILQ_EMPTY(&bufclean))
		return;		/* making room would sleep */
	struct buf *bp = bio_create(dk, blkno, size, &nomem);
	if (bp == NULL)
		return;
	bp->b_flags |= B_READ | B_ASYNC;
	dk->d_strategy(dk, bp);
}

void
brelse(struct buf *bp)
{
	KASSERT(bp->b_flags & B_BUSY, "brelse: buffer not busy");
	if ((bp->b_flags & B_INVAL) || !(bp->b_flags & B_CACHE) ||
	    (!(bp->b_flags & B_DELWRI) &&
	    bio_odd(bp->b_disk, bp->b_blkno, bp->b_bcount))) {
		bio_destroy(bp);
		return;
	}
	bp->b_flags &= ~(B_BUSY | B_ASYNC);
	if (bp->b_flags & B_DELWRI)
		TAILQ_INSERT_TAIL(&bufdirty, bp, b_freelist);
	else {
		TAILQ_INSERT_TAIL(&bufclean, bp, b_freelist);
		if (bio_cleanwaiters > 0)
			wakeup(&bufclean);
	}
	if (bp->b_flags & B_WANTED) {
		bp->b_flags &= ~B_WANTED;
		wakeup(bp);
	}
}

/* Hands a busy buffer to its driver to write; B_ASYNC: brelse at the end. */
static void
bio_startwrite(struct buf *bp, int async)
{
	struct disk *dk = bp->b_disk;

	KASSERT(bp->b_flags & B_BUSY, "write of a buffer not busy");
	bio_undirty(bp);
	/* What the file system put in it is the block now. */
	bp->b_flags = (bp->b_flags & ~(B_READ | B_DONE | B_ERROR | B_ASYNC)) |
	    B_CACHE | async;
	bp->b_error = 0;
	dk->d_writes++;
	dk->d_strategy(dk, bp);
}

int
bwrite(struct buf *bp)
{
	bio_startwrite(bp, 0);
	int error = biowait(bp);
	brelse(bp);
	return error;
}

void
bawrite(struct buf *bp)
{
	bio_startwrite(bp, B_ASYNC);
}

void
bdwrite(struct buf *bp)
{
	KASSERT(bp->b_flags & B_BUSY, "bdwrite: buffer not busy");
	if (!(bp->b_flags & B_DELWRI)) {
		bp->b_flags |= B_DELWRI;
		bp->b_dirtied = nanouptime();
		biostats.ndirty++;
		biostats.dirtybytes += bp->b_bcount;
	}
	bp->b_flags |= B_CACHE;
	brelse(bp);
}

void
biodone(struct buf *bp)
{
	struct disk *dk = bp->b_disk;

	KASSERT((bp->b_flags & (B_BUSY | B_DONE)) == B_BUSY,
	    "biodone: no transfer");
	if (bp->b_error != 0)
		bp->b_flags |= B_ERROR;
	else if (bp->b_flags & B_READ)
		biostats.inbytes += bp->b_bcount;
	else
		biostats.outbytes += bp->b_bcount;
	if (bp->b_flags & B_READ) {
		if (bp->b_error == 0)
			bp->b_flags |= B_CACHE;
	} else {
		if (bp->b_error != 0 && (bp->b_flags & B_ASYNC) &&
		    dk->d_wberror == 0)
			dk->d_wberror = bp->b_error;
		if (--dk->d_writes == 0)
			wakeup(&dk->d_writes);
	}
	bp->b_flags |= B_DONE;
	if (bp->b_flags & B_ASYNC)
		brelse(bp);
	else
		wakeup(bp);
}

int
biowait(struct buf *bp)
{
	while (!(bp->b_flags & B_DONE))
		bio_sleep(bp, "biowait", bp->b_disk);
	if (!(bp->b_flags & B_ERROR))
		return 0;
	return bp->b_error != 0 ? bp->b_error : -EIO;
}

void
bforget(struct disk *dk, uint64_t blkno)
{
	struct buf *bp = bio_lookup(dk, blkno);
	if (bp == NULL || (bp->b_flags & B_BUSY))
		return;
	bio_acquire(bp);
	bio_destroy(bp);
}

/* Calls fn on every buffer of dk (which fn may destroy). */
static void
bio_foreach(struct disk *dk, void (*fn)(struct buf *))
{
	for (size_t i = 0; i < (1UL << (64 - bufhash_shift)); i++) {
		struct buf *bp, *tmp;
		TAILQ_FOREACH_SAFE(bp, &bufhash[i], b_hash, tmp)
			if (bp->b_disk == dk)
				fn(bp);
	}
}

/*
 * binvalidate's: drops bp unless it is busy: then it is a program's
 * transfer on the block device, whose bytes are the disk's or about to
 * be (a file system has no buffer busy at its unmount).
 */
static void
bio_invalidate(struct buf *bp)
{
	if (bp->b_flags & B_BUSY)
		return;
	if (bp->b_flags & B_DELWRI)
		kprintf("%s: dropping an unwritten block at sector %llu\n",
		    bp->b_disk->d_name, (unsigned long long)bp->b_blkno);
	bio_acquire(bp);
	bio_destroy(bp);
}

void
binvalidate(struct disk *dk)
{
	bio_foreach(dk, bio_invalidate);
}

/* bpurge's: drops bp if it is clean and nobody holds it. */
static void
bio_purge(struct buf *bp)
{
	if (!(bp->b_flags & (B_BUSY | B_DELWRI))) {
		bio_acquire(bp);
		bio_destroy(bp);
	}
}

void
bpurge(struct disk *dk)
{
	bio_foreach(dk, bio_purge);
}

/* bio_setbsize's: counts the odd buffers again, dropping the clean ones. */
static void
bio_recount(struct buf *bp)
{
	if (!bio_odd(bp->b_disk, bp->b_blkno, bp->b_bcount))
		return;
	if (bp->b_flags & (B_BUSY | B_DELWRI)) {
		bp->b_disk->d_nodd++;
		return;
	}
	bio_acquire(bp);
	bp->b_disk->d_nodd++;		/* bio_destroy takes it off */
	bio_destroy(bp);
}

void
bio_setbsize(struct disk *dk, uint32_t bsize)
{
	KASSERT(bsize >= DEV_BSIZE && bsize <= BIO_MAXBSIZE &&
	    (bsize & (bsize - 1)) == 0, "bio_setbsize: bad size");
	if (dk->d_bsize == bsize)
		return;
	dk->d_bsize = bsize;
	dk->d_nodd = 0;
	bio_foreach(dk, bio_recount);
}

size_t
bio_reclaim(size_t pages)
{
	static bool reclaiming;
	size_t want = pages * PAGE_SIZE, freed = 0, started = 0;
	struct buf *bp;

	/* The allocations of bio_create come back here: the queues are
	 * consistent then, but one pass at a time is enough. */
	if (reclaiming || bufhash == NULL)
		return 0;
	reclaiming = true;
	while (freed < want && (bp = TAILQ_FIRST(&bufclean)) != NULL) {
		freed += bp->b_bcount;
		bio_acquire(bp);
		bio_destroy(bp);
	}
	/* Short: have the oldest delayed writes written, for next time.
	 * This may run inside an allocation: it must not sleep. */
	while (freed + started < want && (bp = TAILQ_FIRST(&bufdirty)) != NULL) {
		started += bp->b_bcount;
		bio_acquire(bp);
		bawrite(bp);
	}
	/* Buffers smaller than a page leave empty slabs behind. */
	if (freed > 0)
		kmem_reclaim();
	reclaiming = false;
	return howmany(freed, PAGE_SIZE);
}

void
bio_init(void)
{
	if (buf_zone == NULL) {
		biostats.maxbytes = physmem.size / BIO_RAM_SHARE;
		/* About a chain for every two page-sized buffers. */
		int bits = 6;
		while (bits < 20 && (1UL << bits) < biostats.maxbytes / PAGE_SIZE / 2)
			bits++;
		buf_zone = kmem_cache_create("buf", sizeof(struct buf), 0);
		bufhash = kmalloc(sizeof(*bufhash) << bits, 0);
		if (buf_zone == NULL || bufhash == NULL)
			panic("bio_init: out of memory");
		for (size_t i = 0; i < (1UL << bits); i++)
			TAILQ_INIT(&bufhash[i]);
		bufhash_shift = 64 - bits;
		vm_page_reclaimer(bio_reclaim);
		kprintf("bio: a buffer cache of up to %zu MiB\n",
		    biostats.maxbytes >> 20);
	}
	bio_syncer_start();
}

/*
 * The buffer cache: disk blocks in RAM, BSD style.
 *
 * A disk (dev/disk.h) is an array of 512-byte sectors.  A file system
 * reads a block with bread(), changes it, and gives it back with
 * brelse() (unchanged), bdwrite() (delayed write: the syncer or memory
 * pressure writes it later), bawrite() (write now, do not wait) or
 * bwrite() (write now and wait).  A buffer handed out is busy: nobody
 * else gets it until it is released; asking for a busy buffer sleeps.
 *
 * Buffers are identified by (disk, b_blkno) and never overlap: a
 * sector is in one buffer at most, so that a file system and a program
 * using the block device (fs/bdev.h) see each other's writes.  Each disk
 * has a block size (d_bsize), which its file system sets at mount and the
 * block device uses; getblk of a block of another shape first writes out
 * and drops the buffers it overlaps, and such a buffer is not kept once
 * clean (see bio_cache.c).  Their data live in RAM from vm_page (via
 * kmalloc), never in libc memory.
 *
 * Completion: a driver's strategy routine starts the transfer and calls
 * biodone() when it ends, from its interrupt, never from a guest's
 * context; a thread waiting in biowait() sleeps meanwhile and the
 * virtual CPU runs others.
 *
 * Locking: the big kernel lock; bread, bwrite, getblk and bsync may sleep.
 */
#ifndef FS_BUF_H
#define FS_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kern/queue.h"

struct disk;

#define DEV_BSIZE	512		/* b_blkno counts these */

struct buf {
	struct disk *b_disk;
	uint64_t b_blkno;		/* first sector */
	size_t b_bcount;		/* bytes, a multiple of DEV_BSIZE */
	void *b_data;
	int b_flags;			/* B_* */
	int b_error;			/* a negative errno after B_ERROR */
	/* The cache's own: hash chain, LRU or dirty queue, when dirtied. */
	TAILQ_ENTRY(buf) b_hash;
	TAILQ_ENTRY(buf) b_freelist;
	uint64_t b_dirtied;		/* nanouptime of the first bdwrite */
};

#define B_BUSY		0x0001	/* handed out */
#define B_WANTED	0x0002	/* somebody sleeps for it */
#define B_CACHE		0x0004	/* b_data holds the disk's bytes */
#define B_DELWRI	0x0008	/* dirty, not yet written */
#define B_READ		0x0010	/* the transfer reads (else writes) */
#define B_DONE		0x0020	/* the transfer ended */
#define B_ERROR		0x0040	/* ... with b_error */
#define B_ASYNC		0x0080	/* release when the write ends */
#define B_INVAL		0x0100	/* contents meaningless: drop on release */

/*
 * Sets up the cache (once) and starts the syncer thread (again after
 * bio_shutdown).  At boot.
 */
void bio_init(void);

/*
 * What else the syncer writes back, every bio_syncdelay, before the
 * buffers: the page cache's dirty pages (the VFS's vfs_writeback).
 */
void bio_syncer_hook(void (*fn)(void));

/*
 * At shutdown: stops the syncer, then bsync(NULL, 1).  From a thread.
 * 0 or the first error.
 */
int bio_shutdown(void);

/*
 * The block of size bytes at sector blkno, read if it is not cached:
 * 0 with *bpp busy, or -EIO (-ENOMEM if no buffer can be had; nothing
 * held either way).
 */
int bread(struct disk *dk, uint64_t blkno, size_t size, struct buf **bpp);

/*
 * The buffer for that block, busy, without reading: B_CACHE tells
 * whether it holds the disk's bytes.  For blocks about to be written
 * whole.  NULL only if memory is exhausted after reclaiming.
 */
struct buf *getblk(struct disk *dk, uint64_t blkno, size_t size);

/*
 * Read-ahead: starts reading the block if no buffer holds it, without
 * waiting; the buffer goes to the cache when the read ends.  Does
 * nothing if that would sleep or memory is short.
 */
void breada(struct disk *dk, uint64_t blkno, size_t size);

/*
 * Gives a busy buffer back unchanged; it is dropped if B_INVAL or if it
 * does not hold the block's bytes (a failed read, an unused getblk).
 */
void brelse(struct buf *bp);

/* Writes a busy buffer, waits, releases it: 0 or -EIO. */
int bwrite(struct buf *bp);

/* Marks a busy buffer dirty and releases it; written later. */
void bdwrite(struct buf *bp);

/* Starts writing a busy buffer; released when the write ends. */
void bawrite(struct buf *bp);

/*
 * Writes every dirty buffer of dk (NULL: of every disk); with wait,
 * waits for them and then flushes the disk's own cache to stable
 * storage (the host file's fsync).  0 or the first error, which may be
 * that of an earlier delayed write (reported once).  A busy buffer is
 * its holder's to write: bsync skips it.
 */
int bsync(struct disk *dk, int wait);

/*
 * Drops every buffer of dk, dirty ones too (logged): at unmount, after
 * bsync.  Busy ones stay: a program's transfers on the block device.
 */
void binvalidate(struct disk *dk);

/*
 * Drops the clean buffers of dk that nobody holds, so that the next
 * reads come from the disk (BLKFLSBUF, the block device's last close).
 */
void bpurge(struct disk *dk);

/*
 * Sets dk's block size (a power of two, 512 to 64 KiB): the file system
 * mounted on it, before it reads its blocks.  Buffers of another shape
 * that are clean and not busy are dropped; the others go as getblk
 * meets them.
 */
void bio_setbsize(struct disk *dk, uint32_t bsize);

/*
 * Drops the cached buffer of the block at sector blkno if it is not
 * busy, dirty or not: the block now holds a file's data, which the page
 * cache writes, and an old delayed write must not land on it.
 */
void bforget(struct disk *dk, uint64_t blkno);

/*
 * Page cache transfers (bio_page.c): size bytes at sector blkno of dk
 * from or to data (kernel memory in RAM: a page), never through a
 * buffer of the cache.  read: true for a read.
 *
 * bio_pagestart starts one and returns it (NULL if memory is short:
 * nothing started); bio_pagewait waits for its end, frees it and
 * returns 0 or -EIO.  Start many before waiting: the disk merges
 * neighbours into one host call.  A write counts among the disk's writes
 * in flight until it ends, so bsync waits for it.  bio_pageio does both.
 */
struct buf *bio_pagestart(struct disk *dk, uint64_t blkno, void *data,
    size_t size, bool read);
int bio_pagewait(struct buf *bp);
int bio_pageio(struct disk *dk, uint64_t blkno, void *data, size_t size,
    bool read);

/* A driver's transfer ended (b_error set on failure). */
void biodone(struct buf *bp);

/* Sleeps until bp's transfer ends: 0 or its error. */
int biowait(struct buf *bp);

/*
 * Memory pressure: writes back and frees clean buffers until about
 * pages pages are returned; the count freed.
 */
size_t bio_reclaim(size_t pages);

#endif /* FS_BUF_H */

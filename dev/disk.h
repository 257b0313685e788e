/*
 * Disks as file systems and the buffer cache see them: an array of
 * DEV_BSIZE sectors with a strategy routine.  dev/vkd provides them (one
 * per -r FILE); a file system finds one by name at mount, a program
 * opens one as a block device (fs/bdev.h).
 *
 * A disk has one exclusive holder at most (disk_claim): the file system
 * mounted on it, or a program that opened it with O_EXCL.  Opens without
 * O_EXCL are counted but never refused, as Linux's.
 */
#ifndef DEV_DISK_H
#define DEV_DISK_H

#include <stdint.h>
#include <sys/types.h>

#include "kern/queue.h"

struct buf;

struct disk {
	char d_name[16];		/* "vkd0" */
	dev_t d_dev;			/* its device number */
	uint64_t d_nsectors;		/* size in DEV_BSIZE sectors */
	int d_readonly;
	/*
	 * The block size (Linux's "soft" block size, BLKBSZGET): the size
	 * of the disk's buffers in the cache.  disk_register sets the
	 * largest power of two up to 4096 that divides the disk, as Linux;
	 * the file system mounted on it sets its own (bio_setbsize).
	 */
	uint32_t d_bsize;
	const void *d_holder;		/* the exclusive holder, or NULL */
	int d_opens;			/* block-device files open on it */
	/*
	 * Starts bp's transfer (B_READ or a write of b_bcount bytes at
	 * sector b_blkno) and returns; biodone(bp) when it ends.  A transfer
	 * past the end or a write to a read-only disk ends with -EIO (-EROFS).
	 */
	void (*d_strategy)(struct disk *dk, struct buf *bp);
	/* Makes completed writes durable (host fsync); sleeps.  0 or -EIO. */
	int (*d_flush)(struct disk *dk);
	/*
	 * For a kernel with no thread to sleep in (at boot, before the CPUs
	 * run; at the end, after they stop): waits in the host until a
	 * transfer of dk ends and completes it (biodone), so that biowait
	 * and d_flush can poll.
	 */
	void (*d_poll)(struct disk *dk);
	void *d_softc;			/* the driver's */
	/* The buffer cache's (fs/bio*): */
	int d_writes;			/* writes in flight */
	int d_wberror;			/* a failed write-behind, for bsync */
	int d_nodd;			/* buffers not of d_bsize or not aligned */
	TAILQ_ENTRY(disk) d_list;
};

TAILQ_HEAD(disklist, disk);
extern struct disklist disklist;	/* every disk, in registration order */

/*
 * Device numbers: major 254 (where Linux usually puts virtio-blk),
 * minor the unit (vkd0 is 254:0).
 */
#define DISK_MAJOR	254

/*
 * Adds dk to the list of disks and tells the watcher (devfs); sets its
 * block size.
 */
void disk_register(struct disk *dk);

/*
 * Takes dk off the list and tells the watcher (the driver detaches it;
 * nothing in flight, no file open on it, not mounted).
 */
void disk_unregister(struct disk *dk);

/*
 * Who is told of the disks registered and unregistered from now on:
 * devfs, which makes and removes their nodes in every mounted devfs
 * (and walks disklist at each mount for those registered before).  One
 * watcher; watching again replaces it.
 */
struct disk_watcher {
	void (*dw_add)(struct disk *dk);
	void (*dw_remove)(struct disk *dk);
};
void disk_watch(const struct disk_watcher *w);

/* The disk named name ("vkd0", or "/dev/vkd0"), or NULL. */
struct disk *disk_lookup(const char *name);

/* The disk with device number dev, or NULL. */
struct disk *disk_bydev(dev_t dev);

/*
 * Makes holder (a mount, an open file) dk's exclusive holder: 0, or
 * -EBUSY if another holds it.  Claiming again by the same holder is 0.
 */
int disk_claim(struct disk *dk, const void *holder);

/* holder gives its claim on dk up (nothing if it holds none). */
void disk_unclaim(struct disk *dk, const void *holder);

/* The size of dk in bytes. */
static inline uint64_t
disk_size(const struct disk *dk)
{
	return dk->d_nsectors * 512;
}

#endif /* DEV_DISK_H */

/*
 * Block-device files (see bdev.h): read, write, lseek, fsync and the BLK*
 * ioctls of a disk, through the buffer cache.
 *
 * A transfer is cut into the disk's blocks (d_bsize, the block size of a
 * file system mounted on it), each bread, or getblk when a write covers
 * it whole, so that the block device uses the very buffers the file
 * system does.  The disk's short last block, if its size is not a
 * multiple of the block size, is a buffer of its own size, which the
 * cache does not keep (an odd shape: see fs/bio_cache.c).  Linux's limits:
 * a read at or past the end reads nothing, a write there is -ENOSPC and
 * one across it is cut short; a read-only disk refuses writes with
 * -EPERM.
 */
#include <linux/fs.h>

#include "dev/disk.h"
#include "fs/bdev.h"
#include "fs/buf.h"
#include "fs/ioctl.h"
#include "fs/poll.h"
#include "fs/vfs.h"
#include "kern/proc.h"
#include "kern/ucred.h"
#include "kern/uio.h"
#include "kern/kmem.h"

#define BDEV_RAHEAD	(128 * 1024)	/* read ahead of a sequential reader */

/* An open block device (f_data). */
struct bdev_file {
	struct disk *bf_disk;
	uint64_t bf_next;	/* where its last read ended */
};

static struct disk *
fp_disk(struct file *fp)
{
	return ((struct bdev_file *)fp->f_data)->bf_disk;
}

/* Bytes in the block that starts at byte start (the last may be short). */
static size_t
bdev_blklen(const struct disk *dk, uint64_t start)
{
	return (size_t)MIN((uint64_t)dk->d_bsize, disk_size(dk) - start);
}

static int
bdev_read(struct file *fp, struct uio *uio)
{
	struct bdev_file *bf = fp->f_data;
	struct disk *dk = bf->bf_disk;
	uint64_t size = disk_size(dk), off = (uint64_t)uio->uio_offset;
	int error = 0;

	if (off >= size)
		return 0;
	uint64_t end = off + MIN(uio->uio_resid, size - off);
	/* Ahead within the request, and past it for a sequential reader. */
	uint64_t ahead = MIN(off == bf->bf_next ? end + BDEV_RAHEAD : end, size);
	uint64_t ra = 0;	/* read ahead up to here */
	while (off < end) {
		uint64_t start = off - off % dk->d_bsize;
		size_t len = bdev_blklen(dk, start);
		struct buf *bp;
		if ((error = bread(dk, start / DEV_BSIZE, len, &bp)) < 0)
			break;
		for (ra = MAX(ra, start + len); ra < MIN(ahead,
		    start + len + BDEV_RAHEAD); ra += bdev_blklen(dk, ra))
			breada(dk, ra / DEV_BSIZE, bdev_blklen(dk, ra));
		size_t o = (size_t)(off - start);
		error = uiomove((char *)bp->b_data + o,
		    (size_t)MIN(len - o, end - off), uio);
		brelse(bp);
		off = (uint64_t)uio->uio_offset;
		if (error < 0)
			break;
	}
	bf->bf_next = off;
	return error;
}

/*
 * A block meant to be overwritten whole (getblk, not read) whose copy
 * from the program stopped after k bytes: those k bytes and the rest of
 * the block as the disk has it go back as a delayed write, so that the
 * count reported is what was written.  Best effort: without memory or on
 * a read error the k bytes are lost (logged).
 */
static void
bdev_partial(struct buf *bp, size_t k)
{
	struct disk *dk = bp->b_disk;
	uint64_t blkno = bp->b_blkno;
	size_t len = bp->b_bcount;
	void *part = k > 0 ? kmalloc(k, 0) : NULL;

	if (part != NULL)
		memcpy(part, bp->b_data, k);
	bp->b_flags |= B_INVAL;
	brelse(bp);
	if (k == 0)
		return;
	if (part != NULL && bread(dk, blkno, len, &bp) == 0) {
		memcpy(bp->b_data, part, k);
		bdwrite(bp);
	} else {
		kprintf("%s: a write of %zu bytes at sector %llu is lost\n",
		    dk->d_name, k, (unsigned long long)blkno);
	}
	kfree(part);
}

static int
bdev_write(struct file *fp, struct uio *uio)
{
	struct disk *dk = fp_disk(fp);
	uint64_t size = disk_size(dk), off = (uint64_t)uio->uio_offset;
	int error = 0;

	if (dk->d_readonly)
		return -EPERM;
	if (off >= size)
		return -ENOSPC;
	uint64_t end = off + MIN(uio->uio_resid, size - off);
	uint64_t first = off;
	while (off < end) {
		uint64_t start = off - off % dk->d_bsize;
		size_t len = bdev_blklen(dk, start);
		size_t o = (size_t)(off - start), n = (size_t)MIN(len - o, end - off);
		struct buf *bp;
		if (o == 0 && n == len) {
			/* Overwritten whole: nothing to read first. */
			if ((bp = getblk(dk, start / DEV_BSIZE, len)) == NULL) {
				error = -ENOMEM;
				break;
			}
		} else if ((error = bread(dk, start / DEV_BSIZE, len, &bp)) < 0) {
			break;
		}
		error = uiomove((char *)bp->b_data + o, n, uio);
		size_t moved = (size_t)((uint64_t)uio->uio_offset - off);
		if (error < 0 && !(bp->b_flags & B_CACHE))
			bdev_partial(bp, moved);
		else if (moved > 0)
			bdwrite(bp);
		else
			brelse(bp);
		off = (uint64_t)uio->uio_offset;
		if (error < 0)
			break;
	}
	/* O_SYNC includes the O_DSYNC bit. */
	if ((fp->f_flag & O_DSYNC) && off > first) {
		int e = bsync(dk, 1);
		if (error == 0)
			error = e;
	}
	return error;
}

/*
 * Linux's fixed_size_llseek: offsets within the disk, its end included;
 * no SEEK_DATA or SEEK_HOLE.
 */
static int64_t
bdev_lseek(struct file *fp, int64_t off, int whence)
{
	int64_t size = (int64_t)disk_size(fp_disk(fp)), base;

	switch (whence) {
	case SEEK_SET:
		base = 0;
		break;
	case SEEK_CUR:
		base = fp->f_offset;
		break;
	case SEEK_END:
		base = size;
		break;
	default:		/* SEEK_DATA and SEEK_HOLE too */
		return -EINVAL;
	}
	if ((off > 0 && base > INT64_MAX - off) || base + off < 0 ||
	    base + off > size)
		return -EINVAL;
	fp->f_offset = base + off;
	return fp->f_offset;
}

int
bdev_fsync(struct file *fp)
{
	return bsync(fp_disk(fp), 1);
}

/*
 * Linux's BLK* commands.  Their numbers say little: BLKGETSIZE (_IO)
 * writes a long, BLKBSZGET (_IOR of a size_t) an int, as Linux's.
 */
static const struct ioctl_cmd bdev_ioctls[] = {
	IOCTL_CMD(BLKROGET, IOCD_OUT, sizeof(int)),
	IOCTL_CMD(BLKRRPART, IOCD_NONE, 0),
	IOCTL_CMD(BLKGETSIZE, IOCD_OUT, sizeof(unsigned long)),
	IOCTL_CMD(BLKFLSBUF, IOCD_NONE, 0),
	IOCTL_CMD(BLKSSZGET, IOCD_OUT, sizeof(int)),
	IOCTL_CMD(BLKBSZGET, IOCD_OUT, sizeof(int)),
	IOCTL_CMD(BLKGETSIZE64, IOCD_OUT, sizeof(uint64_t)),
	IOCTL_CMD(BLKPBSZGET, IOCD_OUT, sizeof(unsigned int)),
	IOCTL_END,
};

static const struct ioctl_cmd *
bdev_ioctl_cmds(struct file *fp)
{
	(void)fp;
	return bdev_ioctls;
}

/* Linux's capable(CAP_SYS_ADMIN): root (a kernel thread counts). */
static bool
bdev_admin(void)
{
	struct proc *p = curproc;
	return p == NULL || p->p_ucred == NULL || cred_is_root(p->p_ucred);
}

static int
bdev_ioctl(struct file *fp, unsigned long cmd, void *data)
{
	struct disk *dk = fp_disk(fp);
	uint64_t v;

	switch (cmd) {
	case BLKROGET:
		v = dk->d_readonly != 0;
		break;
	case BLKRRPART:
		/* vkd disks have no partitions to scan (a loop device's answer). */
		return -EINVAL;
	case BLKGETSIZE:
		v = dk->d_nsectors;
		break;
	case BLKFLSBUF: {
		/* Linux's sync_blockdev and invalidate_bdev. */
		if (!bdev_admin())
			return -EACCES;
		int error = bsync(dk, 1);
		bpurge(dk);
		return error;
	}
	case BLKSSZGET:
	case BLKPBSZGET:
		v = DEV_BSIZE;
		break;
	case BLKBSZGET:
		v = dk->d_bsize;
		break;
	case BLKGETSIZE64:
		v = disk_size(dk);
		break;
	default:
		return -ENOTTY;		/* bdev_ioctls and this switch differ */
	}
	const struct ioctl_cmd *ic = ioctl_cmd_find(bdev_ioctls, cmd);
	if (ic->ic_size == sizeof(uint32_t)) {
		uint32_t v32 = (uint32_t)v;
		memcpy(data, &v32, sizeof(v32));
	} else {
		memcpy(data, &v, sizeof(v));
	}
	return 0;
}

/*
 * The last close of a disk nobody holds (not mounted) writes its delayed
 * writes and drops its clean buffers, as Linux's blkdev_put; an error
 * there is logged by the driver and left for the next fsync.
 */
static void
bdev_close(struct file *fp)
{
	struct bdev_file *bf = fp->f_data;
	struct disk *dk = bf->bf_disk;

	disk_unclaim(dk, fp);
	if (--dk->d_opens == 0 && dk->d_holder == NULL) {
		(void)bsync(dk, 1);
		if (dk->d_opens == 0 && dk->d_holder == NULL)
			bpurge(dk);
	}
	kfree(bf);
	vrele(fp->f_vnode);
}

static const struct fileops bdev_fileops = {
	.fo_read = bdev_read,
	.fo_write = bdev_write,
	.fo_ioctls = bdev_ioctl_cmds,
	.fo_ioctl = bdev_ioctl,
	.fo_poll = vn_poll,
	.fo_stat = vn_fstat,
	.fo_lseek = bdev_lseek,
	.fo_close = bdev_close,
};

int
bdev_open(struct vnode *vp, struct file *fp)
{
	struct disk *dk = disk_bydev(vp->v_rdev);
	if (dk == NULL)
		return -ENXIO;
	if ((fp->f_flag & O_EXCL) && disk_claim(dk, fp) < 0)
		return -EBUSY;
	struct bdev_file *bf = kmalloc(sizeof(*bf), KM_ZERO);
	if (bf == NULL) {
		disk_unclaim(dk, fp);
		return -ENOMEM;
	}
	bf->bf_disk = dk;
	dk->d_opens++;
	fp->f_data = bf;
	fp->f_ops = &bdev_fileops;
	return 0;
}

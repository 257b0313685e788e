/*
 * Block-device files: a disk (dev/disk.h) opened by a program through
 * its node (/dev/vkd0, or any block-special node with its number), as
 * dd, mke2fs, e2fsck and blockdev use it.
 *
 * Reads and writes go through the buffer cache in blocks of the disk's
 * block size, so that a file system mounted on the disk and the block
 * device share one copy of each sector.  Writes are delayed as a file's
 * (the syncer writes them, fsync or O_SYNC/O_DSYNC at once); the last
 * close of a disk that is not mounted writes them out and drops its clean
 * buffers, as Linux's.  The ioctls are Linux's BLK* (bdev.c lists them).
 *
 * Locking: the big kernel lock; reads, writes, fsync and close sleep.
 */
#ifndef FS_BDEV_H
#define FS_BDEV_H

struct file;
struct vnode;

/*
 * Opens block-device vnode vp into fp (whose flags are set): -ENXIO if
 * no disk has its number, -EBUSY for O_EXCL on a disk that is mounted or
 * opened with O_EXCL (which then holds it until its close); -ENOMEM.
 */
int bdev_open(struct vnode *vp, struct file *fp);

/* fsync of a block-device file: the disk's buffers, then its cache. */
int bdev_fsync(struct file *fp);

#endif /* FS_BDEV_H */

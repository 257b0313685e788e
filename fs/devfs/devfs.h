/*
 * devfs: the file system of /dev (Linux's devtmpfs).
 *
 * A devfs is a tmpfs that its mount fills with a node for every driver
 * of the character-device switch (fs/cdev.h) and every disk, the links
 * Linux has (fd, stdin, stdout, stderr into /proc/self/fd) and an empty
 * shm directory.  Being a tmpfs, it takes mknod, links and files as
 * Linux's does.  Each mount is filled anew; a disk added later appears in
 * every mounted devfs at once.
 *
 * Locking: the big kernel lock.
 */
#ifndef FS_DEVFS_DEVFS_H
#define FS_DEVFS_DEVFS_H

#include <sys/types.h>

#include "fs/vnode.h"

struct disk;

#define DEVFS_DISKS_MAX	16

/* The same file system under Linux's name and under BSD's. */
extern const struct vfsops devtmpfs_vfsops, devfs_vfsops;

/*
 * Makes the block-device node /dev/<dk->d_name> (dk->d_dev, mode 0660)
 * for disk dk in every devfs mounted now or later, and lets mount(2)
 * find dk by its number.  The disk layer calls it when it registers a
 * disk (dev/disk.h's disk_register).  Returns 0, -EEXIST (the number is
 * taken), -ENOSPC (DEVFS_DISKS_MAX disks).
 */
int devfs_disk_add(struct disk *dk);

/* The disk added with device number dev, or NULL. */
struct disk *devfs_disk_bydev(dev_t dev);

#endif /* FS_DEVFS_DEVFS_H */

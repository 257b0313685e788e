/*
 * devfs: the file system of /dev (Linux's devtmpfs).
 *
 * A devfs is a tmpfs that its mount fills with a node for every driver
 * of the character-device switch (fs/cdev.h) and every disk, the links
 * Linux has (fd, stdin, stdout, stderr into /proc/self/fd) and an empty
 * shm directory.  Being a tmpfs, it takes mknod, links and files as
 * Linux's does.  Each mount is filled anew; a disk registered or
 * unregistered later (dev/disk.h) appears in or leaves every mounted
 * devfs at once: devfs watches the list of disks (disk_watch) from its
 * first mount.
 *
 * Locking: the big kernel lock.
 */
#ifndef FS_DEVFS_DEVFS_H
#define FS_DEVFS_DEVFS_H

#include <sys/types.h>

#include "fs/vnode.h"

struct disk;

/* The same file system under Linux's name and under BSD's. */
extern const struct vfsops devtmpfs_vfsops, devfs_vfsops;

#endif /* FS_DEVFS_DEVFS_H */

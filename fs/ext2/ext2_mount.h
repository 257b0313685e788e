/*
 * Mounting ext2: what vfs_mount's data is for the "ext2" file system.
 */
#ifndef FS_EXT2_EXT2_MOUNT_H
#define FS_EXT2_EXT2_MOUNT_H

#include <stdbool.h>

struct ext2_args {
	const char *ea_disk;	/* "vkd0" or "/dev/vkd0" */
	bool ea_ronly;		/* mount read-only */
};

extern const struct vfsops ext2_vfsops;

#endif /* FS_EXT2_EXT2_MOUNT_H */

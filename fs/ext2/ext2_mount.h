/*
 * The "ext2" file system: vfs_mount's data is a struct mount_args whose
 * ma_disk is the disk (fs/vnode.h).
 */
#ifndef FS_EXT2_EXT2_MOUNT_H
#define FS_EXT2_EXT2_MOUNT_H

extern const struct vfsops ext2_vfsops;

#endif /* FS_EXT2_EXT2_MOUNT_H */

/*
 * The initramfs loader: unpacks a cpio archive in the "newc" format
 * (magic 070701, as `cpio -H newc -o` writes; 070702, the same with a
 * checksum, is accepted and the checksum ignored) into a directory,
 * normally the tmpfs root, the way Linux unpacks its initramfs.
 */
#ifndef FS_INITRAMFS_H
#define FS_INITRAMFS_H

#include <stddef.h>

struct vnode;

/*
 * Unpacks the archive of len bytes at buf (a kernel buffer, untrusted)
 * under directory root: directories, regular files, symbolic links, hard
 * links (entries sharing an inode number: the data comes with the last),
 * device nodes, fifos and sockets, with their modes, owners and
 * modification times.  Paths are taken relative to root and cannot
 * leave it.  Several archives may follow one another, each ending in its
 * trailer, with zero padding between them.
 *
 * Returns 0, -EINVAL for a malformed or truncated archive (logged with
 * the offset), or the error of a file operation (-ENOSPC, -ENOMEM...).
 * Entries before the error stay.
 */
int initramfs_load(struct vnode *root, const void *buf, size_t len);

#endif /* FS_INITRAMFS_H */

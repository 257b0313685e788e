/*
 * Host files the kernel reads at boot (the initramfs) or the program
 * writes for its caller (the pid file).  Disk images are host/blkio.h's.
 */
#ifndef HOST_HOSTFILE_H
#define HOST_HOSTFILE_H

#include <stddef.h>

/*
 * Maps the host file at path read-only: *bufp (NULL for an empty file)
 * and its size *lenp.  Returns 0 or -errno.  Undo with host_file_unmap.
 */
int host_file_map(const char *path, void **bufp, size_t *lenp);

/* Unmaps what host_file_map returned (NULL: nothing). */
void host_file_unmap(void *buf, size_t len);

/* Writes the vkernel's host pid to path; 0, or -1 with errno set. */
int host_pidfile(const char *path);

#endif /* HOST_HOSTFILE_H */

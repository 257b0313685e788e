/*
 * Host files the kernel reads at boot (the initramfs) or the program
 * writes for its caller (the pid file).  Disk images are host/blkio.h's.
 */
#ifndef HOST_HOSTFILE_H
#define HOST_HOSTFILE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Maps the host file at path read-only: *bufp (NULL for an empty file)
 * and its size *lenp.  Returns 0 or -errno.  Undo with host_file_unmap.
 */
int host_file_map(const char *path, void **bufp, size_t *lenp);

/* Unmaps what host_file_map returned (NULL: nothing). */
void host_file_unmap(void *buf, size_t len);

/*
 * Writes the vkernel's host pid to path (a line, as DragonFly's) and
 * keeps the file open and locked (flock) for the life of the process,
 * so that a second vkernel cannot take a pid file a running one holds:
 * then -EBUSY and *holder is the pid the file names.  A file left by a
 * vkernel that was killed is not locked, and is taken over.  The file is
 * removed when the process exits (exit(), a return from main) or a fatal
 * signal ends it (panic's abort), not by a reboot's re-exec, which keeps
 * the pid.  0, or -errno.
 */
int host_pidfile(const char *path, long *holder);

#endif /* HOST_HOSTFILE_H */

/*
 * Scatter/gather I/O descriptions, as in BSD: a uio names where data goes
 * to or comes from (user or kernel space), how much is left, and the file
 * offset.  uiomove copies between a kernel buffer and the uio, advancing
 * it; for user space it goes through copyin/copyout of the uio's vmspace.
 */
#ifndef KERN_UIO_H
#define KERN_UIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct vmspace;

enum uio_seg { UIO_USERSPACE, UIO_SYSSPACE };
enum uio_rw { UIO_READ, UIO_WRITE };	/* READ: data flows to the uio */

struct kiovec {
	uint64_t iov_base;	/* a user address, or a kernel pointer */
	uint64_t iov_len;
};

#define UIO_MAXIOV	1024	/* Linux's IOV_MAX */

struct uio {
	struct kiovec *uio_iov;
	int uio_iovcnt;
	int64_t uio_offset;
	uint64_t uio_resid;
	enum uio_seg uio_segflg;
	enum uio_rw uio_rw;
	struct vmspace *uio_vmspace;	/* for UIO_USERSPACE */
};

/*
 * Moves up to n bytes between kbuf and the uio (from kbuf for UIO_READ,
 * into it for UIO_WRITE), advancing the uio and its offset.  Returns 0 or
 * a negative errno (-EFAULT for a bad user address).
 */
int uiomove(void *kbuf, size_t n, struct uio *uio);

/* A uio over one kernel buffer. */
void uio_init_kernel(struct uio *uio, struct kiovec *iov, void *buf,
    size_t len, int64_t offset, enum uio_rw rw);

#endif /* KERN_UIO_H */

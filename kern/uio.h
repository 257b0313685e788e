/*
 * Scatter/gather I/O descriptions, as in BSD: a uio names where data goes
 * to or comes from (user or kernel space), how much is left, and the file
 * offset.  uiomove copies between a kernel buffer and the uio, advancing
 * it; for user space it goes through copyin/copyout of the uio's vmspace.
 */
#ifndef KERN_UIO_H
#define KERN_UIO_H

#include <stdbool.h>
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

#define EJUSTRETURN	1024	/* -EJUSTRETURN: the handler set the registers */

/*
 * Linux's access_ok: [uaddr, uaddr + len) lies in user space at all.
 * Buffers are checked so before any work, as Linux does.
 */
static inline bool
user_range_ok(uint64_t uaddr, uint64_t len)
{
	const uint64_t top = 0x00007ffffffff000UL;	/* Linux's TASK_SIZE_MAX */
	return uaddr <= top && len <= top - uaddr;
}

/* The copyin family on the current process: 0 or -EFAULT. */
int copyin(uint64_t uaddr, void *kaddr, size_t len);
int copyout(const void *kaddr, uint64_t uaddr, size_t len);
/* A string of at most maxlen bytes with its NUL: 0, -EFAULT, -ENAMETOOLONG. */
int copyinstr(uint64_t uaddr, char *kaddr, size_t maxlen, size_t *done);

/*
 * A path argument, copied into a kernel buffer of PATH_MAX bytes that the
 * caller frees with kfree: NULL with *error set on failure.
 */
char *copyin_path(uint64_t uaddr, int *error);

#endif /* KERN_UIO_H */

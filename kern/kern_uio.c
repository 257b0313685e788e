/*
 * uiomove: the one place where data crosses between a kernel buffer and
 * a uio, be it a kernel buffer or user memory (through vm_copyin and
 * vm_copyout, which fault pages in and check permissions).
 */
#include "kern/kernel.h"
#include "kern/uio.h"
#include "vm/vm.h"

int
uiomove(void *kbuf, size_t n, struct uio *uio)
{
	uint8_t *cp = kbuf;

	while (n > 0 && uio->uio_resid > 0) {
		KASSERT(uio->uio_iovcnt > 0, "uio resid beyond its vectors");
		struct kiovec *iov = uio->uio_iov;
		size_t cnt = MIN(iov->iov_len, n);
		if (cnt == 0) {
			uio->uio_iov++;
			uio->uio_iovcnt--;
			continue;
		}
		int error = 0;
		if (uio->uio_segflg == UIO_SYSSPACE) {
			if (uio->uio_rw == UIO_READ)
				memcpy((void *)iov->iov_base, cp, cnt);
			else
				memcpy(cp, (const void *)iov->iov_base, cnt);
		} else if (uio->uio_rw == UIO_READ) {
			error = vm_copyout(uio->uio_vmspace, cp, iov->iov_base, cnt);
		} else {
			error = vm_copyin(uio->uio_vmspace, iov->iov_base, cp, cnt);
		}
		if (error != 0)
			return error;
		iov->iov_base += cnt;
		iov->iov_len -= cnt;
		uio->uio_resid -= cnt;
		uio->uio_offset += (int64_t)cnt;
		cp += cnt;
		n -= cnt;
	}
	return 0;
}

void
uio_init_kernel(struct uio *uio, struct kiovec *iov, void *buf, size_t len,
    int64_t offset, enum uio_rw rw)
{
	iov->iov_base = (uint64_t)buf;
	iov->iov_len = len;
	uio->uio_iov = iov;
	uio->uio_iovcnt = 1;
	uio->uio_offset = offset;
	uio->uio_resid = len;
	uio->uio_segflg = UIO_SYSSPACE;
	uio->uio_rw = rw;
	uio->uio_vmspace = NULL;
}

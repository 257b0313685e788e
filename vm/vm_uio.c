/*
 * uiomove: the one place where data crosses between a kernel buffer and
 * a uio, be it a kernel buffer or user memory (through vm_copyin and
 * vm_copyout, which fault pages in and check permissions).
 */
#include <limits.h>

#include "kern/kernel.h"
#include "kern/uio.h"
#include "kern/proc.h"
#include "kern/kmem.h"
#include "vm/vm.h"

/* Copies between kernel memory and the uio's user space, by direction. */
static int
uio_copy_user(struct uio *uio, uint8_t *kp, uint64_t uaddr, size_t len)
{
	if (uio->uio_rw == UIO_READ)
		return vm_copyout(uio->uio_vmspace, kp, uaddr, len);
	return vm_copyin(uio->uio_vmspace, uaddr, kp, len);
}

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
		} else {
			error = uio_copy_user(uio, cp, iov->iov_base, cnt);
			if (error == 0)
				;
			else if (error != -EFAULT)
				return error;
			else {
				/* Linux moves what it can up to the bad page. */
				size_t ok = 0;
				while (ok < cnt) {
					size_t step = MIN(cnt - ok, PAGE_SIZE -
					    ((iov->iov_base + ok) & PAGE_MASK));
					if (uio_copy_user(uio, cp + ok, iov->iov_base + ok,
					    step) != 0)
						break;
					ok += step;
				}
				iov->iov_base += ok;
				iov->iov_len -= ok;
				uio->uio_resid -= ok;
				uio->uio_offset += (int64_t)ok;
				return -EFAULT;
			}
		}
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

int
copyin(uint64_t uaddr, void *kaddr, size_t len)
{
	return vm_copyin(curproc->p_vmspace, uaddr, kaddr, len);
}

int
copyout(const void *kaddr, uint64_t uaddr, size_t len)
{
	return vm_copyout(curproc->p_vmspace, kaddr, uaddr, len);
}

int
copyinstr(uint64_t uaddr, char *kaddr, size_t maxlen, size_t *done)
{
	return vm_copyinstr(curproc->p_vmspace, uaddr, kaddr, maxlen, done);
}

char *
copyin_path(uint64_t uaddr, int *error)
{
	char *buf = kmalloc(PATH_MAX, 0);
	if (buf == NULL) {
		*error = -ENOMEM;
		return NULL;
	}
	*error = copyinstr(uaddr, buf, PATH_MAX, NULL);
	if (*error != 0) {
		kfree(buf);
		return NULL;
	}
	return buf;
}

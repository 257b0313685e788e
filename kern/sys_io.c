/*
 * Descriptor I/O system calls: read, write and their vector forms,
 * open and close.  They copy arguments in and call the file layer.
 */
#include <fcntl.h>
#include <sys/ioctl.h>

#include "fs/file.h"
#include "fs/vfs.h"
#include "kern/signal.h"
#include "kern/syscall.h"
#include "kern/uio.h"
#include "vm/kmem.h"

/* A user-space uio over one buffer of the calling process. */
static void
uio_user1(struct uio *uio, struct kiovec *iov, struct lwp *lp, uint64_t buf,
    uint64_t len, enum uio_rw rw)
{
	iov->iov_base = buf;
	iov->iov_len = len;
	*uio = (struct uio){ iov, 1, 0, len, UIO_USERSPACE, rw,
	    lp->lwp_proc->p_vmspace };
}

/*
 * A user-space uio over a user iovec array: -EINVAL for a bad count or a
 * total past SSIZE_MAX, -EFAULT for a bad array.  *iovp is kfree'd.
 */
static int
uio_userv(struct uio *uio, struct kiovec **iovp, struct lwp *lp,
    uint64_t uiov, uint64_t cnt, enum uio_rw rw)
{
	if (cnt > UIO_MAXIOV)
		return -EINVAL;
	struct kiovec *iov = kmalloc(cnt * sizeof(*iov) + 1, 0);
	if (iov == NULL)
		return -ENOMEM;
	if (copyin(uiov, iov, cnt * sizeof(*iov)) < 0) {
		kfree(iov);
		return -EFAULT;
	}
	uint64_t total = 0;
	for (uint64_t i = 0; i < cnt; i++) {
		if (iov[i].iov_len > INT64_MAX - total) {
			kfree(iov);
			return -EINVAL;
		}
		if (!user_range_ok(iov[i].iov_base, iov[i].iov_len)) {
			kfree(iov);
			return -EFAULT;
		}
		total += iov[i].iov_len;
	}
	*uio = (struct uio){ iov, (int)cnt, 0, total, UIO_USERSPACE, rw,
	    lp->lwp_proc->p_vmspace };
	*iovp = iov;
	return 0;
}

long
sys_read(struct lwp *lp, const uint64_t *args)
{
	struct uio uio;
	struct kiovec iov;
	if (!user_range_ok(args[1], args[2]))
		return -EFAULT;
	uio_user1(&uio, &iov, lp, args[1], args[2], UIO_READ);
	return kern_readv(&lp->lwp_proc->p_fs, (int)args[0], &uio);
}

long
sys_write(struct lwp *lp, const uint64_t *args)
{
	struct uio uio;
	struct kiovec iov;
	if (!user_range_ok(args[1], args[2]))
		return -EFAULT;
	uio_user1(&uio, &iov, lp, args[1], args[2], UIO_WRITE);
	int64_t r = kern_writev(&lp->lwp_proc->p_fs, (int)args[0], &uio);
	if (r == -EPIPE)
		psignal_proc(lp->lwp_proc, SIGPIPE);
	return r;
}

static long
rwv(struct lwp *lp, const uint64_t *args, enum uio_rw rw)
{
	struct uio uio;
	struct kiovec *iov;
	int error = uio_userv(&uio, &iov, lp, args[1], args[2], rw);
	if (error < 0)
		return error;
	int64_t r = rw == UIO_READ ? kern_readv(&lp->lwp_proc->p_fs, (int)args[0], &uio) :
	    kern_writev(&lp->lwp_proc->p_fs, (int)args[0], &uio);
	kfree(iov);
	if (r == -EPIPE)
		psignal_proc(lp->lwp_proc, SIGPIPE);
	return r;
}

long
sys_readv(struct lwp *lp, const uint64_t *args)  { return rwv(lp, args, UIO_READ); }
long
sys_writev(struct lwp *lp, const uint64_t *args) { return rwv(lp, args, UIO_WRITE); }

long
sys_openat(struct lwp *lp, const uint64_t *args)
{
	int error;
	char *path = copyin_path(args[1], &error);
	if (path == NULL)
		return error;
	struct proc *p = lp->lwp_proc;
	error = kern_openat(&p->p_fs, p->p_ucred, (int)args[0], path,
	    (int)args[2], (mode_t)args[3]);
	kfree(path);
	return error;
}

long
sys_open(struct lwp *lp, const uint64_t *args)
{
	const uint64_t a[4] = { (uint64_t)AT_FDCWD, args[0], args[1], args[2] };
	return sys_openat(lp, a);
}

long
sys_close(struct lwp *lp, const uint64_t *args)
{
	return kern_close(&lp->lwp_proc->p_fs, (int)args[0]);
}

/* ioctl: the argument is copied in and out by the size the command encodes. */
long
sys_ioctl(struct lwp *lp, const uint64_t *args)
{
	unsigned long cmd = args[1];
	uint8_t data[256];
	size_t size;

	memset(data, 0, sizeof(data));
	switch (cmd) {
	case TIOCGWINSZ: case TIOCSWINSZ: size = sizeof(struct winsize); break;
	case FIONREAD: case TIOCGPGRP: case TIOCSPGRP: case FIONBIO:
	case TIOCOUTQ: case TIOCGSID: size = sizeof(int); break;
	/* Linux's kernel termios: 36 bytes, not libc's 60. */
	case TCGETS: case TCSETS: case TCSETSW: case TCSETSF: size = 36; break;
	case TIOCSCTTY: case TCFLSH: case TCXONC: case TCSBRK: case TCSBRKP: {
		int v = (int)args[2];	/* the argument is a value */
		memcpy(data, &v, sizeof(v));
		size = 0;
		break;
	}
	default: size = 0; break;
	}
	if (size != 0 && copyin(args[2], data, size) < 0 &&
	    (cmd == TIOCSWINSZ || cmd == TIOCSPGRP || cmd == FIONBIO ||
	    cmd == TCSETS || cmd == TCSETSW || cmd == TCSETSF))
		return -EFAULT;
	int error = kern_ioctl(&lp->lwp_proc->p_fs, (int)args[0], cmd, data);
	if (error == 0 && size != 0 && copyout(data, args[2], size) < 0)
		return -EFAULT;
	return error;
}

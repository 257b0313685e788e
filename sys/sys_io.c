/*
 * Descriptor I/O system calls: read, write and their vector and
 * positioned vector forms, open, creat and close.  They copy arguments
 * in and call the file layer.
 */
#include <fcntl.h>
#include <linux/close_range.h>

#include "fs/file.h"
#include "fs/pipe.h"
#include "fs/vfs.h"
#include "kern/signal.h"
#include "sys/syscall.h"
#include "kern/uio.h"
#include "kern/kmem.h"

void
uio_user1(struct uio *uio, struct kiovec *iov, struct lwp *lp, uint64_t buf,
    uint64_t len, enum uio_rw rw)
{
	iov->iov_base = buf;
	iov->iov_len = len;
	*uio = (struct uio){ iov, 1, 0, len, UIO_USERSPACE, rw,
	    lp->lwp_proc->p_vmspace };
}

int
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
syscall_write_result(struct lwp *lp, long r)
{
	if (r == -EPIPE)
		lwpsignal_self(lp, SIGPIPE);
	if (r == -EPIPENOSIG)
		r = -EPIPE;
	if (r == -EXFSZ) {
		lwpsignal_self(lp, SIGXFSZ);
		r = -EFBIG;
	}
	return r;
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
	return syscall_write_result(lp,
	    kern_writev(&lp->lwp_proc->p_fs, (int)args[0], &uio));
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
	return syscall_write_result(lp, r);
}

long
sys_readv(struct lwp *lp, const uint64_t *args)  { return rwv(lp, args, UIO_READ); }
long
sys_writev(struct lwp *lp, const uint64_t *args) { return rwv(lp, args, UIO_WRITE); }

/* Linux's RWF_* flags of preadv2 and pwritev2. */
#define RWF_HIPRI	0x01
#define RWF_DSYNC	0x02
#define RWF_SYNC	0x04
#define RWF_NOWAIT	0x08
#define RWF_APPEND	0x10

/*
 * preadv, pwritev (fd, iov, cnt, pos_l, pos_h) and their "2" forms with
 * flags: at the offset pos_l (pos_h is its high half on 32-bit ABIs only),
 * or for the "2" forms at the file's offset if it is -1.  Of the flags,
 * HIPRI and NOWAIT change nothing here (nothing polls, and a read from
 * the buffer cache may sleep: it is not refused); DSYNC and SYNC write
 * the file out as fdatasync and fsync would; APPEND is not supported.
 */
static long
prwv(struct lwp *lp, const uint64_t *args, enum uio_rw rw, bool v2)
{
	struct fsproc *fsp = &lp->lwp_proc->p_fs;
	int64_t off = (int64_t)args[3];
	uint64_t flags = v2 ? args[5] : 0;
	struct uio uio;
	struct kiovec *iov;

	if (flags & ~(uint64_t)(RWF_HIPRI | RWF_DSYNC | RWF_SYNC | RWF_NOWAIT |
	    RWF_APPEND))
		return -EOPNOTSUPP;
	if (flags & RWF_APPEND) {
		kprintf_ratelimited("pid %d: pwritev2 RWF_APPEND not implemented\n",
		    lp->lwp_proc->p_pid);
		return -EOPNOTSUPP;
	}
	int error = uio_userv(&uio, &iov, lp, args[1], args[2], rw);
	if (error < 0)
		return error;
	int64_t r;
	if (v2 && off == -1)
		r = rw == UIO_READ ? kern_readv(fsp, (int)args[0], &uio) :
		    kern_writev(fsp, (int)args[0], &uio);
	else
		r = rw == UIO_READ ? kern_preadv(fsp, (int)args[0], &uio, off) :
		    kern_pwritev(fsp, (int)args[0], &uio, off);
	kfree(iov);
	r = syscall_write_result(lp, r);
	if (r > 0 && rw == UIO_WRITE && (flags & (RWF_DSYNC | RWF_SYNC))) {
		error = kern_fsync(fsp, (int)args[0], !(flags & RWF_SYNC));
		if (error < 0)
			return error;
	}
	return r;
}

long
sys_preadv(struct lwp *lp, const uint64_t *args)   { return prwv(lp, args, UIO_READ, false); }
long
sys_pwritev(struct lwp *lp, const uint64_t *args)  { return prwv(lp, args, UIO_WRITE, false); }
long
sys_preadv2(struct lwp *lp, const uint64_t *args)  { return prwv(lp, args, UIO_READ, true); }
long
sys_pwritev2(struct lwp *lp, const uint64_t *args) { return prwv(lp, args, UIO_WRITE, true); }

/*
 * copy_file_range(fd_in, off_in, fd_out, off_out, len, flags): copies
 * between regular files through the page cache (read, then written at
 * the output's position), 64 KiB at a time.  Linux 6.x's rules: flags
 * must be 0; EBADF for an input not open for reading, an output not
 * open for writing or opened O_APPEND; EISDIR for a directory, EINVAL
 * for another file that is not regular or an overlap within one file;
 * EXDEV across file systems (Linux copies across only where a file
 * system offers its own copy); EOVERFLOW for a negative offset.  The copy stops at the input's end; an
 * offset given is advanced, else the descriptor's.
 */
long
sys_copy_file_range(struct lwp *lp, const uint64_t *args)
{
	struct fsproc *fsp = &lp->lwp_proc->p_fs;
	int in = (int)args[0], out = (int)args[2];
	uint64_t len = MIN(args[4], (uint64_t)0x7ffff000);
	int64_t pin, pout;
	long error = 0;

	if (args[5] != 0)
		return -EINVAL;
	struct file *ifp = fget(fsp, in), *ofp = fget(fsp, out);
	struct vnode *ivp = NULL, *ovp = NULL;
	if (ifp == NULL || ofp == NULL || !FREAD(ifp) || !FWRITE(ofp) ||
	    (ofp->f_flag & O_APPEND))
		error = -EBADF;
	else if (ifp->f_type != DTYPE_VNODE || ofp->f_type != DTYPE_VNODE)
		error = -EINVAL;
	else if ((ivp = ifp->f_vnode)->v_type == VDIR ||
	    (ovp = ofp->f_vnode)->v_type == VDIR)
		error = -EISDIR;
	else if (ivp->v_type != VREG || ovp->v_type != VREG)
		error = -EINVAL;
	else if (ivp->v_mount != ovp->v_mount)
		error = -EXDEV;
	uint64_t isize = ivp != NULL ? ivp->v_size : 0;
	bool same = ivp == ovp;
	if (ifp != NULL)
		fdrop(ifp);
	if (ofp != NULL)
		fdrop(ofp);
	if (error < 0)
		return error;
	if (args[1] != 0 && copyin(args[1], &pin, sizeof(pin)) < 0)
		return -EFAULT;
	if (args[3] != 0 && copyin(args[3], &pout, sizeof(pout)) < 0)
		return -EFAULT;
	if (args[1] == 0)
		pin = kern_lseek(fsp, in, 0, SEEK_CUR);
	if (args[3] == 0)
		pout = kern_lseek(fsp, out, 0, SEEK_CUR);
	if (pin < 0 || pout < 0)
		return -EOVERFLOW;	/* as Linux's: they wrap past the largest */
	/* Shortened to the input's end, then checked for an overlap. */
	len = (uint64_t)pin >= isize ? 0 : MIN(len, isize - (uint64_t)pin);
	if (same && pout + (int64_t)len > pin && pout < pin + (int64_t)len)
		return -EINVAL;
	if (len == 0)
		return 0;

	size_t bsize = MIN(len, (uint64_t)65536);
	char *buf = kmalloc(bsize, 0);
	if (buf == NULL)
		return -ENOMEM;
	uint64_t done = 0;
	while (done < len) {
		struct kiovec iov = { (uint64_t)buf, MIN(len - done, bsize) };
		struct uio uio = { &iov, 1, 0, iov.iov_len, UIO_SYSSPACE, UIO_READ, NULL };
		int64_t n = kern_preadv(fsp, in, &uio, pin + (int64_t)done);
		if (n <= 0) {
			error = n;
			break;
		}
		iov = (struct kiovec){ (uint64_t)buf, (uint64_t)n };
		uio = (struct uio){ &iov, 1, 0, (uint64_t)n, UIO_SYSSPACE, UIO_WRITE, NULL };
		int64_t w = kern_pwritev(fsp, out, &uio, pout + (int64_t)done);
		if (w <= 0) {
			error = w;
			break;
		}
		done += (uint64_t)w;
		if (w < n)
			break;
	}
	kfree(buf);
	if (done == 0 && error < 0)
		return syscall_write_result(lp, error);
	pin += (int64_t)done;
	pout += (int64_t)done;
	if (args[1] != 0 && copyout(&pin, args[1], sizeof(pin)) < 0)
		return -EFAULT;
	if (args[3] != 0 && copyout(&pout, args[3], sizeof(pout)) < 0)
		return -EFAULT;
	if (args[1] == 0)
		(void)kern_lseek(fsp, in, pin, SEEK_SET);
	if (args[3] == 0)
		(void)kern_lseek(fsp, out, pout, SEEK_SET);
	return (long)done;
}

/*
 * splice(fd_in, off_in, fd_out, off_out, len, flags): moves bytes to or
 * from a pipe (fs/pipe_splice.c); an offset pointer given is read first
 * and advanced by what moved.
 */
long
sys_splice(struct lwp *lp, const uint64_t *args)
{
	int64_t offin, offout;
	if (args[1] != 0 && copyin(args[1], &offin, sizeof(offin)) < 0)
		return -EFAULT;
	if (args[3] != 0 && copyin(args[3], &offout, sizeof(offout)) < 0)
		return -EFAULT;
	int64_t r = kern_splice(&lp->lwp_proc->p_fs, (int)args[0],
	    args[1] != 0 ? &offin : NULL, (int)args[2],
	    args[3] != 0 ? &offout : NULL, args[4], (unsigned)args[5]);
	if (r > 0 && ((args[1] != 0 &&
	    copyout(&offin, args[1], sizeof(offin)) < 0) || (args[3] != 0 &&
	    copyout(&offout, args[3], sizeof(offout)) < 0)))
		return -EFAULT;
	return syscall_write_result(lp, r);
}

/* tee(fd_in, fd_out, len, flags): copies a pipe's bytes to another pipe. */
long
sys_tee(struct lwp *lp, const uint64_t *args)
{
	return syscall_write_result(lp, kern_tee(&lp->lwp_proc->p_fs,
	    (int)args[0], (int)args[1], args[2], (unsigned)args[3]));
}

/*
 * vmsplice(fd, iov, nr_segs, flags): the iovec's bytes into the pipe
 * whose write end fd is, or its bytes into them from a read end: as
 * writev and readv, since the pipe copies (SPLICE_F_GIFT gives nothing).
 */
long
sys_vmsplice(struct lwp *lp, const uint64_t *args)
{
	struct uio uio;
	struct kiovec *iov;
	int error = uio_userv(&uio, &iov, lp, args[1], args[2], UIO_WRITE);
	if (error < 0)
		return error;
	int64_t r = kern_vmsplice(&lp->lwp_proc->p_fs, (int)args[0], &uio,
	    (unsigned)args[3]);
	kfree(iov);
	return syscall_write_result(lp, r);
}

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

/*
 * sendfile(out_fd, in_fd, offset, count): copies from a regular file (at
 * *offset, which it advances, or at in_fd's offset) to any file, 64 KiB
 * at a time through a kernel buffer.  As Linux: the bytes copied if any,
 * else the error; at most 0x7ffff000 bytes; EINVAL for an input that is
 * not a regular file or an output opened O_APPEND.
 */
long
sys_sendfile(struct lwp *lp, const uint64_t *args)
{
	struct fsproc *fsp = &lp->lwp_proc->p_fs;
	int out = (int)args[0], in = (int)args[1];
	uint64_t count = MIN(args[3], (uint64_t)0x7ffff000);
	int64_t pos;
	long error = 0;

	struct file *ifp = fget(fsp, in);
	if (ifp == NULL)
		return -EBADF;
	struct file *ofp = fget(fsp, out);
	if (!FREAD(ifp) || ofp == NULL || !FWRITE(ofp))
		error = -EBADF;
	else if (ifp->f_type != DTYPE_VNODE || ifp->f_vnode->v_type != VREG ||
	    (ofp->f_flag & O_APPEND))
		error = -EINVAL;
	if (ofp != NULL)
		fdrop(ofp);
	fdrop(ifp);
	if (error < 0)
		return error;
	if (args[2] != 0) {
		if (copyin(args[2], &pos, sizeof(pos)) < 0)
			return -EFAULT;
		if (pos < 0)
			return -EINVAL;
	} else {
		pos = kern_lseek(fsp, in, 0, SEEK_CUR);
	}
	size_t bsize = MIN(count, (uint64_t)65536);
	char *buf = kmalloc(bsize + 1, 0);
	if (buf == NULL)
		return -ENOMEM;
	uint64_t done = 0;
	while (done < count) {
		struct kiovec iov = { (uint64_t)buf, MIN(count - done, bsize) };
		struct uio uio = { &iov, 1, 0, iov.iov_len, UIO_SYSSPACE, UIO_READ, NULL };
		int64_t n = kern_preadv(fsp, in, &uio, pos + (int64_t)done);
		if (n <= 0) {
			error = n;
			break;
		}
		iov = (struct kiovec){ (uint64_t)buf, (uint64_t)n };
		uio = (struct uio){ &iov, 1, 0, (uint64_t)n, UIO_SYSSPACE, UIO_WRITE, NULL };
		int64_t w = kern_writev(fsp, out, &uio);
		if (w <= 0) {
			error = w;
			break;
		}
		done += (uint64_t)w;
		if (w < n)
			break;
	}
	kfree(buf);
	if (done == 0 && error < 0)
		return syscall_write_result(lp, error);
	pos += (int64_t)done;
	if (args[2] != 0) {
		if (copyout(&pos, args[2], sizeof(pos)) < 0)
			return -EFAULT;
	} else {
		(void)kern_lseek(fsp, in, pos, SEEK_SET);
	}
	return (long)done;
}

long
sys_creat(struct lwp *lp, const uint64_t *args)
{
	const uint64_t a[4] = { (uint64_t)AT_FDCWD, args[0],
	    O_CREAT | O_WRONLY | O_TRUNC, args[1] };
	return sys_openat(lp, a);
}

long
sys_close(struct lwp *lp, const uint64_t *args)
{
	return kern_close(&lp->lwp_proc->p_fs, (int)args[0]);
}

/*
 * close_range: flags CLOSE_RANGE_UNSHARE (a private table first, as
 * unshare(CLONE_FILES)) and CLOSE_RANGE_CLOEXEC (mark, not close).
 */
long
sys_close_range(struct lwp *lp, const uint64_t *args)
{
	unsigned first = (unsigned)args[0], last = (unsigned)args[1];
	unsigned flags = (unsigned)args[2];
	struct fsproc *fp = &lp->lwp_proc->p_fs;

	if ((args[2] & ~(uint64_t)(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC)) != 0 ||
	    first > last)
		return -EINVAL;
	if (flags & CLOSE_RANGE_UNSHARE) {
		int error = fsproc_unshare(fp, FSP_FILES);
		if (error < 0)
			return error;
	}
	kern_close_range(fp, first, last, (flags & CLOSE_RANGE_CLOEXEC) != 0);
	return 0;
}

/*
 * ioctl: the argument moves as the command declares (fs/ioctl.h).  The
 * command is 32 bits, as Linux's unsigned int: musl passes an int, so
 * _IOR commands (bit 31 set) arrive sign-extended.
 */
long
sys_ioctl(struct lwp *lp, const uint64_t *args)
{
	return kern_ioctl(&lp->lwp_proc->p_fs, (int)args[0],
	    (unsigned int)args[1], args[2]);
}

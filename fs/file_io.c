/*
 * read, write and their vector and positioned forms, lseek and ioctl: the
 * descriptor side of I/O, common to every kind of file.
 */
#include <fcntl.h>
#include <sys/ioctl.h>

#include "fs/file.h"
#include "fs/inotify.h"
#include "fs/ioctl.h"
#include "fs/vnode.h"
#include "kern/kernel.h"
#include "kern/uio.h"

/* Offsets belong to files that have them; pipes and devices do not. */
static bool
has_offset(const struct file *fp)
{
	return fp->f_type == DTYPE_VNODE;
}

/*
 * Cuts a write to a regular file short at the writer's RLIMIT_FSIZE, as
 * Linux's generic_write_check_limits: -EXFSZ if it would start there or
 * past it.
 */
static int
write_limit(struct fsproc *p, struct file *fp, struct uio *uio)
{
	if (p->fp_fsize == UINT64_MAX || fp->f_type != DTYPE_VNODE ||
	    fp->f_vnode->v_type != VREG)
		return 0;
	uint64_t pos = (fp->f_flag & O_APPEND) ? fp->f_vnode->v_size :
	    (uint64_t)uio->uio_offset;
	if (pos >= p->fp_fsize)
		return -EXFSZ;
	if (uio->uio_resid > p->fp_fsize - pos)
		uio->uio_resid = p->fp_fsize - pos;
	return 0;
}

/*
 * Runs one transfer: the bytes moved if any (a short count hides a late
 * error, as in Linux), else the error.
 */
static int64_t
dorw(struct fsproc *p, struct file *fp, struct uio *uio, int64_t offset,
    bool positioned)
{
	uint64_t resid0 = uio->uio_resid;
	bool write = uio->uio_rw == UIO_WRITE;
	int error;

	if (write ? !FWRITE(fp) : !FREAD(fp))
		return -EBADF;
	if (positioned) {
		if (fp->f_type == DTYPE_PIPE || fp->f_type == DTYPE_FIFO ||
		    fp->f_type == DTYPE_SOCKET)
			return -ESPIPE;
		if (offset < 0)
			return -EINVAL;
	}
	uio->uio_offset = positioned ? offset : fp->f_offset;
	if (resid0 == 0)
		return 0;
	if (write && (error = write_limit(p, fp, uio)) < 0)
		return error;
	resid0 = uio->uio_resid;
	error = write ? fp->f_ops->fo_write(fp, uio) :
	    fp->f_ops->fo_read(fp, uio);
	if (!positioned && has_offset(fp))
		fp->f_offset = uio->uio_offset;
	uint64_t moved = resid0 - uio->uio_resid;
	if (moved > 0 && fp->f_type == DTYPE_VNODE)
		inotify_file(fp, write ? IN_MODIFY : IN_ACCESS);
	return moved > 0 ? (int64_t)moved : error;
}

static int64_t
rw_fd(struct fsproc *p, int fd, struct uio *uio, int64_t offset,
    bool positioned)
{
	struct file *fp = fget(p, fd);
	if (fp == NULL)
		return -EBADF;
	int64_t ret = dorw(p, fp, uio, offset, positioned);
	fdrop(fp);
	return ret;
}

int64_t
kern_readv(struct fsproc *p, int fd, struct uio *uio)
{
	uio->uio_rw = UIO_READ;
	return rw_fd(p, fd, uio, 0, false);
}

int64_t
kern_writev(struct fsproc *p, int fd, struct uio *uio)
{
	uio->uio_rw = UIO_WRITE;
	return rw_fd(p, fd, uio, 0, false);
}

int64_t
kern_preadv(struct fsproc *p, int fd, struct uio *uio, int64_t offset)
{
	uio->uio_rw = UIO_READ;
	return rw_fd(p, fd, uio, offset, true);
}

int64_t
kern_pwritev(struct fsproc *p, int fd, struct uio *uio, int64_t offset)
{
	uio->uio_rw = UIO_WRITE;
	return rw_fd(p, fd, uio, offset, true);
}

int64_t
kern_lseek(struct fsproc *p, int fd, int64_t off, int whence)
{
	struct file *fp = fget(p, fd);
	if (fp == NULL)
		return -EBADF;
	int64_t ret = fp->f_ops->fo_lseek(fp, off, whence);
	fdrop(fp);
	return ret;
}

const struct ioctl_cmd fd_ioctls[] = {
	IOCTL_CMD(FIOCLEX, IOCD_NONE, 0),
	IOCTL_CMD(FIONCLEX, IOCD_NONE, 0),
	IOCTL_CMD(FIONBIO, IOCD_IN, sizeof(int)),
	IOCTL_CMD(FIOASYNC, IOCD_IN, sizeof(int)),
	IOCTL_END,
};

/* The commands of fd_ioctls, on the descriptor or its open file. */
static void
fd_ioctl(struct fsproc *p, int fd, struct file *fp, unsigned long cmd,
    const void *data)
{
	struct filedesc *fdp = p->fp_fd;
	int on;

	switch (cmd) {
	case FIOCLEX:
		fdp->fd_ofiles[fd].fde_flags |= FD_CLOEXEC;
		break;
	case FIONCLEX:
		fdp->fd_ofiles[fd].fde_flags &= ~FD_CLOEXEC;
		break;
	case FIONBIO:
	case FIOASYNC:
		memcpy(&on, data, sizeof(on));
		int flag = cmd == FIONBIO ? O_NONBLOCK : O_ASYNC;
		fp->f_flag = on ? fp->f_flag | flag : fp->f_flag & ~flag;
		break;
	}
}

/* Unknown commands: logged once each (a few of them). */
static void
ioctl_log_unknown(unsigned long cmd)
{
	static unsigned long seen[32];
	for (unsigned i = 0; i < nitems(seen); i++) {
		if (seen[i] == cmd)
			return;
		if (seen[i] == 0) {
			seen[i] = cmd;
			break;
		}
	}
	kprintf("ioctl: command %#lx not supported\n", cmd);
}

int
kern_ioctl(struct fsproc *p, int fd, unsigned long cmd, uint64_t arg)
{
	struct file *fp = fget(p, fd);
	const struct ioctl_cmd *ic;
	uint8_t data[IOCTL_ARGMAX];
	int ret = 0;

	if (fp == NULL)
		return -EBADF;
	bool generic = (ic = ioctl_cmd_find(fd_ioctls, cmd)) != NULL;
	if (!generic && fp->f_ops->fo_ioctls != NULL)
		ic = ioctl_cmd_find(fp->f_ops->fo_ioctls(fp), cmd);
	if (ic == NULL) {
		ioctl_log_unknown(cmd);
		fdrop(fp);
		return -ENOTTY;
	}
	KASSERT(ic->ic_size <= sizeof(data), "ioctl argument too big");
	memset(data, 0, sizeof(data));
	if (ic->ic_dir == IOCD_VALUE) {
		int v = (int)arg;
		memcpy(data, &v, sizeof(v));
	} else if ((ic->ic_dir & IOCD_IN) && copyin(arg, data, ic->ic_size) < 0) {
		ret = -EFAULT;
	}
	if (ret == 0 && generic)
		fd_ioctl(p, fd, fp, cmd, data);
	else if (ret == 0)
		ret = fp->f_ops->fo_ioctl(fp, cmd, data);
	if (ret == 0 && (ic->ic_dir & IOCD_OUT) &&
	    copyout(data, arg, ic->ic_size) < 0)
		ret = -EFAULT;
	fdrop(fp);
	return ret;
}

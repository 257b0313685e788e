/*
 * Open files of vnodes: regular files and directories go through the
 * vnode's operations; opening a fifo or a device hands the file to the
 * pipe code or the device's driver.
 */
#include <sys/ioctl.h>
#include <unistd.h>

#include "fs/bdev.h"
#include "fs/cdev.h"
#include "fs/ioctl.h"
#include "fs/pipe.h"
#include "fs/poll.h"
#include "fs/vfs.h"
#include "kern/uio.h"

void
vn_stat(struct vnode *vp, struct linux_stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_dev = vp->v_mount->mnt_dev;
	st->st_ino = vp->v_ino;
	st->st_nlink = vp->v_nlink;
	st->st_mode = vtype_to_ifmt(vp->v_type) | (vp->v_mode & 07777);
	st->st_uid = vp->v_uid;
	st->st_gid = vp->v_gid;
	st->st_rdev = vp->v_rdev;
	st->st_size = (int64_t)vp->v_size;
	st->st_blksize = PAGE_SIZE;
	st->st_blocks = (int64_t)vp->v_blocks;
	st->st_atime_sec = (uint64_t)vp->v_atime.tv_sec;
	st->st_atime_nsec = (uint64_t)vp->v_atime.tv_nsec;
	st->st_mtime_sec = (uint64_t)vp->v_mtime.tv_sec;
	st->st_mtime_nsec = (uint64_t)vp->v_mtime.tv_nsec;
	st->st_ctime_sec = (uint64_t)vp->v_ctime.tv_sec;
	st->st_ctime_nsec = (uint64_t)vp->v_ctime.tv_nsec;
}

static struct linux_statx_timestamp
statx_time(struct timespec ts)
{
	return (struct linux_statx_timestamp){ ts.tv_sec, (uint32_t)ts.tv_nsec, 0 };
}

void
vn_statx(struct vnode *vp, struct linux_statx *stx)
{
	memset(stx, 0, sizeof(*stx));
	stx->stx_mask = STATX_BASIC_STATS;
	stx->stx_blksize = PAGE_SIZE;
	stx->stx_nlink = vp->v_nlink;
	stx->stx_uid = vp->v_uid;
	stx->stx_gid = vp->v_gid;
	stx->stx_mode = (uint16_t)(vtype_to_ifmt(vp->v_type) | (vp->v_mode & 07777));
	stx->stx_ino = vp->v_ino;
	stx->stx_size = vp->v_size;
	stx->stx_blocks = vp->v_blocks;
	stx->stx_atime = statx_time(vp->v_atime);
	stx->stx_mtime = statx_time(vp->v_mtime);
	stx->stx_ctime = statx_time(vp->v_ctime);
	stx->stx_rdev_major = linux_major(vp->v_rdev);
	stx->stx_rdev_minor = linux_minor(vp->v_rdev);
	stx->stx_dev_major = linux_major(vp->v_mount->mnt_dev);
	stx->stx_dev_minor = linux_minor(vp->v_mount->mnt_dev);
}

static int
vn_read(struct file *fp, struct uio *uio)
{
	struct vnode *vp = fp->f_vnode;

	if (vp->v_type == VDIR)
		return -EISDIR;
	if (vp->v_type != VREG)
		return -EINVAL;
	return vp->v_op->vop_read(vp, uio);
}

static int
vn_write(struct file *fp, struct uio *uio)
{
	struct vnode *vp = fp->f_vnode;

	if (vp->v_type != VREG)
		return -EINVAL;
	if (fp->f_flag & O_APPEND)
		uio->uio_offset = (int64_t)vp->v_size;
	uint64_t resid0 = uio->uio_resid;
	int error = vp->v_op->vop_write(vp, uio);
	/* O_SYNC includes the O_DSYNC bit. */
	if ((fp->f_flag & O_DSYNC) && uio->uio_resid != resid0 &&
	    vp->v_op->vop_fsync != NULL) {
		int e = vp->v_op->vop_fsync(vp, (fp->f_flag & O_SYNC) != O_SYNC);
		if (error == 0)
			error = e;
	}
	return error;
}

/* Regular files answer FIONREAD, as Linux's file_ioctl. */
static const struct ioctl_cmd vn_ioctls[] = {
	IOCTL_CMD(FIONREAD, IOCD_OUT, sizeof(int)),
	IOCTL_END,
};

static const struct ioctl_cmd *
vn_ioctl_cmds(struct file *fp)
{
	return fp->f_vnode->v_type == VREG ? vn_ioctls : NULL;
}

/* FIONREAD: the bytes from the offset to the end. */
static int
vn_ioctl(struct file *fp, unsigned long cmd, void *data)
{
	struct vnode *vp = fp->f_vnode;
	int64_t left = (int64_t)vp->v_size - fp->f_offset;
	int n = (int)MAX(MIN(left, (int64_t)INT32_MAX), 0);

	(void)cmd;
	memcpy(data, &n, sizeof(n));
	return 0;
}

int
vn_poll(struct file *fp, int events, struct pollwaiter *pw)
{
	(void)fp, (void)pw;
	/* Files on a RAM file system never make anyone wait. */
	return events & (POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM);
}

int
vn_fstat(struct file *fp, struct linux_stat *st)
{
	vn_stat(fp->f_vnode, st);
	return 0;
}

static int64_t
vn_lseek(struct file *fp, int64_t off, int whence)
{
	struct vnode *vp = fp->f_vnode;
	int64_t base;

	switch (whence) {
	case SEEK_SET:
		base = 0;
		break;
	case SEEK_CUR:
		base = fp->f_offset;
		break;
	case SEEK_END:
		/* A directory's offsets are cookies: no end to count from. */
		if (vp->v_type == VDIR)
			return -EINVAL;
		base = (int64_t)vp->v_size;
		break;
	case SEEK_DATA:
	case SEEK_HOLE:
		/* Holes read as data here, so the whole file is data. */
		if (vp->v_type != VREG)
			return -EINVAL;
		if (off < 0)
			return -EINVAL;
		if ((uint64_t)off >= vp->v_size)
			return -ENXIO;
		fp->f_offset = whence == SEEK_DATA ? off : (int64_t)vp->v_size;
		return fp->f_offset;
	default:
		return -EINVAL;
	}
	if ((off > 0 && base > INT64_MAX - off) || base + off < 0)
		return -EINVAL;
	fp->f_offset = base + off;
	return fp->f_offset;
}

static void
vn_close(struct file *fp)
{
	vrele(fp->f_vnode);
}

const struct fileops vnops_fileops = {
	.fo_read = vn_read,
	.fo_write = vn_write,
	.fo_ioctls = vn_ioctl_cmds,
	.fo_ioctl = vn_ioctl,
	.fo_poll = vn_poll,
	.fo_stat = vn_fstat,
	.fo_lseek = vn_lseek,
	.fo_close = vn_close,
};

int
vn_open(struct vnode *vp, int fflags, struct file **fpp)
{
	if (vp->v_type == VSOCK) {
		vrele(vp);
		return -ENXIO;
	}
	struct file *fp = falloc(DTYPE_VNODE, fflags, &vnops_fileops);
	if (fp == NULL) {
		vrele(vp);
		return -ENOMEM;
	}
	fp->f_vnode = vp;
	int error = 0;
	if (vp->v_type == VFIFO)
		error = fifo_open(vp, fp);
	else if (vp->v_type == VCHR)
		error = cdev_open(vp, fp);
	else if (vp->v_type == VBLK)
		error = bdev_open(vp, fp);
	else if (vp->v_op->vop_open != NULL)
		error = vp->v_op->vop_open(vp, fp);
	if (error < 0) {
		/* Not opened as a fifo or device: closing just drops vp. */
		fp->f_ops = &vnops_fileops;
		fdrop(fp);
		return error;
	}
	/* O_NOCTTY and O_EXCL were for the open; Linux keeps them no further. */
	fp->f_flag &= ~(O_NOCTTY | O_EXCL);
	*fpp = fp;
	return 0;
}

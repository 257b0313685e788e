/*
 * O_PATH files: a descriptor that names a vnode without opening it, as
 * Linux's.  No file system or device hears of it (no vop_open, no
 * device open), and fget refuses it, so read, write, ioctl, mmap, locks
 * and the like give -EBADF; fget_raw's callers use it as a name: fstat,
 * a directory for the *at calls, fchdir, dup, F_GETFL.  glibc and musl
 * build fchmodat(AT_SYMLINK_NOFOLLOW) on it: open the last link with
 * O_PATH | O_NOFOLLOW, fstat it, chmod through /proc/self/fd/N.
 */
#include <poll.h>

#include "fs/vfs.h"

/* Unreachable through fget; there for the callers of fget_raw. */
static int
path_rw(struct file *fp, struct uio *uio)
{
	(void)fp;
	(void)uio;
	return -EBADF;
}

static int
path_ioctl(struct file *fp, unsigned long cmd, void *data)
{
	(void)fp;
	(void)cmd;
	(void)data;
	return -EBADF;
}

static int
path_poll(struct file *fp, int events, struct pollwaiter *pw)
{
	(void)fp;
	(void)events;
	(void)pw;
	return POLLNVAL;
}

static int64_t
path_lseek(struct file *fp, int64_t off, int whence)
{
	(void)fp;
	(void)off;
	(void)whence;
	return -EBADF;
}

static void
path_close(struct file *fp)
{
	vrele(fp->f_vnode);
}

const struct fileops pathops_fileops = {
	.fo_read = path_rw,
	.fo_write = path_rw,
	.fo_ioctl = path_ioctl,
	.fo_poll = path_poll,
	.fo_stat = vn_fstat,
	.fo_lseek = path_lseek,
	.fo_close = path_close,
};

int
vn_open_path(struct vnode *vp, int flags, struct file **fpp)
{
	if ((flags & O_DIRECTORY) && vp->v_type != VDIR) {
		vrele(vp);
		return -ENOTDIR;
	}
	/* Linux keeps these of the open's flags, and no O_LARGEFILE. */
	int fflags = flags & (O_PATH | O_DIRECTORY | O_NOFOLLOW);
	struct file *fp = falloc(DTYPE_PATH, fflags, &pathops_fileops);
	if (fp == NULL) {
		vrele(vp);
		return -ENOMEM;
	}
	fp->f_vnode = vp;
	*fpp = fp;
	return 0;
}

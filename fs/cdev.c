/*
 * The character-device switch and the open files of devices (see
 * cdev.h).  A device file is a vnode file whose operations call the
 * driver; the vnode supplies stat, so a device node in any directory
 * behaves the same.
 */
#include "fs/cdev.h"
#include "fs/poll.h"
#include "fs/vfs.h"
#include "kern/uio.h"

static const struct cdevsw *cdevs[CDEV_MAX];

int
cdev_register(const struct cdevsw *sw)
{
	dev_t dev = linux_makedev(sw->d_major, sw->d_minor);
	int slot = -1;

	for (int i = 0; i < CDEV_MAX; i++) {
		if (cdevs[i] == NULL) {
			if (slot < 0)
				slot = i;
		} else if (linux_makedev(cdevs[i]->d_major, cdevs[i]->d_minor) == dev) {
			return -EEXIST;
		}
	}
	if (slot < 0)
		return -ENOSPC;
	cdevs[slot] = sw;
	return 0;
}

const struct cdevsw *
cdev_lookup(dev_t dev)
{
	for (int i = 0; i < CDEV_MAX; i++)
		if (cdevs[i] != NULL &&
		    linux_makedev(cdevs[i]->d_major, cdevs[i]->d_minor) == dev)
			return cdevs[i];
	return NULL;
}

static int
dev_read(struct file *fp, struct uio *uio)
{
	const struct cdevsw *sw = fp->f_data;
	return sw->d_read != NULL ? sw->d_read(fp, uio) : -EINVAL;
}

static int
dev_write(struct file *fp, struct uio *uio)
{
	const struct cdevsw *sw = fp->f_data;
	return sw->d_write != NULL ? sw->d_write(fp, uio) : -EINVAL;
}

static const struct ioctl_cmd *
dev_ioctl_cmds(struct file *fp)
{
	const struct cdevsw *sw = fp->f_data;
	return sw->d_ioctls;
}

static int
dev_ioctl(struct file *fp, unsigned long cmd, void *data)
{
	const struct cdevsw *sw = fp->f_data;
	return sw->d_ioctl(fp, cmd, data);
}

bool
cdev_pollable(struct file *fp)
{
	const struct cdevsw *sw = fp->f_data;
	return sw->d_poll != NULL;
}

static int
dev_poll(struct file *fp, int events, struct pollwaiter *pw)
{
	const struct cdevsw *sw = fp->f_data;
	if (sw->d_poll != NULL)
		return sw->d_poll(fp, events, pw);
	return events & (POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM);
}

static int
dev_stat(struct file *fp, struct linux_stat *st)
{
	vn_stat(fp->f_vnode, st);
	return 0;
}

static int64_t
dev_lseek(struct file *fp, int64_t off, int whence)
{
	const struct cdevsw *sw = fp->f_data;
	return sw->d_lseek != NULL ? sw->d_lseek(fp, off, whence) : -ESPIPE;
}

static void
dev_close(struct file *fp)
{
	const struct cdevsw *sw = fp->f_data;
	if (sw->d_close != NULL)
		sw->d_close(fp);
	vrele(fp->f_vnode);
}

static const struct fileops dev_fileops = {
	.fo_read = dev_read,
	.fo_write = dev_write,
	.fo_ioctls = dev_ioctl_cmds,
	.fo_ioctl = dev_ioctl,
	.fo_poll = dev_poll,
	.fo_stat = dev_stat,
	.fo_lseek = dev_lseek,
	.fo_close = dev_close,
};

int
cdev_open(struct vnode *vp, struct file *fp)
{
	const struct cdevsw *sw = cdev_lookup(vp->v_rdev);
	if (sw == NULL)
		return -ENXIO;
	fp->f_data = (void *)sw;
	if (sw->d_open != NULL) {
		int error = sw->d_open(fp);
		if (error < 0)
			return error;
	}
	fp->f_type = DTYPE_DEV;
	fp->f_ops = &dev_fileops;
	return 0;
}

int
devfs_populate(struct vnode *dir)
{
	for (int i = 0; i < CDEV_MAX; i++) {
		const struct cdevsw *sw = cdevs[i];
		if (sw == NULL)
			continue;
		struct vnode *vp;
		int error = dir->v_op->vop_lookup(dir, sw->d_name, &vp);
		if (error == 0) {
			vrele(vp);
			continue;
		}
		if (error != -ENOENT)
			return error;
		struct vattr va = {
			.va_type = VCHR,
			.va_mode = sw->d_mode,
			.va_rdev = linux_makedev(sw->d_major, sw->d_minor),
		};
		if ((error = dir->v_op->vop_create(dir, sw->d_name, &va, &vp)) < 0)
			return error;
		vrele(vp);
	}
	return 0;
}

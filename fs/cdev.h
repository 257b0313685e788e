/*
 * Character devices: a switch of device drivers by device number, as
 * BSD's cdevsw.  A character-device vnode (a node in /dev, made by mknod,
 * the initramfs or devfs_populate) opens the driver registered under its
 * v_rdev; the open file then calls the driver's operations.
 *
 * The memory devices (null, zero, full, random, urandom) are built in;
 * the console and tty drivers register theirs with cdev_register.
 *
 * Locking: the big kernel lock.  Driver operations may sleep.
 */
#ifndef FS_CDEV_H
#define FS_CDEV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct file;
struct uio;
struct ucred;
struct vnode;
struct pollwaiter;

/*
 * A driver.  Every operation is optional: a missing open or close does
 * nothing, read and write give -EINVAL, no ioctl commands, poll reports
 * POLLIN|POLLOUT, lseek -ESPIPE.  Operations see the open file (fp); its
 * f_data is the cdevsw.  The contracts are those of struct fileops.
 */
struct cdevsw {
	const char *d_name;	/* its node's name in /dev */
	uint32_t d_major, d_minor;
	mode_t d_mode;		/* its node's permissions */
	int (*d_open)(struct file *fp);
	void (*d_close)(struct file *fp);
	int (*d_read)(struct file *fp, struct uio *uio);
	int (*d_write)(struct file *fp, struct uio *uio);
	/* The commands d_ioctl knows (fs/ioctl.h); NULL for none. */
	const struct ioctl_cmd *d_ioctls;
	int (*d_ioctl)(struct file *fp, unsigned long cmd, void *data);
	int (*d_poll)(struct file *fp, int events, struct pollwaiter *pw);
	int64_t (*d_lseek)(struct file *fp, int64_t off, int whence);
};

#define CDEV_MAX	64	/* registered drivers */

/*
 * Registers sw (which must stay valid) under its major and minor.
 * Returns 0, -EEXIST if that number is taken, -ENOSPC if the table is
 * full.
 */
int cdev_register(const struct cdevsw *sw);

/* The driver of device number dev (Linux encoding), or NULL. */
const struct cdevsw *cdev_lookup(dev_t dev);

/*
 * Opens character-device vnode vp into fp (whose flags are set): -ENXIO
 * if no driver has its number, else the driver's open.
 */
int cdev_open(struct vnode *vp, struct file *fp);

/* True if the device file fp has a poll of its own (d_poll). */
bool cdev_pollable(struct file *fp);

/*
 * Makes a node in directory dir (e.g. /dev) for each registered driver
 * that has none there yet, owned by root.  Returns 0 or the first error.
 */
int devfs_populate(struct vnode *dir);

/* Registers the built-in memory devices (dev/dev_mem.c). */
void dev_mem_init(void);

#endif /* FS_CDEV_H */

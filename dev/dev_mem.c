/*
 * The memory devices: /dev/null, /dev/zero, /dev/full, /dev/random and
 * /dev/urandom, with Linux's numbers (major 1).
 */

#include "fs/cdev.h"
#include "fs/vfs.h"
#include "host/random.h"
#include "kern/uio.h"

/* Only ever read: the source of /dev/zero and /dev/full. */
static char zeros[PAGE_SIZE];

/* Takes the whole write without looking at it. */
static int
mem_discard(struct file *fp, struct uio *uio)
{
	(void)fp;
	uio->uio_offset += (int64_t)uio->uio_resid;
	uio->uio_resid = 0;
	return 0;
}

static int
mem_eof(struct file *fp, struct uio *uio)
{
	(void)fp, (void)uio;
	return 0;
}

static int
mem_zeros(struct file *fp, struct uio *uio)
{
	(void)fp;
	while (uio->uio_resid > 0) {
		int error = uiomove(zeros, MIN(uio->uio_resid, PAGE_SIZE), uio);
		if (error < 0)
			return error;
	}
	return 0;
}

static int
mem_full(struct file *fp, struct uio *uio)
{
	(void)fp, (void)uio;
	return -ENOSPC;
}

static int
mem_random(struct file *fp, struct uio *uio)
{
	char buf[256];

	(void)fp;
	while (uio->uio_resid > 0) {
		size_t n = MIN(uio->uio_resid, sizeof(buf));
		if (host_random(buf, n) < 0)
			return -EIO;
		int error = uiomove(buf, n, uio);
		if (error < 0)
			return error;
	}
	return 0;
}

/* Seeking a memory device always lands at 0, as in Linux. */
static int64_t
mem_lseek(struct file *fp, int64_t off, int whence)
{
	(void)off, (void)whence;
	fp->f_offset = 0;
	return 0;
}

static const struct cdevsw mem_devs[] = {
	{ .d_name = "null", .d_major = 1, .d_minor = 3, .d_mode = 0666,
	  .d_read = mem_eof, .d_write = mem_discard, .d_lseek = mem_lseek },
	{ .d_name = "zero", .d_major = 1, .d_minor = 5, .d_mode = 0666,
	  .d_read = mem_zeros, .d_write = mem_discard, .d_lseek = mem_lseek },
	{ .d_name = "full", .d_major = 1, .d_minor = 7, .d_mode = 0666,
	  .d_read = mem_zeros, .d_write = mem_full, .d_lseek = mem_lseek },
	{ .d_name = "random", .d_major = 1, .d_minor = 8, .d_mode = 0666,
	  .d_read = mem_random, .d_write = mem_discard, .d_lseek = mem_lseek },
	{ .d_name = "urandom", .d_major = 1, .d_minor = 9, .d_mode = 0666,
	  .d_read = mem_random, .d_write = mem_discard, .d_lseek = mem_lseek },
};

void
dev_mem_init(void)
{
	for (size_t i = 0; i < nitems(mem_devs); i++)
		if (cdev_register(&mem_devs[i]) < 0)
			panic("dev_mem_init: %s registered twice", mem_devs[i].d_name);
}

/*
 * eventfd: a 64-bit counter as a file.  A write of 8 bytes adds to it,
 * waiting while the sum would pass UINT64_MAX - 1; a read of 8 bytes
 * takes it all (or 1 in semaphore mode), waiting while it is 0.  The
 * file is readable while the counter is above 0 and writable while 1
 * more would fit, as Linux's.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/eventfd.h>

#include "fs/anon_file.h"
#include "fs/event_files.h"
#include "fs/poll.h"
#include "kern/thread.h"
#include "kern/uio.h"
#include "kern/kmem.h"

#define EVENTFD_MAX	(UINT64_MAX - 1)	/* the counter's limit */

struct eventfd {
	uint64_t efd_count;
	bool efd_semaphore;
	struct selinfo efd_sel;
};

static const struct anon_fileops eventfd_ops;

/* The counter changed: sleepers on either side and pollers look again. */
static void
eventfd_wake(struct eventfd *efd)
{
	wakeup(efd);
	selwakeup(&efd->efd_sel);
}

/* Sleeps until the counter changes: 0 or -ERESTARTSYS. */
static int
eventfd_sleep(struct eventfd *efd, const char *wmesg)
{
	return tsleep(efd, PCATCH, wmesg, 0) == EINTR ? -ERESTARTSYS : 0;
}

static int
efd_read(struct file *fp, struct uio *uio)
{
	struct eventfd *efd = fp->f_data;
	int error;

	if (uio->uio_resid < sizeof(uint64_t))
		return -EINVAL;
	while (efd->efd_count == 0) {
		if (fp->f_flag & O_NONBLOCK)
			return -EAGAIN;
		if ((error = eventfd_sleep(efd, "efdread")) < 0)
			return error;
	}
	uint64_t v = efd->efd_semaphore ? 1 : efd->efd_count;
	if ((error = uiomove(&v, sizeof(v), uio)) < 0)
		return error;
	efd->efd_count -= v;
	eventfd_wake(efd);
	return 0;
}

static int
efd_write(struct file *fp, struct uio *uio)
{
	struct eventfd *efd = fp->f_data;
	uint64_t v;
	int error;

	/* Linux 6.18 takes writes of exactly 8 bytes (reads of 8 or more). */
	if (uio->uio_resid != sizeof(v))
		return -EINVAL;
	uint64_t resid0 = uio->uio_resid;
	if ((error = uiomove(&v, sizeof(v), uio)) < 0)
		return error;
	if (v == UINT64_MAX) {
		uio->uio_resid = resid0;	/* nothing written */
		return -EINVAL;
	}
	while (efd->efd_count > EVENTFD_MAX - v) {
		if ((fp->f_flag & O_NONBLOCK) ||
		    (error = eventfd_sleep(efd, "efdwrite")) < 0) {
			uio->uio_resid = resid0;
			return (fp->f_flag & O_NONBLOCK) ? -EAGAIN : error;
		}
	}
	if (v != 0) {
		efd->efd_count += v;
		eventfd_wake(efd);
	}
	return 0;
}

static int
efd_poll(struct file *fp, int events, struct pollwaiter *pw)
{
	struct eventfd *efd = fp->f_data;
	int revents = 0;

	selrecord(pw, &efd->efd_sel);
	if (efd->efd_count > 0)
		revents |= POLLIN | POLLRDNORM;
	if (efd->efd_count < EVENTFD_MAX)
		revents |= POLLOUT | POLLWRNORM;
	return revents & events;
}

static void
efd_close(struct file *fp)
{
	struct eventfd *efd = fp->f_data;
	seldrain(&efd->efd_sel);
	kfree(efd);
}

static const struct anon_fileops eventfd_ops = {
	.af_ops = {
		.fo_read = efd_read,
		.fo_write = efd_write,
		.fo_poll = efd_poll,
		.fo_stat = anonfile_stat,
		.fo_lseek = anonfile_lseek,
		.fo_close = efd_close,
	},
	.af_name = "[eventfd]",
};

int
kern_eventfd(struct fsproc *p, unsigned initval, int flags)
{
	if (flags & ~(EFD_CLOEXEC | EFD_NONBLOCK | EFD_SEMAPHORE))
		return -EINVAL;
	struct eventfd *efd = kmalloc(sizeof(*efd), KM_ZERO);
	if (efd == NULL)
		return -ENOMEM;
	efd->efd_count = initval;
	efd->efd_semaphore = (flags & EFD_SEMAPHORE) != 0;
	selinfo_init(&efd->efd_sel);
	struct file *fp = anonfile_alloc(&eventfd_ops, efd,
	    O_RDWR | (flags & O_NONBLOCK));
	if (fp == NULL) {
		kfree(efd);
		return -ENOMEM;
	}
	return anonfile_install(p, fp, flags & O_CLOEXEC);
}

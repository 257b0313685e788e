/*
 * timerfd: a timer read as a file.  The timer is a callout on the
 * kernel's uptime clock; an expiry adds to a count of expirations that a
 * read of 8 bytes takes (waiting while it is 0).  As in Linux, an
 * interval timer is not re-armed by its expiry but by the next read or
 * timerfd_gettime, which count the periods gone by since (Linux's
 * hrtimer_forward_now): a timer of a microsecond costs one callout per
 * read, not a million a second.
 *
 * CLOCK_MONOTONIC and CLOCK_BOOTTIME are the uptime clock (the kernel
 * does not suspend).  A CLOCK_REALTIME absolute time is turned into
 * uptime when the timer is set: the wall clock cannot be set in this
 * kernel (no clock_settime, settimeofday), so it never jumps and
 * TFD_TIMER_CANCEL_ON_SET is accepted but never cancels.  The *_ALARM
 * clocks need CAP_WAKE_ALARM (here: all capabilities) and are their
 * plain clocks: nothing sleeps to be woken.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/timerfd.h>
#include <time.h>

#include "fs/anon_file.h"
#include "fs/event_files.h"
#include "fs/poll.h"
#include "kern/thread.h"
#include "kern/timeout.h"
#include "kern/ucred.h"
#include "kern/uio.h"
#include "kern/kmem.h"

#define NSEC	1000000000LL

struct timerfd {
	int tfd_clock;
	uint64_t tfd_ticks;		/* expirations not read yet */
	uint64_t tfd_expire;		/* uptime of the next one; 0: disarmed */
	uint64_t tfd_interval;		/* ns; 0: one-shot */
	bool tfd_expired;		/* fired; an interval timer waits */
	struct callout tfd_callout;
	struct selinfo tfd_sel;
};

static const struct anon_fileops timerfd_ops;

static void
timerfd_expire(void *arg)
{
	struct timerfd *tfd = arg;

	tfd->tfd_ticks++;
	tfd->tfd_expired = true;
	if (tfd->tfd_interval == 0)
		tfd->tfd_expire = 0;
	wakeup(tfd);
	selwakeup(&tfd->tfd_sel);
}

/*
 * An interval timer that fired: counts the periods that went by since
 * its due time (the first is counted already) and arms the next.
 */
static void
timerfd_forward(struct timerfd *tfd)
{
	if (!tfd->tfd_expired || tfd->tfd_interval == 0)
		return;
	uint64_t now = nanouptime();
	uint64_t missed = now > tfd->tfd_expire ?
	    (now - tfd->tfd_expire) / tfd->tfd_interval : 0;
	tfd->tfd_ticks += missed;
	tfd->tfd_expire += (missed + 1) * tfd->tfd_interval;
	tfd->tfd_expired = false;
	callout_reset(&tfd->tfd_callout, tfd->tfd_expire - now, timerfd_expire,
	    tfd);
}

static int
timerfd_read(struct file *fp, struct uio *uio)
{
	struct timerfd *tfd = fp->f_data;
	int error;

	if (uio->uio_resid < sizeof(uint64_t))
		return -EINVAL;
	while (tfd->tfd_ticks == 0) {
		if (fp->f_flag & O_NONBLOCK)
			return -EAGAIN;
		if (tsleep(tfd, PCATCH, "timerfd", 0) == EINTR)
			return -ERESTARTSYS;
	}
	timerfd_forward(tfd);
	uint64_t v = tfd->tfd_ticks;
	if ((error = uiomove(&v, sizeof(v), uio)) < 0)
		return error;
	tfd->tfd_ticks = 0;
	return 0;
}

static int
timerfd_nowrite(struct file *fp, struct uio *uio)
{
	(void)fp, (void)uio;
	return -EINVAL;
}

static int
timerfd_poll(struct file *fp, int events, struct pollwaiter *pw)
{
	struct timerfd *tfd = fp->f_data;

	selrecord(pw, &tfd->tfd_sel);
	return tfd->tfd_ticks > 0 ? events & (POLLIN | POLLRDNORM) : 0;
}

static void
timerfd_close(struct file *fp)
{
	struct timerfd *tfd = fp->f_data;
	callout_stop(&tfd->tfd_callout);
	seldrain(&tfd->tfd_sel);
	kfree(tfd);
}

static const struct anon_fileops timerfd_ops = {
	.af_ops = {
		.fo_read = timerfd_read,
		.fo_write = timerfd_nowrite,
		.fo_poll = timerfd_poll,
		.fo_stat = anonfile_stat,
		.fo_lseek = anonfile_lseek,
		.fo_close = timerfd_close,
	},
	.af_name = "[timerfd]",
};

int
kern_timerfd_create(struct fsproc *p, const struct ucred *cr, int clock,
    int flags)
{
	if (flags & ~(TFD_CLOEXEC | TFD_NONBLOCK))
		return -EINVAL;
	switch (clock) {
	case CLOCK_REALTIME:
	case CLOCK_MONOTONIC:
	case CLOCK_BOOTTIME:
		break;
	case CLOCK_REALTIME_ALARM:
	case CLOCK_BOOTTIME_ALARM:
		if (!cred_is_root(cr))
			return -EPERM;
		break;
	default:
		return -EINVAL;
	}
	struct timerfd *tfd = kmalloc(sizeof(*tfd), KM_ZERO);
	if (tfd == NULL)
		return -ENOMEM;
	tfd->tfd_clock = clock;
	selinfo_init(&tfd->tfd_sel);
	struct file *fp = anonfile_alloc(&timerfd_ops, tfd,
	    O_RDWR | (flags & O_NONBLOCK));
	if (fp == NULL) {
		kfree(tfd);
		return -ENOMEM;
	}
	return anonfile_install(p, fp, flags & O_CLOEXEC);
}

static uint64_t
ts_ns(const struct timespec *ts)
{
	if ((uint64_t)ts->tv_sec >= (uint64_t)INT64_MAX / NSEC)
		return INT64_MAX;
	return (uint64_t)ts->tv_sec * NSEC + (uint64_t)ts->tv_nsec;
}

static void
ns_ts(uint64_t ns, struct timespec *ts)
{
	ts->tv_sec = (time_t)(ns / NSEC);
	ts->tv_nsec = (long)(ns % NSEC);
}

/* The timer of descriptor fd, referenced in *fpp; NULL: -EBADF/-EINVAL. */
static struct timerfd *
timerfd_get(struct fsproc *p, int fd, struct file **fpp, int *error)
{
	struct file *fp = fget(p, fd);
	*error = -EBADF;
	if (fp == NULL)
		return NULL;
	struct timerfd *tfd = anonfile_data(fp, &timerfd_ops);
	if (tfd == NULL) {
		fdrop(fp);
		*error = -EINVAL;
		return NULL;
	}
	*fpp = fp;
	return tfd;
}

static void
timerfd_value(struct timerfd *tfd, struct itimerspec *its)
{
	timerfd_forward(tfd);
	uint64_t now = nanouptime(), left = 0;
	if (tfd->tfd_expire != 0)
		left = tfd->tfd_expire > now ? tfd->tfd_expire - now : 1;
	ns_ts(left, &its->it_value);
	ns_ts(tfd->tfd_interval, &its->it_interval);
}

int
kern_timerfd_gettime(struct fsproc *p, int fd, struct itimerspec *cur)
{
	struct file *fp;
	int error;
	struct timerfd *tfd = timerfd_get(p, fd, &fp, &error);
	if (tfd == NULL)
		return error;
	timerfd_value(tfd, cur);
	fdrop(fp);
	return 0;
}

static bool
ts_valid(const struct timespec *ts)
{
	return ts->tv_sec >= 0 && ts->tv_nsec >= 0 && ts->tv_nsec < NSEC;
}

int
kern_timerfd_settime(struct fsproc *p, int fd, int flags,
    const struct itimerspec *new, struct itimerspec *old)
{
	if (flags & ~(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET))
		return -EINVAL;
	if (!ts_valid(&new->it_value) || !ts_valid(&new->it_interval))
		return -EINVAL;
	struct file *fp;
	int error;
	struct timerfd *tfd = timerfd_get(p, fd, &fp, &error);
	if (tfd == NULL)
		return error;
	timerfd_value(tfd, old);
	callout_stop(&tfd->tfd_callout);
	tfd->tfd_ticks = 0;
	tfd->tfd_expire = 0;
	tfd->tfd_expired = false;
	tfd->tfd_interval = ts_ns(&new->it_interval);
	uint64_t value = ts_ns(&new->it_value);
	if (value != 0) {
		uint64_t now = nanouptime(), delta = value;
		if (flags & TFD_TIMER_ABSTIME) {
			/* An absolute time on its clock, as a delay from now. */
			uint64_t clock_now = now;
			if (tfd->tfd_clock == CLOCK_REALTIME ||
			    tfd->tfd_clock == CLOCK_REALTIME_ALARM) {
				struct timespec ts;
				nanotime(&ts);
				clock_now = ts_ns(&ts);
			}
			delta = value > clock_now ? value - clock_now : 0;
		}
		tfd->tfd_expire = now + delta;
		callout_reset(&tfd->tfd_callout, delta, timerfd_expire, tfd);
	}
	fdrop(fp);
	return 0;
}

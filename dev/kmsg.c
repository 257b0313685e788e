/*
 * /dev/kmsg and /proc/kmsg, after Linux's (kernel/printk/printk.c,
 * fs/proc/kmsg.c).
 *
 * /dev/kmsg: each open has its own position, a sequence number starting
 * at the oldest record.  A read gives one record, "P,SEQ,USEC,-;text\n"
 * (EINVAL if it does not fit, and the record is passed), waits for one
 * (EAGAIN with O_NONBLOCK), and says EPIPE once when the ring overran
 * the position, which then moves to the oldest record.  lseek(0,
 * SEEK_SET) goes to the oldest record, SEEK_END past the newest,
 * SEEK_DATA to where dmesg -c last cleared.  A write is one record:
 * "<N>" in front gives its level (N & 7) and facility (N >> 3, user if
 * 0), a final newline is dropped; at most 10 writes an open every 5
 * seconds are logged (Linux's default ratelimit), the rest are taken and
 * dropped.
 *
 * /proc/kmsg: syslog(2)'s READ (shared position: what one reads, the
 * other does not see), root's only.
 *
 * Locking: the big kernel lock.
 */
#include <fcntl.h>
#include <poll.h>

#include "dev/kmsg.h"
#include "fs/cdev.h"
#include "fs/file.h"
#include "fs/poll.h"
#include "fs/vfs.h"
#include "kern/kmem.h"
#include "kern/msgbuf.h"
#include "kern/syslog.h"
#include "kern/thread.h"
#include "kern/uio.h"

#define KMSG_LINE_MAX	8192	/* Linux's CONSOLE_EXT_LOG_MAX */
#define KMSG_WRITE_MAX	1024	/* Linux's PRINTKRB_RECORD_MAX */

struct kmsg_user {
	uint64_t ku_seq;			/* the next record to read */
	struct klog_ratelimit ku_rl;		/* of its writes */
};

static struct selinfo kmsg_sel;

static void
kmsg_notify(void)
{
	selwakeup(&kmsg_sel);
}

static int
kmsg_open(struct file *fp)
{
	struct proc *p = curproc;
	if (FREAD(fp) && p != NULL) {
		int error = syslog_check(SYSLOG_ACTION_READ_ALL,
		    SYSLOG_FROM_READER, p->p_ucred);
		if (error < 0)
			return error;
	}
	struct kmsg_user *ku = kmalloc(sizeof(*ku), KM_ZERO);
	if (ku == NULL)
		return -ENOMEM;
	ku->ku_seq = msgbuf_first_seq();
	fp->f_devpriv = ku;
	return 0;
}

static void
kmsg_close(struct file *fp)
{
	kfree(fp->f_devpriv);
	fp->f_devpriv = NULL;
}

static int
kmsg_read(struct file *fp, struct uio *uio)
{
	struct kmsg_user *ku = fp->f_devpriv;
	struct msgrec r;

	while (msgbuf_get(ku->ku_seq, &r) < 0) {
		if (fp->f_flag & O_NONBLOCK)
			return -EAGAIN;
		if (tsleep(msgbuf_chan(), PCATCH, "kmsg", 0) == EINTR)
			return -ERESTARTSYS;
	}
	if (r.mr_seq != ku->ku_seq) {
		ku->ku_seq = r.mr_seq;	/* lost records: say so once */
		return -EPIPE;
	}
	ku->ku_seq = r.mr_seq + 1;
	size_t len = msgrec_kmsg(&r, NULL, 0);
	if (len > uio->uio_resid)
		return -EINVAL;
	char *buf = kmalloc(len, 0);
	if (buf == NULL)
		return -ENOMEM;
	msgrec_kmsg(&r, buf, len);
	int error = uiomove(buf, len, uio);
	kfree(buf);
	return error;
}

/* Linux's devkmsg_write: one record of the whole write. */
static int
kmsg_write(struct file *fp, struct uio *uio)
{
	struct kmsg_user *ku = fp->f_devpriv;
	size_t len = uio->uio_resid;
	char buf[KMSG_WRITE_MAX];

	if (len > KMSG_WRITE_MAX)
		return -EINVAL;
	if (!klog_ratelimit(&ku->ku_rl)) {
		uio->uio_resid = 0;
		return 0;
	}
	int error = uiomove(buf, len, uio);
	if (error < 0)
		return error;
	int level = 4, facility = LOG_FAC_USER;	/* Linux's defaults */
	const char *s = buf;
	if (len > 0 && buf[0] == '<') {
		size_t i = 1;
		unsigned v = 0;
		while (i < len && buf[i] >= '0' && buf[i] <= '9' && v < 100000000)
			v = v * 10 + (unsigned)(buf[i++] - '0');
		if (i > 1 && i < len && buf[i] == '>') {
			level = (int)(v & 7);
			if (v >> 3 != 0)
				facility = (int)(v >> 3) & 0xff;
			s = buf + i + 1;
		}
	}
	size_t n = len - (size_t)(s - buf);
	if (n > 0 && s[n - 1] == '\n')
		n--;
	log_emit(facility, level, s, n);
	return 0;
}

static int
kmsg_poll(struct file *fp, int events, struct pollwaiter *pw)
{
	struct kmsg_user *ku = fp->f_devpriv;
	int revents = 0;

	selrecord(pw, &kmsg_sel);
	if (ku->ku_seq < msgbuf_next_seq()) {
		revents = POLLIN | POLLRDNORM;
		if (ku->ku_seq < msgbuf_first_seq())
			revents |= POLLERR | POLLPRI;
	}
	return revents & (events | POLLERR);
}

static int64_t
kmsg_lseek(struct file *fp, int64_t off, int whence)
{
	struct kmsg_user *ku = fp->f_devpriv;

	if (off != 0)
		return -ESPIPE;
	switch (whence) {
	case SEEK_SET:
		ku->ku_seq = msgbuf_first_seq();
		return 0;
	case SEEK_DATA:
		ku->ku_seq = MAX(syslog_clear_seq(), msgbuf_first_seq());
		return 0;
	case SEEK_END:
		ku->ku_seq = msgbuf_next_seq();
		return 0;
	}
	return -EINVAL;
}

static const struct cdevsw kmsg_sw = {
	.d_name = "kmsg", .d_major = 1, .d_minor = 11, .d_mode = 0644,
	.d_open = kmsg_open, .d_close = kmsg_close,
	.d_read = kmsg_read, .d_write = kmsg_write,
	.d_poll = kmsg_poll, .d_lseek = kmsg_lseek,
};

void
kmsg_init(void)
{
	selinfo_init(&kmsg_sel);
	msgbuf_notify_hook = kmsg_notify;
	if (cdev_register(&kmsg_sw) < 0)
		panic("kmsg_init: registered twice");
}

/* /proc/kmsg */

static int
pkmsg_read(struct file *fp, struct uio *uio)
{
	if ((fp->f_flag & O_NONBLOCK) &&
	    kern_syslog(SYSLOG_ACTION_SIZE_UNREAD, NULL, 0, SYSLOG_FROM_PROC) == 0)
		return -EAGAIN;
	size_t len = MIN(uio->uio_resid, (size_t)INT32_MAX);
	len = MIN(len, (size_t)MSGBUF_SIZE);
	char *buf = kmalloc(len, 0);
	if (buf == NULL)
		return -ENOMEM;
	long n = kern_syslog(SYSLOG_ACTION_READ, buf, (int)len, SYSLOG_FROM_PROC);
	int error = n >= 0 ? uiomove(buf, (size_t)n, uio) : (int)n;
	kfree(buf);
	return error;
}

static int
pkmsg_write(struct file *fp, struct uio *uio)
{
	(void)fp, (void)uio;
	return -EBADF;
}

static int
pkmsg_poll(struct file *fp, int events, struct pollwaiter *pw)
{
	(void)fp;
	selrecord(pw, &kmsg_sel);
	if (kern_syslog(SYSLOG_ACTION_SIZE_UNREAD, NULL, 0, SYSLOG_FROM_PROC) > 0)
		return events & (POLLIN | POLLRDNORM);
	return 0;
}

static int
pkmsg_stat(struct file *fp, struct linux_stat *st)
{
	vn_stat(fp->f_vnode, st);
	return 0;
}

static int64_t
pkmsg_lseek(struct file *fp, int64_t off, int whence)
{
	(void)fp, (void)off, (void)whence;
	return -ESPIPE;
}

static void
pkmsg_close(struct file *fp)
{
	kern_syslog(SYSLOG_ACTION_CLOSE, NULL, 0, SYSLOG_FROM_PROC);
	vrele(fp->f_vnode);
}

static const struct fileops pkmsg_fileops = {
	.fo_read = pkmsg_read,
	.fo_write = pkmsg_write,
	.fo_poll = pkmsg_poll,
	.fo_stat = pkmsg_stat,
	.fo_lseek = pkmsg_lseek,
	.fo_close = pkmsg_close,
};

int
kmsg_proc_open(struct file *fp)
{
	struct proc *p = curproc;
	if (p != NULL) {
		int error = syslog_check(SYSLOG_ACTION_OPEN, SYSLOG_FROM_PROC,
		    p->p_ucred);
		if (error < 0)
			return error;
	}
	if (FWRITE(fp))
		return -EACCES;
	kern_syslog(SYSLOG_ACTION_OPEN, NULL, 0, SYSLOG_FROM_PROC);
	fp->f_ops = &pkmsg_fileops;
	return 0;
}

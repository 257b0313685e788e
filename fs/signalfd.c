/*
 * signalfd: the signals of a mask, read from the kernel's siginfo queues
 * (kern/kern_sig.c) as struct signalfd_siginfo, by the reading thread:
 * its own pending signals, then its process's, each taken off the queue
 * as the read consumes it.  The signals are meant to be blocked, so they
 * wake nobody; kern_sig.c calls signalfd_notify (signal_pending_hook,
 * set at the first signalfd) when one becomes pending, which wakes every
 * signalfd reader and poller (one wait list for all: they look at their
 * own pending sets again).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/signalfd.h>

#include "fs/anon_file.h"
#include "fs/event_files.h"
#include "fs/poll.h"
#include "kern/signal.h"
#include "kern/thread.h"
#include "kern/uio.h"
#include "kern/kmem.h"

_Static_assert(sizeof(struct signalfd_siginfo) == 128, "signalfd_siginfo");

struct signalfd {
	ksigset_t sfd_mask;
};

static struct selinfo signalfd_sel = { TAILQ_HEAD_INITIALIZER(signalfd_sel.si_entries) };

static const struct anon_fileops signalfd_ops;

static void
signalfd_notify(struct proc *p)
{
	(void)p;
	if (!TAILQ_EMPTY(&signalfd_sel.si_entries))
		selwakeup(&signalfd_sel);
}

/* The fields of info that Linux's signalfd copies, by its layout. */
static void
signalfd_fill(struct signalfd_siginfo *ssi, const siginfo_t *si)
{
	int sig = si->si_signo, code = si->si_code;

	memset(ssi, 0, sizeof(*ssi));
	ssi->ssi_signo = (uint32_t)sig;
	ssi->ssi_errno = si->si_errno;
	ssi->ssi_code = code;
	if (code > SI_USER && code < SI_KERNEL && (sig == SIGILL ||
	    sig == SIGFPE || sig == SIGSEGV || sig == SIGBUS || sig == SIGTRAP)) {
		ssi->ssi_addr = (uint64_t)si->si_addr;
	} else if (code > SI_USER && code < SI_KERNEL && sig == SIGCHLD) {
		ssi->ssi_pid = (uint32_t)si->si_pid;
		ssi->ssi_uid = si->si_uid;
		ssi->ssi_status = si->si_status;
		ssi->ssi_utime = (uint64_t)si->si_utime;
		ssi->ssi_stime = (uint64_t)si->si_stime;
	} else if (code > SI_USER && code < SI_KERNEL && sig == SIGPOLL) {
		ssi->ssi_band = (uint32_t)si->si_band;
		ssi->ssi_fd = si->si_fd;
	} else if (code == SI_TIMER) {
		ssi->ssi_tid = (uint32_t)si->si_timerid;
		ssi->ssi_overrun = (uint32_t)si->si_overrun;
		ssi->ssi_ptr = (uint64_t)si->si_ptr;
		ssi->ssi_int = si->si_int;
	} else if (code < 0 && code != SI_SIGIO) {
		/* sigqueue, tkill...: sender and value. */
		ssi->ssi_pid = (uint32_t)si->si_pid;
		ssi->ssi_uid = si->si_uid;
		ssi->ssi_ptr = (uint64_t)si->si_ptr;
		ssi->ssi_int = si->si_int;
	} else {
		/* kill (SI_USER), the kernel (SI_KERNEL). */
		ssi->ssi_pid = (uint32_t)si->si_pid;
		ssi->ssi_uid = si->si_uid;
	}
}

/* Signals of the mask pending for the calling thread. */
static ksigset_t
signalfd_pending(const struct signalfd *sfd)
{
	struct lwp *lp = curlwp;
	if (lp == NULL)
		return 0;
	return (lp->lwp_siglist | lp->lwp_proc->p_siglist) & sfd->sfd_mask;
}

static int
signalfd_read(struct file *fp, struct uio *uio)
{
	struct signalfd *sfd = fp->f_data;
	struct signalfd_siginfo ssi;
	siginfo_t info;
	int error, got = 0;

	if (uio->uio_resid < sizeof(ssi))
		return -EINVAL;
	while (uio->uio_resid >= sizeof(ssi)) {
		if (sigdequeue(curlwp, sfd->sfd_mask, &info) == 0) {
			if (got > 0)
				break;
			if (fp->f_flag & O_NONBLOCK)
				return -EAGAIN;
			struct pollwaiter pw;
			pollwaiter_init(&pw);
			selrecord(&pw, &signalfd_sel);
			error = pw.pw_error < 0 ? pw.pw_error : pollwaiter_sleep(&pw, 0);
			pollwaiter_done(&pw);
			if (error < 0)
				return error == -ERESTARTNOHAND ? -ERESTARTSYS : error;
			continue;
		}
		signalfd_fill(&ssi, &info);
		/* A signal taken and not delivered is lost, as in Linux. */
		if ((error = uiomove(&ssi, sizeof(ssi), uio)) < 0)
			return error;
		got++;
	}
	return 0;
}

static int
signalfd_nowrite(struct file *fp, struct uio *uio)
{
	(void)fp, (void)uio;
	return -EINVAL;
}

static int
signalfd_poll(struct file *fp, int events, struct pollwaiter *pw)
{
	struct signalfd *sfd = fp->f_data;

	selrecord(pw, &signalfd_sel);
	return signalfd_pending(sfd) != 0 ? events & (POLLIN | POLLRDNORM) : 0;
}

static void
signalfd_close(struct file *fp)
{
	kfree(fp->f_data);
}

static const struct anon_fileops signalfd_ops = {
	.af_ops = {
		.fo_read = signalfd_read,
		.fo_write = signalfd_nowrite,
		.fo_poll = signalfd_poll,
		.fo_stat = anonfile_stat,
		.fo_lseek = anonfile_lseek,
		.fo_close = signalfd_close,
	},
	.af_name = "[signalfd]",
};

int
kern_signalfd(struct fsproc *p, int fd, ksigset_t mask, int flags)
{
	if (flags & ~(SFD_CLOEXEC | SFD_NONBLOCK))
		return -EINVAL;
	mask &= ~SIG_CANTMASK;
	if (fd != -1) {
		struct file *fp = fget(p, fd);
		if (fp == NULL)
			return -EBADF;
		struct signalfd *sfd = anonfile_data(fp, &signalfd_ops);
		if (sfd != NULL) {
			sfd->sfd_mask = mask;
			/* Pollers of the new mask may be ready now. */
			selwakeup(&signalfd_sel);
		}
		fdrop(fp);
		return sfd != NULL ? fd : -EINVAL;
	}
	struct signalfd *sfd = kmalloc(sizeof(*sfd), KM_ZERO);
	if (sfd == NULL)
		return -ENOMEM;
	signal_pending_hook = signalfd_notify;
	sfd->sfd_mask = mask;
	struct file *fp = anonfile_alloc(&signalfd_ops, sfd,
	    O_RDWR | (flags & O_NONBLOCK));
	if (fp == NULL) {
		kfree(sfd);
		return -ENOMEM;
	}
	return anonfile_install(p, fp, flags & O_CLOEXEC);
}

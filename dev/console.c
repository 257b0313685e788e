/*
 * The console device, over the vkernel's standard input and output.
 * Reads never block the virtual CPU: when the host has no input, the
 * reader sleeps until the event thread reports standard input readable
 * (an INTR_DEVICE interrupt) and tries again.
 *
 * This is the plain pass-through mode (input as the host delivers it);
 * the terminal line discipline (raw host terminal, echo, erase, job
 * control characters) is not written yet.
 */
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <sys/epoll.h>

#include "dev/console.h"
#include "fs/cdev.h"
#include "fs/file.h"
#include "fs/namei.h"
#include "fs/poll.h"
#include "fs/vfs.h"
#include "fs/vnode.h"
#include "host/cpu.h"
#include "host/intr.h"
#include "kern/proc.h"
#include "kern/signal.h"
#include "kern/ucred.h"
#include "kern/uio.h"

#define CONS_CHUNK	4096

static struct intr_src *cons_src;
static struct selinfo cons_sel;
static int cons_wchan;

/* True if the host has input (or end of file) for us. */
static bool
cons_readable(void)
{
	struct pollfd pfd = { STDIN_FILENO, POLLIN, 0 };
	return poll(&pfd, 1, 0) > 0;
}

static int
cons_read(struct file *fp, struct uio *uio)
{
	char buf[CONS_CHUNK];

	while (!cons_readable()) {
		if (fp->f_flag & O_NONBLOCK)
			return -EAGAIN;
		if (tsleep(&cons_wchan, PCATCH, "ttyin", 0) != 0)
			return -EINTR;
	}
	ssize_t n = read(STDIN_FILENO, buf, MIN(sizeof(buf), uio->uio_resid));
	if (n < 0)
		return errno == EAGAIN ? -EAGAIN : -EIO;
	return uiomove(buf, (size_t)n, uio);
}

static int
cons_write(struct file *fp, struct uio *uio)
{
	char buf[CONS_CHUNK];
	(void)fp;
	while (uio->uio_resid > 0) {
		size_t n = MIN(sizeof(buf), uio->uio_resid);
		int error = uiomove(buf, n, uio);
		if (error < 0)
			return error;
		for (size_t off = 0; off < n; ) {
			ssize_t w = write(STDOUT_FILENO, buf + off, n - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return -EIO;
			off += (size_t)w;
		}
	}
	return 0;
}

/* The session the console is the controlling terminal of: init's. */
static struct session *
cons_session(void)
{
	return initproc != NULL && initproc->p_pgrp != NULL ?
	    initproc->p_pgrp->pg_session : NULL;
}

void
console_signal(int sig)
{
	struct session *s = cons_session();
	if (s != NULL)
		pgsignal(s->s_fgpgrp != NULL ? s->s_fgpgrp : initproc->p_pgrp, sig);
}

/* TIOCGPGRP and TIOCSPGRP: the foreground process group. */
static int
cons_pgrp(unsigned long cmd, void *data)
{
	struct session *s = cons_session();
	struct proc *p = curproc;
	pid_t pgid;

	if (s == NULL || p == NULL || p->p_pgrp->pg_session != s)
		return -ENOTTY;
	if (cmd == TIOCGPGRP) {
		pgid = s->s_fgpgrp != NULL ? s->s_fgpgrp->pg_id : initproc->p_pgrp->pg_id;
		memcpy(data, &pgid, sizeof(pgid));
		return 0;
	}
	memcpy(&pgid, data, sizeof(pgid));
	struct pgrp *pg = pgfind(pgid);
	if (pgid < 0)
		return -EINVAL;
	if (pg == NULL || pg->pg_session != s)
		return -EPERM;
	s->s_fgpgrp = pg;
	return 0;
}

static int
cons_ioctl(struct file *fp, unsigned long cmd, void *data)
{
	(void)fp;
	switch (cmd) {
	case TIOCGWINSZ: {
		struct winsize ws = { 24, 80, 0, 0 };
		(void)ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws);
		memcpy(data, &ws, sizeof(ws));
		return 0;
	}
	case TIOCGPGRP:
	case TIOCSPGRP:
		return cons_pgrp(cmd, data);
	case FIONREAD: {
		int n = 0;
		(void)ioctl(STDIN_FILENO, FIONREAD, &n);
		memcpy(data, &n, sizeof(n));
		return 0;
	}
	}
	return -ENOTTY;		/* not a terminal until the line discipline is */
}

static int
cons_poll(struct file *fp, int events, struct pollwaiter *pw)
{
	(void)fp;
	int revents = events & (POLLOUT | POLLWRNORM);
	if ((events & (POLLIN | POLLRDNORM)) && cons_readable())
		revents |= events & (POLLIN | POLLRDNORM);
	if (revents == 0 && pw != NULL)
		selrecord(pw, &cons_sel);
	return revents;
}

void
console_intr(uint32_t bits)
{
	if ((bits & INTR_DEVICE) && cons_src != NULL && intr_fired(cons_src)) {
		wakeup(&cons_wchan);
		selwakeup(&cons_sel);
		(void)intr_rearm(cons_src);
	}
}

static const struct cdevsw cons_sw = {
	.d_name = "console", .d_major = 5, .d_minor = 1, .d_mode = 0600,
	.d_read = cons_read, .d_write = cons_write, .d_ioctl = cons_ioctl,
	.d_poll = cons_poll,
};

static const struct cdevsw tty_sw = {
	.d_name = "tty", .d_major = 5, .d_minor = 0, .d_mode = 0666,
	.d_read = cons_read, .d_write = cons_write, .d_ioctl = cons_ioctl,
	.d_poll = cons_poll,
};

int
console_init(void)
{
	struct fsproc fsp;
	struct ucred *cr = crget();
	struct nameidata nd;
	int error;

	selinfo_init(&cons_sel);
	if (cr == NULL || fsproc_init(&fsp, rootvnode) < 0)
		return -ENOMEM;
	if ((error = cdev_register(&cons_sw)) < 0 ||
	    (error = cdev_register(&tty_sw)) < 0)
		goto out;
	error = kern_mkdirat(&fsp, cr, AT_FDCWD, "/dev", 0755);
	if (error < 0 && error != -EEXIST)
		goto out;
	if ((error = namei_at(&fsp, cr, AT_FDCWD, "/dev", NI_FOLLOW, &nd)) < 0)
		goto out;
	error = devfs_populate(nd.ni_vp);
	namei_done(&nd);
	if (error < 0)
		goto out;
	cons_src = intr_register(STDIN_FILENO, EPOLLIN, cpu_get(0));
	/* A file or /dev/null as stdin cannot be watched: it is always ready. */
	error = 0;
out:
	fsproc_exit(&fsp);
	crfree(cr);
	return error;
}

/*
 * Signal-driven I/O (see fasync.h).
 *
 * Linux keeps a list of fasync entries per object, and each driver calls
 * kill_fasync where its data arrives or room appears.  vkernel's objects
 * already tell their waiters through the selinfos a file's poll records
 * on, so a file with an owner keeps a waiter recorded there with a wake
 * function, as epoll does: one place serves pipes, fifos, sockets, ttys
 * and every other pollable file.  A read end's poll records on the
 * readers' list only, so it hears of data, and a write end of room, as
 * Linux's POLL_IN and POLL_OUT go.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>

#include "fs/fasync.h"
#include "fs/file.h"
#include "fs/poll.h"
#include "kern/kmem.h"
#include "kern/proc.h"
#include "kern/signal.h"
#include "kern/ucred.h"

struct fasync {
	struct pollwaiter fa_pw;	/* first: the wake function's pointer */
	struct file *fa_file;
	int fa_fd;			/* si_fd: the descriptor fcntl named */
	int fa_type;			/* FOWNER_* */
	pid_t fa_pid;			/* 0: no owner */
	int fa_sig;			/* F_SETSIG; 0: SIGIO */
	uid_t fa_uid, fa_euid;		/* who set the owner (sigio_perm) */
	bool fa_root;
	bool fa_recorded;		/* fa_pw is on the file's lists */
};

/* Linux's sigio_perm: the setter could have signalled the process. */
static bool
fasync_perm(const struct fasync *fa, const struct proc *p)
{
	const struct ucred *cr = p->p_ucred;
	return fa->fa_root || fa->fa_euid == cr->cr_svuid ||
	    fa->fa_euid == cr->cr_ruid || fa->fa_uid == cr->cr_svuid ||
	    fa->fa_uid == cr->cr_ruid;
}

/* The band and code of F_SETSIG's siginfo: what the file is ready for. */
static void
fasync_band(struct file *fp, siginfo_t *si)
{
	int ev = fp->f_ops->fo_poll(fp, POLLIN | POLLOUT | POLLPRI | POLLERR |
	    POLLHUP | POLLRDNORM | POLLWRNORM, NULL);
	si->si_band = ev;
	si->si_code = (ev & POLLHUP) ? POLL_HUP : (ev & POLLERR) ? POLL_ERR :
	    (ev & POLLPRI) ? POLL_PRI : (ev & POLLIN) ? POLL_IN : POLL_OUT;
}

static void
fasync_send(struct fasync *fa, struct proc *p, struct lwp *lp,
    const siginfo_t *si)
{
	if (p->p_state != PRS_NORMAL || !fasync_perm(fa, p))
		return;
	if (lp != NULL)
		(void)lwpsignal_info(lp, si);
	else
		(void)psignal_info(p, si);
}

/*
 * The wake function: the file changed.  Without O_ASYNC nothing goes.
 * SIGIO goes as Linux's, from the kernel; F_SETSIG's signal carries
 * the descriptor and the band, the band read by the file's poll (which
 * takes no lock a waking path holds).
 */
static bool
fasync_wake(struct pollwaiter *pw)
{
	struct fasync *fa = (struct fasync *)pw;
	struct file *fp = fa->fa_file;
	siginfo_t si;

	if (!(fp->f_flag & O_ASYNC) || fa->fa_pid == 0)
		return false;
	if (fa->fa_sig == 0) {
		siginfo_init(&si, SIGIO, SI_KERNEL, NULL);
	} else {
		siginfo_init(&si, fa->fa_sig, POLL_IN, NULL);
		si.si_fd = fa->fa_fd;
		fasync_band(fp, &si);
	}
	if (fa->fa_type == FOWNER_PGRP) {
		struct pgrp *pg = pgfind(fa->fa_pid);
		struct proc *p;
		if (pg != NULL)
			TAILQ_FOREACH(p, &pg->pg_members, p_pglist)
				fasync_send(fa, p, NULL, &si);
	} else if (fa->fa_type == FOWNER_TID) {
		struct lwp *lp = lwpfind(fa->fa_pid);
		if (lp != NULL)
			fasync_send(fa, lp->lwp_proc, lp, &si);
	} else {
		struct proc *p = pfind(fa->fa_pid);
		if (p != NULL)
			fasync_send(fa, p, NULL, &si);
	}
	return true;
}

/* At the file's last close (fdrop's hook): its waiter goes. */
static void
fasync_close(struct file *fp)
{
	struct fasync *fa = fp->f_async;
	pollwaiter_done(&fa->fa_pw);
	kfree(fa);
	fp->f_async = NULL;
}

/* fp's entry, made if it has none: NULL if memory is short. */
static struct fasync *
fasync_get(struct file *fp)
{
	if (fp->f_async != NULL)
		return fp->f_async;
	struct fasync *fa = kmalloc(sizeof(*fa), KM_ZERO);
	if (fa == NULL)
		return NULL;
	pollwaiter_init(&fa->fa_pw);
	fa->fa_pw.pw_wakefn = fasync_wake;
	fa->fa_file = fp;
	fa->fa_type = FOWNER_PID;
	file_async_close = fasync_close;
	fp->f_async = fa;
	return fa;
}

int
fasync_setown(struct file *fp, int fd, int type, pid_t pid,
    const struct ucred *cr)
{
	if (type != FOWNER_TID && type != FOWNER_PID && type != FOWNER_PGRP)
		return -EINVAL;
	if (pid != 0 && (type == FOWNER_PGRP ? pgfind(pid) == NULL :
	    type == FOWNER_TID ? lwpfind(pid) == NULL : pfind(pid) == NULL))
		return -ESRCH;
	if (pid == 0 && fp->f_async == NULL)
		return 0;
	struct fasync *fa = fasync_get(fp);
	if (fa == NULL)
		return -ENOMEM;
	fa->fa_fd = fd;
	fa->fa_type = type;
	fa->fa_pid = pid;
	fa->fa_uid = cr->cr_ruid;
	fa->fa_euid = cr->cr_uid;
	fa->fa_root = cred_is_root(cr);
	if (!fa->fa_recorded && file_pollable(fp)) {
		/* On every list of the file, whatever O_ASYNC says now. */
		(void)fp->f_ops->fo_poll(fp, POLLIN | POLLOUT | POLLPRI,
		    &fa->fa_pw);
		if (fa->fa_pw.pw_error < 0) {
			pollwaiter_done(&fa->fa_pw);
			fa->fa_pw.pw_error = 0;
			return -ENOMEM;
		}
		fa->fa_recorded = true;
	}
	return 0;
}

void
fasync_getown(struct file *fp, int *type, pid_t *pid)
{
	const struct fasync *fa = fp->f_async;
	*type = fa != NULL ? fa->fa_type : FOWNER_PID;
	*pid = fa != NULL ? fa->fa_pid : 0;
}

int
fasync_setsig(struct file *fp, int fd, int sig)
{
	if (sig < 0 || sig > 64)
		return -EINVAL;
	struct fasync *fa = fasync_get(fp);
	if (fa == NULL)
		return -ENOMEM;
	fa->fa_sig = sig;
	fa->fa_fd = fd;
	return 0;
}

int
fasync_getsig(struct file *fp)
{
	return fp->f_async != NULL ? fp->f_async->fa_sig : 0;
}

/*
 * pidfd: a file that names a process.  It keeps the process's pid and
 * start time, not a pointer: the process is looked up at each use and is
 * gone (ESRCH, POLLHUP) once reaped, even if its pid was given again.
 * It polls readable once the process has exited (a zombie, or reaped),
 * as Linux's for a thread-group leader.  kern_exit.c calls pidfd_notify
 * (pidfd_exit_hook, set at the first pidfd) at each exit and reaping; all
 * pidfd pollers share one wait list and look again.
 */
#include <errno.h>
#include <fcntl.h>

#include "fs/anon_file.h"
#include "fs/event_files.h"
#include "fs/poll.h"
#include "fs/procfs/procfs.h"
#include "kern/proc.h"
#include "kern/kmem.h"

struct pidfd {
	pid_t pfd_pid;
	uint64_t pfd_start;		/* p_start: this process, not a reuse */
};

static struct selinfo pidfd_sel = { TAILQ_HEAD_INITIALIZER(pidfd_sel.si_entries) };

static const struct anon_fileops pidfd_ops;

static void
pidfd_notify(struct proc *p)
{
	(void)p;
	if (!TAILQ_EMPTY(&pidfd_sel.si_entries))
		selwakeup(&pidfd_sel);
}

/* The process pfd names, or NULL once it was reaped. */
static struct proc *
pidfd_lookup(const struct pidfd *pfd)
{
	struct proc *p = pfind(pfd->pfd_pid);
	if (p == NULL || p->p_state == PRS_NEW || p->p_start != pfd->pfd_start)
		return NULL;
	return p;
}

static int
pidfd_noread(struct file *fp, struct uio *uio)
{
	(void)fp, (void)uio;
	return -EINVAL;
}

static int
pidfd_poll(struct file *fp, int events, struct pollwaiter *pw)
{
	struct proc *p = pidfd_lookup(fp->f_data);

	selrecord(pw, &pidfd_sel);
	if (p == NULL)
		return events & (POLLIN | POLLRDNORM | POLLHUP);
	if (p->p_state == PRS_ZOMBIE)
		return events & (POLLIN | POLLRDNORM);
	return 0;
}

static void
pidfd_close(struct file *fp)
{
	kfree(fp->f_data);
}

static const struct anon_fileops pidfd_ops = {
	.af_ops = {
		.fo_read = pidfd_noread,
		.fo_write = pidfd_noread,
		.fo_poll = pidfd_poll,
		.fo_stat = anonfile_stat,
		.fo_lseek = anonfile_lseek,
		.fo_close = pidfd_close,
	},
	.af_name = "[pidfd]",
};

int
kern_pidfd_open(struct fsproc *fsp, pid_t pid, int flags)
{
	if (flags & ~O_NONBLOCK)
		return -EINVAL;
	if (pid <= 0)
		return -EINVAL;
	struct proc *p = pfind(pid);
	if (p == NULL || p->p_state == PRS_NEW)
		return lwpfind(pid) != NULL ? -ENOENT : -ESRCH;
	struct pidfd *pfd = kmalloc(sizeof(*pfd), KM_ZERO);
	if (pfd == NULL)
		return -ENOMEM;
	pidfd_exit_hook = pidfd_notify;
	pidfd_pid_hook = pidfd_pid;
	pfd->pfd_pid = pid;
	pfd->pfd_start = p->p_start;
	struct file *fp = anonfile_alloc(&pidfd_ops, pfd, O_RDWR | flags);
	if (fp == NULL) {
		kfree(pfd);
		return -ENOMEM;
	}
	return anonfile_install(fsp, fp, O_CLOEXEC);
}

/* The pidfd open on fd, referenced in *fpp; NULL with *error. */
static struct pidfd *
pidfd_get(struct fsproc *fsp, int fd, struct file **fpp, int *error)
{
	struct file *fp = fget(fsp, fd);
	*error = -EBADF;
	if (fp == NULL)
		return NULL;
	struct pidfd *pfd = anonfile_data(fp, &pidfd_ops);
	if (pfd == NULL) {		/* Linux 6.18: EBADF, no longer EINVAL */
		fdrop(fp);
		return NULL;
	}
	*fpp = fp;
	return pfd;
}

struct proc *
pidfd_proc(struct fsproc *fsp, int fd, bool *nonblock, int *error)
{
	struct file *fp;
	struct pidfd *pfd = pidfd_get(fsp, fd, &fp, error);
	if (pfd == NULL)
		return NULL;
	struct proc *p = pidfd_lookup(pfd);
	*nonblock = (fp->f_flag & O_NONBLOCK) != 0;
	fdrop(fp);
	if (p == NULL)
		*error = -ESRCH;
	return p;
}

struct proc *
pidfd_signal_proc(struct fsproc *fsp, int fd, int *error)
{
	bool nonblock;
	struct proc *p = pidfd_proc(fsp, fd, &nonblock, error);
	if (p != NULL || *error != -EBADF)
		return p;
	struct file *fp = fget(fsp, fd);
	if (fp == NULL)
		return NULL;
	pid_t pid = procfs_dir_pid(fp);
	fdrop(fp);
	if (pid == 0)
		return NULL;		/* -EBADF */
	if ((p = procfs_proc(pid)) == NULL)
		*error = -ESRCH;
	return p;
}

pid_t
pidfd_pid(struct fsproc *fsp, int fd, bool *nonblock)
{
	struct file *fp;
	int error;
	struct pidfd *pfd = pidfd_get(fsp, fd, &fp, &error);
	if (pfd == NULL)
		return error;
	pid_t pid = pfd->pfd_pid;
	*nonblock = (fp->f_flag & O_NONBLOCK) != 0;
	fdrop(fp);
	return pid;
}

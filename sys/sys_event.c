/*
 * The system calls of the event files (fs/event_files.h): eventfd,
 * eventfd2, timerfd_create, timerfd_settime, timerfd_gettime, signalfd,
 * signalfd4, pidfd_open and pidfd_getfd; inotify's (fs/inotify.h).  pidfd_send_signal is with the
 * other senders in sys_sig.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <time.h>

#include "fs/event_files.h"
#include "fs/file.h"
#include "fs/inotify.h"
#include "kern/signal.h"
#include "kern/ucred.h"
#include "sys/syscall.h"
#include "kern/kmem.h"

#define P	(&lp->lwp_proc->p_fs)

long
sys_eventfd(struct lwp *lp, const uint64_t *args)
{
	return kern_eventfd(P, (unsigned)args[0], 0);
}

long
sys_eventfd2(struct lwp *lp, const uint64_t *args)
{
	return kern_eventfd(P, (unsigned)args[0], (int)args[1]);
}

long
sys_timerfd_create(struct lwp *lp, const uint64_t *args)
{
	return kern_timerfd_create(P, lp->lwp_proc->p_ucred, (int)args[0],
	    (int)args[1]);
}

/* timerfd_settime(fd, flags, new, old) */
long
sys_timerfd_settime(struct lwp *lp, const uint64_t *args)
{
	struct itimerspec new, old;
	if (copyin(args[2], &new, sizeof(new)) < 0)
		return -EFAULT;
	int error = kern_timerfd_settime(P, (int)args[0], (int)args[1], &new, &old);
	if (error == 0 && args[3] != 0 && copyout(&old, args[3], sizeof(old)) < 0)
		return -EFAULT;
	return error;
}

long
sys_timerfd_gettime(struct lwp *lp, const uint64_t *args)
{
	struct itimerspec cur;
	int error = kern_timerfd_gettime(P, (int)args[0], &cur);
	if (error == 0 && copyout(&cur, args[1], sizeof(cur)) < 0)
		return -EFAULT;
	return error;
}

/* signalfd4(fd, mask, sizemask, flags) */
static long
signalfd1(struct lwp *lp, int fd, uint64_t umask, uint64_t size, int flags)
{
	ksigset_t mask;
	if (size != sizeof(mask))
		return -EINVAL;
	if (copyin(umask, &mask, sizeof(mask)) < 0)
		return -EFAULT;
	return kern_signalfd(P, fd, mask, flags);
}

long
sys_signalfd(struct lwp *lp, const uint64_t *args)
{
	return signalfd1(lp, (int)args[0], args[1], args[2], 0);
}

long
sys_signalfd4(struct lwp *lp, const uint64_t *args)
{
	return signalfd1(lp, (int)args[0], args[1], args[2], (int)args[3]);
}

long
sys_pidfd_open(struct lwp *lp, const uint64_t *args)
{
	return kern_pidfd_open(P, (pid_t)args[0], (int)args[1]);
}

/*
 * pidfd_getfd(pidfd, targetfd, flags): a copy of another process's
 * descriptor, close-on-exec, for a caller that may trace it: root, or
 * the owner of a dumpable process (Linux's PTRACE_MODE_ATTACH_REALCREDS).
 */
long
sys_pidfd_getfd(struct lwp *lp, const uint64_t *args)
{
	int error;
	bool nonblock;

	if (args[2] != 0)
		return -EINVAL;
	struct proc *p = pidfd_proc(P, (int)args[0], &nonblock, &error);
	if (p == NULL)
		return error;
	const struct ucred *cr = lp->lwp_proc->p_ucred, *tcr = p->p_ucred;
	if (!cred_is_root(cr) && (p->p_flags & P_NOTDUMPABLE ||
	    tcr->cr_uid != cr->cr_ruid || tcr->cr_ruid != cr->cr_ruid ||
	    tcr->cr_svuid != cr->cr_ruid))
		return -EPERM;
	if (p->p_state != PRS_NORMAL || p->p_fs.fp_fd == NULL)
		return -ESRCH;
	struct file *fp = fget(&p->p_fs, (int)args[1]);
	if (fp == NULL)
		return -EBADF;
	int fd = fdalloc(P, fp, 0, FD_CLOEXEC);
	fdrop(fp);
	return fd;
}

long
sys_inotify_init(struct lwp *lp, const uint64_t *args __unused)
{
	return kern_inotify_init(P, 0);
}

long
sys_inotify_init1(struct lwp *lp, const uint64_t *args)
{
	return kern_inotify_init(P, (int)args[0]);
}

/* inotify_add_watch(fd, path, mask) */
long
sys_inotify_add_watch(struct lwp *lp, const uint64_t *args)
{
	int error;
	char *path = copyin_path(args[1], &error);
	if (path == NULL)
		return error;
	error = kern_inotify_add_watch(P, lp->lwp_proc->p_ucred, (int)args[0],
	    path, (uint32_t)args[2]);
	kfree(path);
	return error;
}

long
sys_inotify_rm_watch(struct lwp *lp, const uint64_t *args)
{
	return kern_inotify_rm_watch(P, (int)args[0], (int)args[1]);
}

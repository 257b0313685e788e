/*
 * exit, exit_group and the waits (wait4, waitid): the argument decoding
 * over exit1, lwp_exit and kern_wait (proc/kern_exit.c).
 */
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "kern/proc.h"
#include "sys/syscall.h"

long
sys_exit_group(struct lwp *lp, const uint64_t *args)
{
	(void)lp;
	exit1(W_EXITCODE((int)args[0] & 0xff, 0));
}

/*
 * exit(status): ends the calling thread; the last one ends the process
 * with its status (as Linux, even when the leader ended before it).
 */
long
sys_exit(struct lwp *lp, const uint64_t *args)
{
	if (lp->lwp_proc->p_nlwps > 1)
		lwp_exit();
	return sys_exit_group(lp, args);
}

/* wait4's options over kern_wait's; *status is wait4's status word. */
static long
kern_wait4(struct lwp *lp, pid_t pid, int *status, int options,
    struct rusage *ru)
{
	struct wait_result wr = { 0 };
	if (options & ~(WNOHANG | WUNTRACED | WCONTINUED | __WALL | __WCLONE))
		return -EINVAL;
	long r = kern_wait(lp, pid, (options & ~WUNTRACED) | WEXITED |
	    ((options & WUNTRACED) ? WSTOPPED : 0), &wr, ru);
	if (r > 0)
		*status = wr.status;
	return r;
}

long
sys_wait4(struct lwp *lp, const uint64_t *args)
{
	struct rusage ru;
	int status = 0;
	long r = kern_wait4(lp, (pid_t)args[0], &status, (int)args[2],
	    args[3] != 0 ? &ru : NULL);
	if (r > 0 && args[1] != 0 && copyout(&status, args[1], sizeof(status)) < 0)
		return -EFAULT;
	if (r > 0 && args[3] != 0 && copyout(&ru, args[3], sizeof(ru)) < 0)
		return -EFAULT;
	return r;
}

/* waitid(idtype, id, infop, options, rusage); pidfds are not kept. */
long
sys_waitid(struct lwp *lp, const uint64_t *args)
{
	int idtype = (int)args[0], options = (int)args[3];
	pid_t id = (pid_t)args[1], pid;
	struct wait_result wr = { 0 };
	struct rusage ru;

	if ((options & ~(WNOHANG | WNOWAIT | WEXITED | WSTOPPED | WCONTINUED |
	    __WALL | __WCLONE | __WNOTHREAD)) ||
	    !(options & (WEXITED | WSTOPPED | WCONTINUED)))
		return -EINVAL;
	switch (idtype) {
	case P_ALL:
		pid = -1;
		break;
	case P_PID:
		if (id <= 0)
			return -EINVAL;
		pid = id;
		break;
	case P_PGID:
		if (id < 0)
			return -EINVAL;
		pid = id == 0 ? 0 : -id;
		break;
	default:
		return -EINVAL;		/* P_PIDFD: there are no pidfds */
	}
	long r = kern_wait(lp, pid, options, &wr, args[4] != 0 ? &ru : NULL);
	if (r < 0)
		return r;
	if (args[2] != 0) {
		/*
		 * The fields of SIGCHLD's siginfo that Linux stores (all 0 if
		 * nothing was found); the rest of the caller's is left alone.
		 */
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		if (r > 0) {
			si.si_signo = SIGCHLD;
			si.si_code = wr.code;
			si.si_pid = wr.pid;
			si.si_uid = wr.uid;
			si.si_status = wr.cld_status;
		}
		size_t head = offsetof(siginfo_t, si_code) + sizeof(si.si_code);
		size_t off = offsetof(siginfo_t, si_pid);
		size_t end = offsetof(siginfo_t, si_status) + sizeof(si.si_status);
		if (copyout(&si, args[2], head) < 0 ||
		    copyout((char *)&si + off, args[2] + off, end - off) < 0)
			return -EFAULT;
	}
	if (r > 0 && args[4] != 0 && copyout(&ru, args[4], sizeof(ru)) < 0)
		return -EFAULT;
	return 0;
}

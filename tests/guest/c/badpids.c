/*
 * Hostile pid arguments: negative, zero, INT_MIN (whose negation does not
 * exist) and pids of no process, to every call that takes one.  Each
 * gives Linux's errno, and the caller lives on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *
res(long r)
{
	static char buf[32];
	if (r >= 0)
		return r == 0 ? "0" : "=pid";
	switch (errno) {
	case EINVAL: return "EINVAL";
	case ESRCH: return "ESRCH";
	case EPERM: return "EPERM";
	case ECHILD: return "ECHILD";
	}
	snprintf(buf, sizeof(buf), "errno %d", errno);
	return buf;
}

#define TRY(label, expr) do {						\
	errno = 0;							\
	long r_ = (long)(expr);						\
	printf("%-26s %s\n", label, res(r_));				\
} while (0)

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct rlimit rl;
	int status;

	/* A pid that was a process's and is no more. */
	pid_t gone = fork();
	if (gone == 0)
		_exit(0);
	waitpid(gone, &status, 0);

	TRY("kill INT_MIN", syscall(SYS_kill, INT_MIN, 0));
	TRY("kill -INT_MAX", syscall(SYS_kill, -INT_MAX, 0));
	TRY("kill gone", syscall(SYS_kill, gone, 0));
	TRY("kill -gone", syscall(SYS_kill, -gone, 0));
	TRY("kill bad signal", syscall(SYS_kill, getpid(), 65));
	TRY("kill -1 signal", syscall(SYS_kill, getpid(), -1));
	TRY("tgkill tgid -1", syscall(SYS_tgkill, -1, getpid(), 0));
	TRY("tgkill tid -5", syscall(SYS_tgkill, getpid(), -5, 0));
	TRY("tgkill tid 0", syscall(SYS_tgkill, getpid(), 0, 0));
	TRY("tgkill INT_MIN", syscall(SYS_tgkill, INT_MIN, INT_MIN, 0));
	TRY("tgkill wrong tgid", syscall(SYS_tgkill, gone, getpid(), 0));
	TRY("tgkill self", syscall(SYS_tgkill, getpid(), getpid(), 0));
	TRY("tkill -5", syscall(SYS_tkill, -5, 0));
	TRY("tkill 0", syscall(SYS_tkill, 0, 0));
	TRY("tkill INT_MIN", syscall(SYS_tkill, INT_MIN, 0));
	TRY("tkill gone", syscall(SYS_tkill, gone, 0));
	TRY("getpgid -5", syscall(SYS_getpgid, -5));
	TRY("getpgid INT_MIN", syscall(SYS_getpgid, INT_MIN));
	TRY("getpgid gone", syscall(SYS_getpgid, gone));
	TRY("getsid -5", syscall(SYS_getsid, -5));
	TRY("getsid INT_MIN", syscall(SYS_getsid, INT_MIN));
	TRY("setpgid -5", syscall(SYS_setpgid, -5, 0));
	TRY("setpgid INT_MIN", syscall(SYS_setpgid, INT_MIN, 0));
	TRY("setpgid pgid -1", syscall(SYS_setpgid, 0, -1));
	TRY("setpgid pgid INT_MIN", syscall(SYS_setpgid, 0, INT_MIN));
	TRY("setpgid gone", syscall(SYS_setpgid, gone, gone));
	TRY("prlimit64 -5", syscall(SYS_prlimit64, -5, RLIMIT_NOFILE, NULL, &rl));
	TRY("prlimit64 INT_MIN", syscall(SYS_prlimit64, INT_MIN, RLIMIT_NOFILE, NULL, &rl));
	TRY("wait4 INT_MIN", syscall(SYS_wait4, INT_MIN, &status, WNOHANG, NULL));
	TRY("wait4 -INT_MAX", syscall(SYS_wait4, -INT_MAX, &status, WNOHANG, NULL));
	TRY("wait4 gone", syscall(SYS_wait4, gone, &status, WNOHANG, NULL));
	TRY("wait4 bad options", syscall(SYS_wait4, -1, &status, 0x10000, NULL));

	/* With a child to wait for, INT_MIN still names nobody. */
	pid_t kid = fork();
	if (kid == 0)
		_exit(3);
	TRY("wait4 INT_MIN, a child", syscall(SYS_wait4, INT_MIN, &status, 0, NULL));
	TRY("wait4 the child", syscall(SYS_wait4, kid, &status, 0, NULL));
	printf("%-26s %d\n", "it exited", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	printf("survived\n");
	return 0;
}

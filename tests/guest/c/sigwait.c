/*
 * rt_sigtimedwait (sigwaitinfo, sigtimedwait): a pending signal at once
 * with its siginfo, one sent while waiting, EAGAIN on a timeout (zero or
 * not), EINTR by a handled signal outside the set, its errors; SIGCHLD's
 * siginfo for a child that exits, is killed, dumps core, stops and
 * continues, as sigwaitinfo and a handler see it, and waitid's beside.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pid_t me;

static const char *
code_name(int sig, int code)
{
	if (sig == SIGCHLD && code > 0) {
		switch (code) {
		case CLD_EXITED:	return "CLD_EXITED";
		case CLD_KILLED:	return "CLD_KILLED";
		case CLD_DUMPED:	return "CLD_DUMPED";
		case CLD_STOPPED:	return "CLD_STOPPED";
		case CLD_CONTINUED:	return "CLD_CONTINUED";
		}
	}
	switch (code) {
	case SI_USER:	return "SI_USER";
	case SI_TKILL:	return "SI_TKILL";
	case SI_QUEUE:	return "SI_QUEUE";
	case SI_KERNEL:	return "SI_KERNEL";
	default:	return "?";
	}
}

static void
show(const char *what, int r, const siginfo_t *si, pid_t from)
{
	if (r < 0) {
		printf("%s: %s\n", what, strerror(errno));
		return;
	}
	printf("%s: %d, signo %d, %s, pid %s", what, r - (r >= SIGRTMIN ?
	    SIGRTMIN : 0), si->si_signo, code_name(si->si_signo, si->si_code),
	    si->si_pid == from ? "expected" : si->si_pid == 0 ? "0" : "other");
	if (si->si_code == SI_QUEUE)
		printf(", value %d", si->si_value.sival_int);
	if (si->si_signo == SIGCHLD)
		printf(", status %d, uid %d", si->si_status, (int)si->si_uid);
	printf("\n");
}

static volatile sig_atomic_t got;
static siginfo_t got_info;

static void
handler(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	got = sig;
	got_info = *si;
}

static void
catch(int sig, int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO | flags;
	sigaction(sig, &sa, NULL);
}

/* A child that waits in pause() for its parent's signals. */
static pid_t
child_paused(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

int
main(void)
{
	sigset_t set, all, none;
	siginfo_t si;
	struct timespec zero = { 0, 0 }, short_ts = { 0, 50000000 };
	setvbuf(stdout, NULL, _IONBF, 0);
	me = getpid();
	sigfillset(&all);
	sigemptyset(&none);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGRTMIN + 1);
	sigprocmask(SIG_BLOCK, &set, NULL);

	/* Pending already: the lowest first, each with its siginfo. */
	union sigval v = { .sival_int = 42 };
	sigqueue(me, SIGRTMIN + 1, v);
	kill(me, SIGUSR1);
	memset(&si, 0, sizeof(si));
	show("pending USR1", sigwaitinfo(&set, &si), &si, me);
	memset(&si, 0, sizeof(si));
	show("pending RT+1", sigtimedwait(&set, &si, &zero), &si, me);
	show("none, zero timeout", sigtimedwait(&set, &si, &zero), &si, me);
	show("none, 50 ms", sigtimedwait(&set, &si, &short_ts), &si, me);
	/* NULL info: the signal alone. */
	raise(SIGUSR1);
	printf("NULL info: %d\n", sigwaitinfo(&set, NULL));

	/* Sent while it waits, by a child. */
	pid_t pid = fork();
	if (pid == 0) {
		usleep(50000);
		sigqueue(getppid(), SIGRTMIN + 1, v);
		_exit(0);
	}
	memset(&si, 0, sizeof(si));
	show("sent while waiting", sigwaitinfo(&set, &si), &si, pid);
	waitpid(pid, NULL, 0);

	/* A handled signal outside the set ends the wait: EINTR. */
	catch(SIGALRM, SA_RESTART);
	alarm(1);
	/* (musl's sigwaitinfo retries on EINTR: the call itself.) */
	show("interrupted", syscall(SYS_rt_sigtimedwait, &set, &si, NULL, 8), &si, 0);
	printf("handler got %d, code %s\n", got, code_name(got, got_info.si_code));

	/* Errors. */
	show("bad set", syscall(SYS_rt_sigtimedwait, (void *)16, &si, NULL, 8), &si, 0);
	show("bad size", syscall(SYS_rt_sigtimedwait, &set, &si, NULL, 4), &si, 0);
	struct timespec bad = { 0, 1000000000 };
	show("bad timeout", sigtimedwait(&set, &si, &bad), &si, 0);
	bad.tv_sec = -1;
	bad.tv_nsec = 0;
	show("negative timeout", sigtimedwait(&set, &si, &bad), &si, 0);
	kill(me, SIGUSR1);
	show("bad info", syscall(SYS_rt_sigtimedwait, &set, (void *)16, &zero, 8), &si, 0);
	show("taken by then", sigtimedwait(&set, &si, &zero), &si, 0);

	/*
	 * SIGCHLD, blocked and taken by sigwaitinfo: exit, kill, core,
	 * stop, continue.
	 */
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	pid = fork();
	if (pid == 0)
		_exit(7);
	memset(&si, 0, sizeof(si));
	show("exited", sigwaitinfo(&chld, &si), &si, pid);
	memset(&si, 0, sizeof(si));
	show("waitid", waitid(P_PID, pid, &si, WEXITED) < 0 ? -1 : si.si_signo, &si, pid);

	pid = child_paused();
	kill(pid, SIGTERM);
	memset(&si, 0, sizeof(si));
	show("killed", sigwaitinfo(&chld, &si), &si, pid);
	memset(&si, 0, sizeof(si));
	show("waitid", waitid(P_PID, pid, &si, WEXITED) < 0 ? -1 : si.si_signo, &si, pid);

	struct rlimit core = { 0, 0 };
	setrlimit(RLIMIT_CORE, &core);
	pid = child_paused();
	kill(pid, SIGQUIT);
	memset(&si, 0, sizeof(si));
	show("core, no core limit", sigwaitinfo(&chld, &si), &si, pid);
	waitpid(pid, NULL, 0);

	pid = child_paused();
	kill(pid, SIGSTOP);
	memset(&si, 0, sizeof(si));
	show("stopped", sigwaitinfo(&chld, &si), &si, pid);
	memset(&si, 0, sizeof(si));
	show("waitid", waitid(P_PID, pid, &si, WSTOPPED) < 0 ? -1 : si.si_signo, &si, pid);
	kill(pid, SIGCONT);
	memset(&si, 0, sizeof(si));
	show("continued", sigwaitinfo(&chld, &si), &si, pid);
	memset(&si, 0, sizeof(si));
	show("waitid", waitid(P_PID, pid, &si, WCONTINUED) < 0 ? -1 : si.si_signo, &si, pid);
	kill(pid, SIGTSTP);
	memset(&si, 0, sizeof(si));
	show("stopped by TSTP", sigwaitinfo(&chld, &si), &si, pid);
	kill(pid, SIGKILL);
	memset(&si, 0, sizeof(si));
	show("killed while stopped", sigwaitinfo(&chld, &si), &si, pid);
	waitpid(pid, NULL, 0);

	/* SA_NOCLDSTOP: no SIGCHLD for stops and continues, only the exit. */
	catch(SIGCHLD, SA_NOCLDSTOP);
	sigprocmask(SIG_SETMASK, &none, NULL);
	got = 0;
	pid = child_paused();
	kill(pid, SIGSTOP);
	waitpid(pid, NULL, WUNTRACED);
	kill(pid, SIGCONT);
	waitpid(pid, NULL, WCONTINUED);
	printf("SA_NOCLDSTOP: handler got %d\n", got);
	kill(pid, SIGKILL);
	while (got == 0)
		pause();
	show("SA_NOCLDSTOP, then killed", got, &got_info, pid);
	waitpid(pid, NULL, 0);

	/* A handler sees the same siginfo as sigwaitinfo. */
	catch(SIGCHLD, 0);
	got = 0;
	pid = fork();
	if (pid == 0)
		_exit(3);
	while (got == 0)
		pause();
	show("handler, exited", got, &got_info, pid);
	waitpid(pid, NULL, 0);
	return 0;
}

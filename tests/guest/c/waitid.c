/* waitid: exited, killed, stopped and continued children; WNOWAIT, WNOHANG. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *
code_name(int code)
{
	switch (code) {
	case CLD_EXITED:	return "exited";
	case CLD_KILLED:	return "killed";
	case CLD_DUMPED:	return "dumped";
	case CLD_STOPPED:	return "stopped";
	case CLD_CONTINUED:	return "continued";
	default:		return "?";
	}
}

static void
show(const char *what, int r, const siginfo_t *si, pid_t child)
{
	if (r < 0) {
		printf("%s: %s\n", what, strerror(errno));
		return;
	}
	printf("%s: signo %d, %s, status %d, pid %s\n", what, si->si_signo,
	    si->si_signo ? code_name(si->si_code) : "-", si->si_status,
	    si->si_pid == child ? "the child's" : si->si_pid == 0 ? "0" : "other");
}

int
main(void)
{
	siginfo_t si;
	setvbuf(stdout, NULL, _IONBF, 0);

	pid_t pid = fork();
	if (pid == 0)
		_exit(42);
	memset(&si, 0, sizeof(si));
	show("WNOWAIT", waitid(P_PID, pid, &si, WEXITED | WNOWAIT), &si, pid);
	memset(&si, 0, sizeof(si));
	show("exited", waitid(P_PID, pid, &si, WEXITED), &si, pid);
	show("again", waitid(P_PID, pid, &si, WEXITED), &si, pid);

	int p[2];
	pipe(p);
	pid = fork();
	if (pid == 0) {
		char c;
		close(p[1]);
		(void)!read(p[0], &c, 1);
		_exit(0);
	}
	close(p[0]);
	memset(&si, 0xff, sizeof(si));
	show("WNOHANG, nothing yet", waitid(P_ALL, 0, &si, WEXITED | WNOHANG), &si, pid);
	kill(pid, SIGSTOP);
	memset(&si, 0, sizeof(si));
	show("stopped", waitid(P_ALL, 0, &si, WSTOPPED), &si, pid);
	kill(pid, SIGCONT);
	memset(&si, 0, sizeof(si));
	show("continued", waitid(P_PGID, 0, &si, WCONTINUED), &si, pid);
	kill(pid, SIGTERM);
	memset(&si, 0, sizeof(si));
	show("killed", waitid(P_PID, pid, &si, WEXITED), &si, pid);
	close(p[1]);

	show("no options", waitid(P_ALL, 0, &si, 0), &si, 0);
	show("bad idtype", waitid(7, 0, &si, WEXITED), &si, 0);
	show("no children", waitid(P_ALL, 0, &si, WEXITED), &si, 0);
	pid = fork();
	if (pid == 0)
		_exit(1);
	show("bad infop", waitid(P_PID, pid, (siginfo_t *)16, WEXITED), &si, pid);
	return 0;
}

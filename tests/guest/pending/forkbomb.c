/*
 * A fork bomb hits the process limit: fork fails with EAGAIN, every child
 * can be killed and reaped, and afterwards fork works again.  Natively the
 * bomb runs as nobody with RLIMIT_NPROC 64 (root is exempt from that
 * limit), so it cannot hurt the host; inside vkernel the kernel's own
 * process table limit stops it.  Nothing printed depends on the count.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define CAP	6000		/* above any limit we expect: never reached */

static pid_t kids[CAP];

static int
bomb(void)
{
	struct rlimit rl = { 64, 64 };
	setpgid(0, 0);		/* so that the parent can kill what is left */
	setrlimit(RLIMIT_NPROC, &rl);
	if (getuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
		return 1;
	int pfd[2];
	if (pipe(pfd) < 0)
		return 1;
	int n = 0, err = 0;
	while (n < CAP) {
		pid_t pid = fork();
		if (pid == 0) {
			char c;
			close(pfd[1]);
			read(pfd[0], &c, 1);	/* until the parent goes */
			_exit(0);
		}
		if (pid < 0) {
			err = errno;
			break;
		}
		kids[n++] = pid;
	}
	printf("fork failed with EAGAIN: %s\n", err == EAGAIN ? "yes" :
	    n == CAP ? "no, cap reached" : "no, another error");
	if (err != EAGAIN && err != 0)
		printf("errno %d\n", err);
	fflush(stdout);

	/* Kill half, let the other half go by closing the pipe, reap all. */
	int killed = 0;
	for (int i = 0; i < n; i += 2)
		killed += kill(kids[i], SIGKILL) == 0;
	close(pfd[1]);
	int reaped = 0, bykill = 0, byexit = 0, status;
	pid_t w;
	while ((w = wait(&status)) > 0) {
		reaped++;
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
			bykill++;
		else if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			byexit++;
	}
	printf("killed all asked: %s\n", killed == (n + 1) / 2 ? "yes" : "no");
	printf("reaped all: %s\n", reaped == n && w < 0 && errno == ECHILD ? "yes" : "no");
	printf("killed ones died of SIGKILL: %s\n", bykill == killed ? "yes" : "no");
	printf("the others exited 0: %s\n", byexit == n - killed ? "yes" : "no");
	return 0;
}

static void onchld(int sig) { (void)sig; }

/* Signals to a zombie are accepted (and lost), as on Linux. */
static void
zombie(void)
{
	sigset_t chld, none;
	sigemptyset(&chld);
	sigemptyset(&none);
	sigaddset(&chld, SIGCHLD);
	signal(SIGCHLD, onchld);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	sigsuspend(&none);		/* until SIGCHLD: the child is a zombie */
	sigprocmask(SIG_UNBLOCK, &chld, NULL);
	signal(SIGCHLD, SIG_DFL);
	printf("kill(zombie, SIGKILL): %s\n", kill(pid, SIGKILL) == 0 ? "0" :
	    errno == ESRCH ? "ESRCH" : "error");
	printf("kill(zombie, 0): %s\n", kill(pid, 0) == 0 ? "0" :
	    errno == ESRCH ? "ESRCH" : "error");
	int status;
	waitpid(pid, &status, 0);
	printf("zombie exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	zombie();
	pid_t boss = fork();
	if (boss == 0)
		_exit(bomb());
	int status;
	waitpid(boss, &status, 0);
	printf("bomber exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	kill(-boss, SIGKILL);	/* children it left, if it died (none if all went well) */

	/* The system is usable again: fork and exec work (soon: what was
	 * killed above may still be on its way out). */
	int code = -1;
	for (int try = 0; try < 50 && code != 7; try++) {
		if (try > 0)
			usleep(100000);
		pid_t pid = fork();
		if (pid == 0) {
			execl("/bin/sh", "sh", "-c", "exit 7", (char *)0);
			_exit(127);
		}
		if (pid < 0)
			continue;
		waitpid(pid, &status, 0);
		code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	}
	printf("fork+exec after: exit %d\n", code);
	return 0;
}

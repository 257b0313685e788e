/* fork, exec, exit statuses, signals reported to the parent. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void
report(int status)
{
	if (WIFEXITED(status))
		printf("exited %d\n", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		printf("killed by %d\n", WTERMSIG(status));
}

int
main(void)
{
	int status;
	pid_t pid = fork();
	if (pid == 0)
		_exit(9);
	waitpid(pid, &status, 0);
	report(status);

	if ((pid = fork()) == 0) {
		volatile uintptr_t bad = 16;
		*(volatile int *)bad = 1;	/* SIGSEGV */
		_exit(0);
	}
	waitpid(pid, &status, 0);
	report(status);

	if ((pid = fork()) == 0) {
		pause();
		_exit(0);
	}
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	report(status);

	if ((pid = vfork()) == 0) {
		execl("/bin/sh", "sh", "-c", "exit 5", (char *)0);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	report(status);

	printf("no child: %d\n", waitpid(-1, &status, WNOHANG));
	return 0;
}

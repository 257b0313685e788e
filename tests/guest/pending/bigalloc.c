/*
 * Allocating past RAM: a child takes and touches memory 1 MiB at a time,
 * by malloc (mmap) and by sbrk, until that fails.  It must end either
 * with ENOMEM or killed by SIGKILL, the parent goes on, and the free
 * memory comes back once the child is reaped.  The child limits its
 * address space to 200 MB (RLIMIT_AS) so that natively it stops there
 * (and stops at 1 GiB regardless); the guest tests give vkernel 128 MiB
 * of RAM, so inside it runs out of RAM first if the kernel does not honour
 * RLIMIT_AS.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#define STEP	(1 << 20)
#define CAP	1024		/* MiB */

static void
eat(int use_brk)
{
	struct rlimit rl = { 200 << 20, 200 << 20 };
	setrlimit(RLIMIT_AS, &rl);
	for (int i = 0; i < CAP; i++) {
		char *p;
		if (use_brk) {
			p = sbrk(STEP);
			if (p == (void *)-1)
				_exit(errno == ENOMEM ? 0 : 2);
		} else {
			p = malloc(STEP);
			if (p == NULL)
				_exit(errno == ENOMEM ? 0 : 2);
		}
		for (size_t o = 0; o < STEP; o += 4096)
			p[o] = (char)i;
	}
	_exit(3);		/* the cap, not a failure, stopped it */
}

static uint64_t
freemem(void)
{
	struct sysinfo si;
	if (sysinfo(&si) < 0)
		return 0;
	return (uint64_t)si.freeram * si.mem_unit;
}

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct sysinfo si;
	sysinfo(&si);
	uint64_t total = (uint64_t)si.totalram * si.mem_unit;

	for (int round = 0; round < 4; round++) {
		int use_brk = round & 1;
		uint64_t before = freemem();
		pid_t pid = fork();
		if (pid == 0)
			eat(use_brk);
		int status;
		waitpid(pid, &status, 0);
		uint64_t after = freemem();
		const char *how = use_brk ? "sbrk" : "malloc";
		if ((WIFEXITED(status) && WEXITSTATUS(status) == 0) ||
		    (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL))
			printf("%s: ENOMEM or SIGKILL: yes\n", how);
		else if (WIFEXITED(status))
			printf("%s: exited %d\n", how, WEXITSTATUS(status));
		else
			printf("%s: killed by %d\n", how, WTERMSIG(status));
		/* Within an eighth of RAM: slack for a busy host, none for a leak. */
		printf("%s: free memory back: %s\n", how,
		    after + total / 8 >= before ? "yes" : "no");
	}

	/* And the system still works. */
	pid_t pid = fork();
	if (pid == 0) {
		char *p = malloc(16 << 20);
		if (p == NULL)
			_exit(1);
		memset(p, 1, 16 << 20);
		_exit(p[12345] == 1 ? 0 : 1);
	}
	int status;
	waitpid(pid, &status, 0);
	printf("16 MiB afterwards: %s\n", WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "ok" : "failed");
	return 0;
}

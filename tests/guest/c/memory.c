/* mmap, munmap, mprotect, brk, and faults turned into signals. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static sigjmp_buf env;

static void
segv(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	printf("signal %d code %s\n", sig, si->si_code == SEGV_ACCERR ? "ACCERR" :
	    si->si_code == SEGV_MAPERR ? "MAPERR" : "other");
	siglongjmp(env, 1);
}

int
main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);

	size_t len = 64 * 4096;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned sum = 0;
	for (size_t i = 0; i < len; i += 4096)
		sum += (unsigned char)p[i];
	printf("zero-filled: %u\n", sum);
	memset(p, 7, len);
	printf("written: %d\n", p[len - 1]);

	mprotect(p, 4096, PROT_READ);
	if (sigsetjmp(env, 1) == 0)
		p[0] = 1;
	printf("still readable: %d\n", p[0]);

	munmap(p + 4096, 4096);
	if (sigsetjmp(env, 1) == 0)
		printf("read unmapped: %d\n", p[4096]);
	printf("after: %d\n", p[8192]);

	char *b = sbrk(0);
	if (sbrk(8192) == b) {
		b[8191] = 3;
		printf("brk grew: %d\n", b[8191]);
	}
	pid_t pid = fork();
	if (pid == 0) {
		p[8192] = 42;		/* copy-on-write: the parent keeps 7 */
		_exit(p[8192]);
	}
	int status;
	waitpid(pid, &status, 0);
	printf("child wrote %d, parent sees %d\n", status >> 8, p[8192]);
	return 0;
}

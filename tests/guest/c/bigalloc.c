/*
 * Allocating past RAM: a child takes and touches memory 1 MiB at a time,
 * by malloc (mmap) and by brk, until that fails.  It must end either
 * with ENOMEM or killed by SIGKILL, the parent goes on, and the free
 * memory comes back once the child is reaped.  The child limits its
 * address space to 200 MB (RLIMIT_AS) so that natively it stops there
 * (and stops at 1 GiB regardless); the guest tests give vkernel 256 MiB
 * of RAM, so inside it stops at the limit or runs out of RAM, whichever
 * comes first.  vkernel's free page count (sysinfo's freeram) is its own
 * and exact, so inside it must come back to within a few pages (what the
 * kernel's object caches keep); a native host is busy with other things,
 * so there it need only come back to within an eighth of RAM.  Then,
 * under an RLIMIT_AS of 24 MiB, malloc and brk fail with ENOMEM and a
 * stack (its RLIMIT_STACK unlimited) dies of SIGSEGV near the limit.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#define STEP	(1 << 20)
#define CAP	1024		/* MiB */
#define SLACK_PAGES	8	/* what vkernel's object caches may keep */

enum how { MALLOC, BRK, STACK };
static const char *const howname[] = { "malloc", "brk", "stack" };

static volatile int never = -1;
static int mib_fd;

/* Recursion that writes a byte to mib_fd for each MiB of stack. */
static int
recurse(int n)
{
	volatile char pad[1024];
	pad[0] = (char)n;
	if (n % 1024 == 0)
		write(mib_fd, "m", 1);
	if (n == never)
		return 0;
	return recurse(n + 1) + pad[0];
}

/*
 * Takes memory until that fails, within RLIMIT_AS as, a byte to fd for
 * each MiB touched: exits 0 for ENOMEM (a stack can only die of SIGSEGV).
 */
static void
eat(enum how how, int fd, rlim_t as)
{
	struct rlimit rl = { as, as };
	setrlimit(RLIMIT_AS, &rl);
	if (how == STACK) {
		struct rlimit unl = { RLIM_INFINITY, RLIM_INFINITY };
		setrlimit(RLIMIT_STACK, &unl);
		mib_fd = fd;
		recurse(1);
	}
	for (int i = 0; i < CAP; i++) {
		char *p;
		if (how == BRK) {
			/* The raw call: musl's sbrk refuses to grow at all. */
			p = (char *)syscall(SYS_brk, 0);
			if (syscall(SYS_brk, p + STEP) != (long)(p + STEP))
				_exit(0);	/* brk says ENOMEM so */
		} else {
			p = malloc(STEP);
			if (p == NULL)
				_exit(errno == ENOMEM ? 0 : 2);
		}
		for (size_t o = 0; o < STEP; o += 4096)
			p[o] = (char)i;
		write(fd, "m", 1);
	}
	_exit(3);		/* the cap, not a failure, stopped it */
}

/* Runs eat in a child and reaps it; sets *status, returns the MiB it took. */
static int
run_eater(enum how how, rlim_t as, int *status)
{
	int pfd[2];
	if (pipe(pfd) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0)
		eat(how, pfd[1], as);
	close(pfd[1]);
	waitpid(pid, status, 0);
	char mib[CAP];
	ssize_t got = read(pfd[0], mib, sizeof(mib));
	close(pfd[0]);
	return (int)got;
}

/* True inside vkernel (whose uname release ends so). */
static int
in_vkernel(void)
{
	struct utsname u;
	size_t n;
	if (uname(&u) < 0 || (n = strlen(u.release)) < 8)
		return 0;
	return strcmp(u.release + n - 8, "-vkernel") == 0;
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
	uint64_t slack = in_vkernel() ? SLACK_PAGES * 4096 : total / 8;

	for (int round = 0; round < 4; round++) {
		enum how how = round & 1 ? BRK : MALLOC;
		int status;
		uint64_t before = freemem();
		int got = run_eater(how, 200 << 20, &status);
		uint64_t after = freemem();
		const char *name = howname[how];
		if ((WIFEXITED(status) && WEXITSTATUS(status) == 0) ||
		    (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL))
			printf("%s: ENOMEM or SIGKILL: yes\n", name);
		else if (WIFEXITED(status))
			printf("%s: exited %d\n", name, WEXITSTATUS(status));
		else
			printf("%s: killed by %d\n", name, WTERMSIG(status));
		/* Natively RLIMIT_AS stops it near 200 MiB; inside, RAM does. */
		printf("%s: took over 64 MiB: %s\n", name, got > 64 ? "yes" : "no");
		printf("%s: free memory back: %s\n", name,
		    after + slack >= before ? "yes" : "no");
	}

	/*
	 * Well within RAM, RLIMIT_AS alone stops it: ENOMEM, or SIGSEGV for
	 * a stack, with most of the limit taken and none past it.
	 */
	for (enum how how = MALLOC; how <= STACK; how++) {
		int status;
		int got = run_eater(how, 24 << 20, &status);
		int want = how == STACK ? WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV :
		    WIFEXITED(status) && WEXITSTATUS(status) == 0;
		printf("%s under RLIMIT_AS 24 MiB: %s, 16 to 24 MiB taken: %s\n",
		    howname[how], want ? how == STACK ? "SIGSEGV" : "ENOMEM" : "no",
		    got >= 16 && got <= 24 ? "yes" : "no");
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

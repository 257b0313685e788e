/*
 * mlock, mlock2, munlock, mlockall, munlockall: argument checks, holes,
 * and RLIMIT_MEMLOCK for an unprivileged process (0: EPERM; a range past
 * it: ENOMEM).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

static void
calls(const char *who, char *m)
{
	char w[64];
#define R(name, call) snprintf(w, sizeof(w), "%s %s", who, name), report(w, call)
	R("mlock", mlock(m, 8192));
	R("mlock unaligned", mlock(m + 100, 4000));
	R("munlock", munlock(m, 8192));
	R("mlock2 onfault", syscall(SYS_mlock2, m, 4096, 1));
	R("mlock2 bad flags", syscall(SYS_mlock2, m, 4096, 2));
	R("mlock big", mlock(m, 1 << 20));
	R("mlockall current", mlockall(MCL_CURRENT));
	R("mlockall future", mlockall(MCL_FUTURE));
	R("mlockall 0", mlockall(0));
	R("mlockall onfault only", mlockall(MCL_ONFAULT));
	R("munlockall", munlockall());
#undef R
}

int
main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *big = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(m + 2 * pg, pg);	/* a hole in the middle */
	report("mlock over a hole", mlock(m, 4 * pg));
	report("munlock over a hole", munlock(m, 4 * pg));
	report("mlock overflow", mlock(m, (size_t)-4096));
	report("mlock 0", mlock(m, 0));
	calls("root", big);
	munlockall();

	fflush(stdout);
	for (int lim = 0; lim <= 1; lim++) {
		pid_t c = fork();
		if (c == 0) {
			struct rlimit rl = { lim ? 65536 : 0, lim ? 65536 : 0 };
			setrlimit(RLIMIT_MEMLOCK, &rl);
			if (setuid(65534) < 0)
				perror("setuid");
			calls(lim ? "user 64k" : "user 0", big);
			fflush(stdout);
			_exit(0);
		}
		int st;
		waitpid(c, &st, 0);
	}
	return 0;
}

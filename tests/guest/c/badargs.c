/*
 * Odd arguments Linux takes in its own way: it reads only part of some
 * (the low 32 bits of fcntl's F_DUPFD and of clone's flags), clamps
 * others (select's nfds to the descriptor table), and checks in an order
 * that decides the errno (mmap's descriptor first).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *
res(long r)
{
	static char buf[32];
	if (r >= 0) {
		snprintf(buf, sizeof(buf), "=%ld", r);
		return buf;
	}
	switch (errno) {
	case EINVAL: return "EINVAL";
	case EBADF: return "EBADF";
	case ENODEV: return "ENODEV";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	}
	snprintf(buf, sizeof(buf), "errno %d", errno);
	return buf;
}

#define TRY(label, expr) do {						\
	errno = 0;							\
	long r_ = (long)(expr);						\
	printf("%-30s %s\n", label, res(r_));				\
} while (0)

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct timeval tv = { 0, 0 };
	struct timespec ts = { 0, 1000 };

	/* The lowest free descriptor, so that results do not depend on it. */
	int low = dup(0);
	close(low);
	long fd = syscall(SYS_fcntl, 0, F_DUPFD, 1L << 40);
	printf("%-30s %s\n", "F_DUPFD 1<<40 (as 0)", fd == low ? "lowest free" : res(fd));
	close((int)fd);
	fd = syscall(SYS_fcntl, 0, F_DUPFD, (1L << 40) + 20);
	printf("%-30s %s\n", "F_DUPFD (1<<40)+20 (as 20)", fd == 20 ? "20" : res(fd));
	close((int)fd);
	TRY("F_DUPFD -1", syscall(SYS_fcntl, 0, F_DUPFD, -1L));
	TRY("F_DUPFD INT_MAX", syscall(SYS_fcntl, 0, F_DUPFD, (long)INT_MAX));

	TRY("select nfds INT_MAX, no sets", syscall(SYS_select, INT_MAX, NULL, NULL, NULL, &tv));
	TRY("select nfds -1", syscall(SYS_select, -1, NULL, NULL, NULL, &tv));
	fd_set wr;
	FD_ZERO(&wr);
	FD_SET(1, &wr);
	TRY("select nfds 1<<20, fd 1", syscall(SYS_select, 1 << 20, NULL, &wr, NULL, &tv));

	TRY("mmap of a bad descriptor", (long)mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, 9999, 0));
	TRY("clock_nanosleep thread clock",
	    syscall(SYS_clock_nanosleep, CLOCK_THREAD_CPUTIME_ID, 0, &ts, NULL));
	TRY("clock_nanosleep clock 99", syscall(SYS_clock_nanosleep, 99, 0, &ts, NULL));

	/* clone with a flag above bit 31: Linux does not see it. */
	fflush(stdout);
	long pid = syscall(SYS_clone, (1UL << 36) | SIGCHLD, 0, NULL, NULL, 0);
	if (pid == 0)
		_exit(7);
	int status = 0;
	if (pid > 0)
		waitpid((pid_t)pid, &status, 0);
	printf("%-30s %s\n", "clone, flag bit 36", pid < 0 ? res(pid) :
	    WIFEXITED(status) && WEXITSTATUS(status) == 7 ? "child exited 7" : "child failed");
	return 0;
}

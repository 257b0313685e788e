/* Bad pointers in pointer arguments give EFAULT, and nothing dies. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#define BAD1 ((void *)1)
#define BADK ((void *)0xffff800000000000UL)

static void
check(const char *what, long r)
{
	printf("%-16s %s\n", what, r == -1 && errno == EFAULT ? "EFAULT" : "other");
}

int
main(void)
{
	int fds[2];
	pipe(fds);
	check("write", syscall(SYS_write, fds[1], BAD1, 10));
	check("read", (write(fds[1], "x", 1), syscall(SYS_read, fds[0], BADK, 10)));
	check("open", syscall(SYS_open, BAD1, O_RDONLY));
	check("stat", syscall(SYS_stat, "/", BAD1));
	check("uname", syscall(SYS_uname, BADK));
	check("pipe", syscall(SYS_pipe, BAD1));
	check("execve", syscall(SYS_execve, BAD1, NULL, NULL));
	check("clock_gettime", syscall(SYS_clock_gettime, 0, BAD1));
	check("rt_sigaction", syscall(SYS_rt_sigaction, 10, BAD1, NULL, 8));
	check("wait4", (fork() == 0 ? _exit(0), 0 : 0, syscall(SYS_wait4, -1, BAD1, 0, NULL)));
	return 0;
}

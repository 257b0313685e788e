/*
 * close_range: closing a range, CLOSE_RANGE_CLOEXEC (marks, seen through
 * fcntl and across exec), CLOSE_RANGE_UNSHARE in a CLONE_FILES child,
 * and its argument checks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE	(1U << 1)
#define CLOSE_RANGE_CLOEXEC	(1U << 2)
#endif

static long
cr(unsigned first, unsigned last, unsigned flags)
{
	return syscall(SYS_close_range, first, last, flags);
}

/* Which of descriptors 10..19 are open ('o'), close-on-exec ('x'), or closed. */
static void
show(const char *what)
{
	char s[11];
	for (int fd = 10; fd < 20; fd++) {
		int f = fcntl(fd, F_GETFD);
		s[fd - 10] = f < 0 ? '.' : (f & FD_CLOEXEC) ? 'x' : 'o';
	}
	s[10] = 0;
	printf("%s: %s\n", what, s);
}

static void
open10(void)
{
	for (int fd = 10; fd < 20; fd++)
		dup2(0, fd);
}

static char stack[65536];
static int
child(void *arg)
{
	(void)arg;
	/* Shares our table: unshare it first, then close in the copy only. */
	report("unshare close", cr(10, 14, CLOSE_RANGE_UNSHARE));
	show("child");
	fflush(stdout);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc > 1) {	/* after exec: what stayed open */
		show("after exec");
		return 0;
	}
	open10();
	show("start");
	report("close 12..13", cr(12, 13, 0));
	show("closed");
	report("cloexec 14..", cr(14, ~0U, CLOSE_RANGE_CLOEXEC));
	show("cloexec");
	report("first > last", cr(5, 4, 0));
	report("bad flags", cr(10, 11, 1));
	report("past the table", cr(5000, 6000, 0));

	fflush(stdout);
	pid_t c = clone(child, stack + sizeof(stack), CLONE_FILES | SIGCHLD, NULL);
	int st;
	waitpid(c, &st, 0);
	show("parent after child");

	fflush(stdout);
	pid_t e = fork();
	if (e == 0) {
		execl("/proc/self/exe", argv[0], "x", (char *)NULL);
		_exit(127);
	}
	waitpid(e, &st, 0);
	report("first past INT_MAX", cr(0x80000000U, ~0U, 0));
	report("first and last ~0", cr(~0U, ~0U, CLOSE_RANGE_CLOEXEC));
	report("close all from 3", cr(3, ~0U, 0));
	show("end");
	return 0;
}

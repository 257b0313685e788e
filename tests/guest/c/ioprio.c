/*
 * ioprio_get and ioprio_set: the default, each class and its levels,
 * who may set what, and what a child inherits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define WHO_PROCESS	1
#define WHO_PGRP	2
#define WHO_USER	3
#define PRIO(class, data)	((class) << 13 | (data))

static void
report(const char *what, long r)
{
	if (r < 0)
		printf("%s: -1 %s\n", what, strerror(errno));
	else
		printf("%s: %#lx\n", what, r);
}

static long
get(int which, int who)
{
	return syscall(SYS_ioprio_get, which, who);
}

static long
set(int which, int who, int prio)
{
	return syscall(SYS_ioprio_set, which, who, prio);
}

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	report("default", get(WHO_PROCESS, 0));
	report("set best-effort 3", set(WHO_PROCESS, 0, PRIO(2, 3)));
	report("get", get(WHO_PROCESS, 0));
	report("get by pid", get(WHO_PROCESS, getpid()));
	report("set best-effort 8 (a hint)", set(WHO_PROCESS, 0, PRIO(2, 8)));
	report("get", get(WHO_PROCESS, 0));
	report("set idle 0", set(WHO_PROCESS, 0, PRIO(3, 0)));
	report("get", get(WHO_PROCESS, 0));
	report("set none 1", set(WHO_PROCESS, 0, PRIO(0, 1)));
	report("set class 4", set(WHO_PROCESS, 0, PRIO(4, 0)));
	report("set class 7", set(WHO_PROCESS, 0, PRIO(7, 0)));
	report("root sets real-time 2", set(WHO_PROCESS, 0, PRIO(1, 2)));
	report("get", get(WHO_PROCESS, 0));
	report("bad which", get(9, 0));
	report("set bad which", set(0, 0, PRIO(2, 1)));
	report("no such pid", get(WHO_PROCESS, 99999));
	report("set no such pid", set(WHO_PROCESS, 99999, PRIO(2, 1)));
	report("no such pgrp", get(WHO_PGRP, 99999));
	set(WHO_PROCESS, 0, PRIO(2, 5));
	pid_t pid = fork();
	if (pid == 0) {
		report("child inherits", get(WHO_PROCESS, 0));
		if (setgid(65534) == 0 && setuid(65534) == 0) {
			report("user: real-time", set(WHO_PROCESS, 0, PRIO(1, 0)));
			report("user: best-effort 1", set(WHO_PROCESS, 0, PRIO(2, 1)));
			report("user: init's", set(WHO_PROCESS, 1, PRIO(2, 1)));
			report("user: get", get(WHO_PROCESS, 0));
		}
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	report("own pgrp", get(WHO_PGRP, 0));
	return 0;
}

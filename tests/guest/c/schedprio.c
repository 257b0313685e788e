/*
 * Nice values (getpriority, setpriority) and CPU affinity
 * (sched_getaffinity, sched_setaffinity): what a user may change, the
 * errors, and that a child inherits both.  Runs as root; an unprivileged
 * child checks the rules for users.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

/* getpriority as the kernel returns it: 20 - nice. */
static long
rawprio(int which, int who)
{
	return syscall(SYS_getpriority, which, who);
}

static void
unprivileged(void)
{
	if (setgid(65534) != 0 || setuid(65534) != 0) {
		printf("cannot drop root\n");
		return;
	}
	report("user: raise nice to 5", setpriority(PRIO_PROCESS, 0, 5));
	report("user: get", rawprio(PRIO_PROCESS, 0));
	report("user: lower nice to 4", setpriority(PRIO_PROCESS, 0, 4));
	report("user: lower nice to 2", setpriority(PRIO_PROCESS, 0, 2));
	report("user: get", rawprio(PRIO_PROCESS, 0));
	report("user: set init's nice", setpriority(PRIO_PROCESS, 1, 10));
	report("user: raise own uid's to 6", setpriority(PRIO_USER, 0, 6));
	report("user: lower own uid's to 5", setpriority(PRIO_USER, 0, 5));
	report("user: get own uid's", rawprio(PRIO_USER, 0));
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	report("user: setaffinity of init", sched_setaffinity(1, sizeof(set), &set));
	report("user: setaffinity of self", sched_setaffinity(0, sizeof(set), &set));
}

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	report("get (nice 0)", rawprio(PRIO_PROCESS, 0));
	report("get own pgrp", rawprio(PRIO_PGRP, 0));
	report("bad which", getpriority(7, 0));
	report("set bad which", setpriority(-1, 0, 0));
	report("no such pid", setpriority(PRIO_PROCESS, 99999, 0));
	report("get no such pid", getpriority(PRIO_PROCESS, 99999));
	report("no such pgrp", getpriority(PRIO_PGRP, 99999));
	report("set 50 (clamped to 19)", setpriority(PRIO_PROCESS, 0, 50));
	report("get", rawprio(PRIO_PROCESS, 0));
	report("root lowers to -5", setpriority(PRIO_PROCESS, 0, -5));
	report("get", rawprio(PRIO_PROCESS, 0));
	report("set -99 (clamped to -20)", setpriority(PRIO_PROCESS, 0, -99));
	report("get", rawprio(PRIO_PROCESS, 0));
	setpriority(PRIO_PROCESS, 0, 1);

	pid_t pid = fork();
	if (pid == 0) {
		printf("child inherits: %ld\n", rawprio(PRIO_PROCESS, 0));
		unprivileged();
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	report("own pgrp by id", rawprio(PRIO_PGRP, getpgrp()));

	cpu_set_t set, got;
	long n = syscall(SYS_sched_getaffinity, 0, sizeof(set), &set);
	printf("getaffinity size: %s\n", n >= 8 && n % 8 == 0 ? "longs" : "odd");
	printf("cpu 0 allowed: %d\n", !!CPU_ISSET(0, &set));
	report("getaffinity len 4", syscall(SYS_sched_getaffinity, 0, 4, &set));
	report("getaffinity len 12", syscall(SYS_sched_getaffinity, 0, 12, &set));
	report("getaffinity bad pointer", syscall(SYS_sched_getaffinity, 0, sizeof(set), 8));
	report("getaffinity no such pid", sched_getaffinity(99999, sizeof(set), &set));
	CPU_ZERO(&set);
	report("setaffinity empty", sched_setaffinity(0, sizeof(set), &set));
	CPU_SET(1000, &set);
	report("setaffinity cpu 1000 only", sched_setaffinity(0, sizeof(set), &set));
	report("setaffinity bad pointer", syscall(SYS_sched_setaffinity, 0, sizeof(set), 8));
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	CPU_SET(1000, &set);
	report("setaffinity cpu 0 and 1000", sched_setaffinity(0, sizeof(set), &set));
	sched_getaffinity(0, sizeof(got), &got);
	printf("now: %d cpu(s), cpu 0 %d\n", CPU_COUNT(&got), !!CPU_ISSET(0, &got));
	pid = fork();
	if (pid == 0) {
		sched_getaffinity(0, sizeof(got), &got);
		printf("child: %d cpu(s), cpu 0 %d\n", CPU_COUNT(&got), !!CPU_ISSET(0, &got));
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	return 0;
}

/*
 * Scheduling policies: sched_setscheduler, sched_setparam,
 * sched_getscheduler, sched_getparam, the priority ranges and
 * sched_getattr, with their errors; SCHED_RESET_ON_FORK seen in a child.
 * Inside only: the host here refuses these calls to its programs (a
 * sandbox), so inside/schedpolicy.sh holds the output Linux gives.
 * Raw system calls: musl's wrappers of these say ENOSYS by design.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
	uint32_t util_min, util_max;
};

#define sched_get_priority_max(p)	syscall(SYS_sched_get_priority_max, p)
#define sched_get_priority_min(p)	syscall(SYS_sched_get_priority_min, p)
#define sched_getscheduler(t)		syscall(SYS_sched_getscheduler, t)
#define sched_setscheduler(t, p, s)	syscall(SYS_sched_setscheduler, t, p, s)
#define sched_getparam(t, s)		syscall(SYS_sched_getparam, t, s)
#define sched_setparam(t, s)		syscall(SYS_sched_setparam, t, s)

static void
report(const char *what, long r)
{
	if (r < 0)
		printf("%s: -1 %s\n", what, strerror(errno));
	else
		printf("%s: %ld\n", what, r);
}

static void
show_attr(const char *what, unsigned size)
{
	struct attr a;
	memset(&a, 0xff, sizeof(a));
	long r = syscall(SYS_sched_getattr, 0, &a, size, 0);
	report(what, r);
	if (r == 0)
		printf("  size %u policy %u flags %llu nice %d priority %u\n", a.size,
		    a.policy, (unsigned long long)a.flags, a.nice, a.priority);
}

int
main(void)
{
	struct sched_param sp = { 0 };
	const int policies[] = { SCHED_OTHER, SCHED_FIFO, SCHED_RR, SCHED_BATCH,
	    SCHED_IDLE, 4, 7, -1 };

	for (unsigned i = 0; i < sizeof(policies) / sizeof(policies[0]); i++) {
		printf("policy %d: ", policies[i]);
		report("max", sched_get_priority_max(policies[i]));
		printf("policy %d: ", policies[i]);
		report("min", sched_get_priority_min(policies[i]));
	}
	report("getscheduler", sched_getscheduler(0));
	report("getscheduler(-1)", sched_getscheduler(-1));
	report("getscheduler(no such pid)", sched_getscheduler(999999));
	sp.sched_priority = 7;
	report("getparam", sched_getparam(0, &sp));
	printf("priority %d\n", sp.sched_priority);
	report("getparam(NULL)", syscall(SYS_sched_getparam, 0, NULL));
	sp.sched_priority = 0;
	report("set SCHED_BATCH", sched_setscheduler(0, SCHED_BATCH, &sp));
	report("getscheduler", sched_getscheduler(0));
	sp.sched_priority = 5;
	report("SCHED_OTHER with priority 5", sched_setscheduler(0, SCHED_OTHER, &sp));
	report("SCHED_FIFO with priority 0",
	    sched_setscheduler(0, SCHED_FIFO, &(struct sched_param){ 0 }));
	report("policy 9", sched_setscheduler(0, 9, &(struct sched_param){ 0 }));
	report("NULL param", syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, NULL));
	report("bad param", syscall(SYS_sched_setscheduler, 0, SCHED_OTHER, 8));
	report("setparam 0", sched_setparam(0, &(struct sched_param){ 0 }));
	report("setparam 3", sched_setparam(0, &(struct sched_param){ 3 }));
	show_attr("getattr 48", 48);
	show_attr("getattr 56", 56);
	show_attr("getattr 4096", 4096);
	report("getattr 47", syscall(SYS_sched_getattr, 0, &(struct attr){ 0 }, 47, 0));
	report("getattr flags 1", syscall(SYS_sched_getattr, 0, &(struct attr){ 0 }, 56, 1));
	report("set SCHED_IDLE|RESET_ON_FORK", sched_setscheduler(0,
	    SCHED_IDLE | SCHED_RESET_ON_FORK, &(struct sched_param){ 0 }));
	report("getscheduler", sched_getscheduler(0));
	show_attr("getattr", 56);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		printf("child: getscheduler %ld\n", sched_getscheduler(0));
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	report("back to SCHED_OTHER", sched_setscheduler(0, SCHED_OTHER,
	    &(struct sched_param){ 0 }));
	report("getscheduler", sched_getscheduler(0));
	return 0;
}

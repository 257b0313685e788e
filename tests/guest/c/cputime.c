/*
 * CPU time: the CPU-time clocks, times() and getrusage() advance with the
 * user time a program spends computing and the system time it spends in
 * the kernel, for itself, its thread and its waited-for children.
 * Prints what held, never a figure (they differ from run to run).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/times.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int64_t
clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t
tv_ns(struct timeval tv)
{
	return (int64_t)tv.tv_sec * 1000000000 + tv.tv_usec * 1000;
}

static int64_t
usage(int who, int sys)
{
	struct rusage ru;
	if (getrusage(who, &ru) != 0)
		return -1;
	return tv_ns(sys ? ru.ru_stime : ru.ru_utime);
}

static volatile uint64_t sink;

/* Computes until the user time has grown by ns (at most 10 s of wall time). */
static int
spin(int64_t ns)
{
	int64_t u0 = usage(RUSAGE_SELF, 0), w0 = clock_ns(CLOCK_MONOTONIC);
	while (usage(RUSAGE_SELF, 0) - u0 < ns) {
		for (int i = 0; i < 1000000; i++)
			sink = sink * 31 + (uint64_t)i;
		if (clock_ns(CLOCK_MONOTONIC) - w0 > 10000000000LL)
			return -1;
	}
	return 0;
}

int
main(void)
{
	int64_t p0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	int64_t t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	int64_t th0 = usage(RUSAGE_THREAD, 0);
	struct tms tm0, tm1;
	times(&tm0);

	printf("user time grows while computing: %s\n",
	    spin(200000000) == 0 ? "yes" : "no");
	int64_t p1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	int64_t t1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	times(&tm1);
	printf("process clock >= 150 ms: %s\n", p1 - p0 >= 150000000 ? "yes" : "no");
	printf("thread clock >= 150 ms: %s\n", t1 - t0 >= 150000000 ? "yes" : "no");
	printf("thread clock <= process clock: %s\n", t1 <= clock_ns(CLOCK_PROCESS_CPUTIME_ID) ? "yes" : "no");
	printf("RUSAGE_THREAD user >= 150 ms: %s\n",
	    usage(RUSAGE_THREAD, 0) - th0 >= 150000000 ? "yes" : "no");
	printf("times utime >= 15 ticks: %s\n",
	    tm1.tms_utime - tm0.tms_utime >= 15 ? "yes" : "no");

	/* System time: copying from /dev/zero is the kernel's work. */
	static char buf[1 << 20];
	int fd = open("/dev/zero", O_RDONLY);
	int64_t s0 = usage(RUSAGE_SELF, 1), w0 = clock_ns(CLOCK_MONOTONIC);
	while (usage(RUSAGE_SELF, 1) - s0 < 50000000 &&
	    clock_ns(CLOCK_MONOTONIC) - w0 < 10000000000LL)
		(void)!read(fd, buf, sizeof(buf));
	printf("system time grows in the kernel: %s\n",
	    usage(RUSAGE_SELF, 1) - s0 >= 50000000 ? "yes" : "no");
	close(fd);

	/* Children: counted once waited for, not before. */
	printf("children before: %s\n", usage(RUSAGE_CHILDREN, 0) == 0 ? "zero" : "nonzero");
	pid_t pid = fork();
	if (pid == 0)
		_exit(spin(200000000) == 0 ? 0 : 1);
	int st;
	waitpid(pid, &st, 0);
	printf("child spun: %s\n", WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "yes" : "no");
	printf("RUSAGE_CHILDREN user >= 150 ms: %s\n",
	    usage(RUSAGE_CHILDREN, 0) >= 150000000 ? "yes" : "no");
	times(&tm1);
	printf("times cutime >= 15 ticks: %s\n", tm1.tms_cutime >= 15 ? "yes" : "no");

	struct rusage ru;
	int r = getrusage(5, &ru);
	printf("getrusage(5): %d %d\n", r, errno);
	r = getrusage(RUSAGE_SELF, (void *)8);
	printf("getrusage(bad pointer): %d %d\n", r, errno);
	return 0;
}

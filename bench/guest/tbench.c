/*
 * Thread benchmark, run the same natively, inside vkernel (-n 1 and
 * -n 2) and under User-Mode Linux: thread create+join, a futex
 * wake-and-wait round trip between two threads, a pipe round trip
 * between two threads (microseconds per operation, each the median of
 * several rounds), and a fixed CPU-bound job on one thread, on two
 * threads at once and in two processes at once (milliseconds of wall
 * time, with the speed-up over one: 2.0 when both run in parallel).
 * One "name value" line each, "name n/a" when threads cannot be made
 * (the figures without threads still come); a line "# ..." is a note.
 *
 * As PID 1 (UML's rdinit=, vkernel's init) it powers the machine off at
 * the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXROUNDS	9
#define JOB		(1L << 28)	/* mix() calls of the CPU-bound job */
/* <linux/futex.h>, which musl-gcc does not see */
#define FUTEX_WAIT_PRIVATE	128
#define FUTEX_WAKE_PRIVATE	129

static double
now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* One warm-up round, then the median of `rounds`. */
static double
median(double (*fn)(int), int n, int rounds)
{
	double v[MAXROUNDS];
	fn(n / 10 > 0 ? n / 10 : 1);
	for (int r = 0; r < rounds; r++)
		v[r] = fn(n);
	qsort(v, (size_t)rounds, sizeof(double), cmp);
	return v[rounds / 2];
}

/* A negative figure: the benchmark could not run. */
static void
report(const char *name, const char *fmt, double v)
{
	printf("%s ", name);
	if (v < 0)
		printf("n/a");
	else
		printf(fmt, v);
	printf("\n");
	fflush(stdout);
}

static void
die(const char *what, int e)
{
	printf("# tbench: %s: %s\n", what, strerror(e));
	fflush(stdout);
	if (getpid() == 1)
		reboot(RB_POWER_OFF);
	exit(1);
}

/* pthread_create; its first failure is noted. Returns 0 or -1. */
static int
start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	static int noted;
	int e = pthread_create(t, NULL, fn, arg);
	if (e == 0)
		return 0;
	if (!noted++)
		printf("# tbench: pthread_create: %s\n", strerror(e));
	return -1;
}

static void *
nothing(void *arg)
{
	return arg;
}

static double
b_create(int n)
{
	pthread_t t;
	double t0 = now_us();
	for (int i = 0; i < n; i++) {
		if (start(&t, nothing, NULL) != 0)
			return -1;
		pthread_join(t, NULL);
	}
	return (now_us() - t0) / n;
}

/* The futex ping-pong: turn 1 is the partner's, 0 ours. */
static int turn;
static int rounds_left;

static void
futex_wait(int *w, int v)
{
	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}

static void
futex_wake(int *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *
futex_partner(void *arg)
{
	(void)arg;
	for (int i = 0; i < rounds_left; i++) {
		while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) == 0)
			futex_wait(&turn, 0);
		__atomic_store_n(&turn, 0, __ATOMIC_RELEASE);
		futex_wake(&turn);
	}
	return NULL;
}

static double
b_futex(int n)
{
	pthread_t t;
	rounds_left = n;
	turn = 0;
	if (start(&t, futex_partner, NULL) != 0)
		return -1;
	double t0 = now_us();
	for (int i = 0; i < n; i++) {
		__atomic_store_n(&turn, 1, __ATOMIC_RELEASE);
		futex_wake(&turn);
		while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) == 1)
			futex_wait(&turn, 1);
	}
	double us = (now_us() - t0) / n;
	pthread_join(t, NULL);
	return us;
}

static int to_partner[2], to_main[2];

static void *
pipe_partner(void *arg)
{
	char c;
	(void)arg;
	for (int i = 0; i < rounds_left; i++) {
		if (read(to_partner[0], &c, 1) != 1 || write(to_main[1], &c, 1) != 1)
			die("pipe partner", errno);
	}
	return NULL;
}

static double
b_pipe(int n)
{
	pthread_t t;
	char c = 'x';
	rounds_left = n;
	if (start(&t, pipe_partner, NULL) != 0)
		return -1;
	double t0 = now_us();
	for (int i = 0; i < n; i++) {
		if (write(to_partner[1], &c, 1) != 1 || read(to_main[0], &c, 1) != 1)
			die("pipe", errno);
	}
	double us = (now_us() - t0) / n;
	pthread_join(t, NULL);
	return us;
}

static unsigned long
mix(unsigned long x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185UL;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dUL;
	return x ^ (x >> 33);
}

static volatile unsigned long sink;

static void *
job(void *arg)
{
	unsigned long s = 0;
	for (long i = 0; i < JOB; i++)
		s += mix(i);
	sink = s;
	return arg;
}

/* Milliseconds for the job run once, by the main thread. */
static double
b_one(int n)
{
	(void)n;
	double t0 = now_us();
	job(NULL);
	return (now_us() - t0) / 1000;
}

/* Milliseconds for the job run by two threads at once. */
static double
b_threads(int n)
{
	pthread_t t[2];
	double t0 = now_us();
	for (int i = 0; i < n; i++) {
		if (start(&t[i], job, NULL) != 0) {
			while (--i >= 0)
				pthread_join(t[i], NULL);
			return -1;
		}
	}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return (now_us() - t0) / 1000;
}

/* Milliseconds for the job run by two processes at once. */
static double
b_procs(int n)
{
	pid_t p[2];
	double t0 = now_us();
	for (int i = 0; i < n; i++) {
		p[i] = fork();
		if (p[i] < 0)
			die("fork", errno);
		if (p[i] == 0) {
			job(NULL);
			_exit(0);
		}
	}
	for (int i = 0; i < n; i++)
		waitpid(p[i], NULL, 0);
	return (now_us() - t0) / 1000;
}

/* The median of 3 runs of fn(n) (no warm-up: each run is long). */
static double
median3(double (*fn)(int), int n)
{
	double v[3];
	for (int r = 0; r < 3; r++)
		v[r] = fn(n);
	qsort(v, 3, sizeof(double), cmp);
	return v[1];
}

int
main(void)
{
	if (pipe(to_partner) != 0 || pipe(to_main) != 0)
		die("pipe", errno);
	report("thread-create+join", "%.1f", median(b_create, 200, 7));
	report("futex-round-trip", "%.2f", median(b_futex, 5000, 7));
	report("thread-pipe-round-trip", "%.2f", median(b_pipe, 5000, 7));
	double one = median3(b_one, 1);
	double two = median3(b_threads, 2);
	double procs = median3(b_procs, 2);
	report("cpu-job-1", "%.0f", one);
	report("cpu-job-2-threads", "%.0f", two);
	report("cpu-job-2-processes", "%.0f", procs);
	report("speedup-2-threads", "%.2f", two < 0 ? -1 : 2 * one / two);
	report("speedup-2-processes", "%.2f", 2 * one / procs);
	if (getpid() == 1)
		reboot(RB_POWER_OFF);
	return 0;
}

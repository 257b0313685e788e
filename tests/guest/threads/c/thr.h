/*
 * Helpers of the thread tests: each check prints "ok WHAT" or
 * "FAIL WHAT: ..." on a line of its own, and the program exits with
 * the number of failures (at most 100), so a run inside vkernel and a
 * native one compare line by line.  Nothing printed may depend on
 * timing or on the order in which threads run.
 */
#ifndef THR_H
#define THR_H
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int thr_failures;

/* CHECK(cond, what): a boolean check. */
#define CHECK(cond, what) thr_check(!!(cond), (what), __LINE__, errno)
/* EXPECT(got, want, what): two integers that must be equal. */
#define EXPECT(got, want, what) thr_expect((long)(got), (long)(want), (what), __LINE__)

static inline void
thr_check(int good, const char *what, int line, int err)
{
	if (good) {
		printf("ok %s\n", what);
	} else {
		printf("FAIL %s (line %d, errno %d)\n", what, line, err);
		thr_failures++;
	}
}

static inline void
thr_expect(long got, long want, const char *what, int line)
{
	if (got == want) {
		printf("ok %s\n", what);
	} else {
		printf("FAIL %s: %ld, expected %ld (line %d)\n", what, got, want, line);
		thr_failures++;
	}
}

/* Line-buffered output, so a fork never copies unwritten lines. */
static inline void
thr_init(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

static inline int
thr_exit_status(void)
{
	return thr_failures > 100 ? 100 : thr_failures;
}

/*
 * A thread that cannot be created ends the test at once: every check
 * after it would wait for a thread that does not exist.
 */
static inline void
thr_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	int e = pthread_create(t, attr, fn, arg);
	if (e != 0) {
		printf("FAIL pthread_create: %s\n", strerror(e));
		exit(101);
	}
}

static inline void *
thr_join(pthread_t t)
{
	void *ret;
	int e = pthread_join(t, &ret);
	if (e != 0) {
		printf("FAIL pthread_join: %s\n", strerror(e));
		exit(102);
	}
	return ret;
}

static inline pid_t
thr_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* The threads /proc/self/task lists, or -1 without it. */
static inline int
thr_ntasks(void)
{
	DIR *d = opendir("/proc/self/task");
	if (d == NULL)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* An absolute CLOCK_REALTIME (or other clock) deadline ms from now. */
static inline struct timespec
thr_deadline(clockid_t clk, long ms)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	return ts;
}

/* Whether clock clk has passed the deadline ts. */
static inline int
thr_passed(clockid_t clk, struct timespec ts)
{
	struct timespec now;
	clock_gettime(clk, &now);
	return now.tv_sec > ts.tv_sec || (now.tv_sec == ts.tv_sec && now.tv_nsec >= ts.tv_nsec);
}

static inline void
thr_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}
#endif

/*
 * futex_waitv(2): argument checks, a word that differs, timeouts on both
 * clocks, signals, and a wake of one futex of a vector from another
 * process (the call returns its index).
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "futextest.h"

#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif
#define FUTEX_WAKE		1
#define FUTEX_PRIVATE_FLAG	128
#define FUTEX2_SIZE_U8		0x00
#define FUTEX2_SIZE_U32		0x02
#define FUTEX2_SIZE_U64		0x03
#define FUTEX2_PRIVATE		FUTEX_PRIVATE_FLAG

struct futex_waitv {
	uint64_t val;
	uint64_t uaddr;
	uint32_t flags;
	uint32_t reserved;
};

static long
waitv(struct futex_waitv *v, unsigned n, unsigned flags, const struct timespec *t, int clock)
{
	long r = syscall(SYS_futex_waitv, v, n, flags, t, clock);
	return r < 0 ? -errno : r;
}

#define CHECK(what, call) printf("%-44s %s\n", what, err(call))

static struct timespec
abs_ts(clockid_t c, int ms)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	ts.tv_nsec += (ms % 1000) * 1000000L;
	ts.tv_sec += ms / 1000 + ts.tv_nsec / 1000000000;
	ts.tv_nsec %= 1000000000;
	return ts;
}

static uint32_t words[130];
static struct futex_waitv v[130];

static void
fill(unsigned n, uint32_t flags)
{
	for (unsigned i = 0; i < n; i++)
		v[i] = (struct futex_waitv){ words[i], (uintptr_t)&words[i], flags, 0 };
}

static volatile int handled;

static void
on_alarm(int sig)
{
	(void)sig;
	handled++;
	words[1] = 5;
}

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	struct timespec past = { 1, 0 }, t;
	char *unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(unmapped, 4096);

	fill(2, FUTEX2_SIZE_U32 | FUTEX2_PRIVATE);
	CHECK("flags 1", waitv(v, 2, 1, &past, CLOCK_MONOTONIC));
	CHECK("no futexes", waitv(v, 0, 0, &past, CLOCK_MONOTONIC));
	CHECK("129 futexes", waitv(v, 129, 0, &past, CLOCK_MONOTONIC));
	CHECK("NULL vector", waitv(NULL, 1, 0, &past, CLOCK_MONOTONIC));
	CHECK("unmapped vector", waitv((void *)unmapped, 1, 0, &past, CLOCK_MONOTONIC));
	CHECK("CLOCK_BOOTTIME", waitv(v, 2, 0, &past, CLOCK_BOOTTIME));
	CHECK("timeout unmapped", waitv(v, 2, 0, (void *)unmapped, CLOCK_MONOTONIC));
	CHECK("past, monotonic", waitv(v, 2, 0, &past, CLOCK_MONOTONIC));
	CHECK("past, realtime", waitv(v, 2, 0, &past, CLOCK_REALTIME));
	struct timespec neg = { -5, 0 }, badns = { 0, 2000000000 };
	CHECK("negative seconds", waitv(v, 2, 0, &neg, CLOCK_MONOTONIC));
	CHECK("nsec 2e9", waitv(v, 2, 0, &badns, CLOCK_MONOTONIC));
	fill(128, FUTEX2_SIZE_U32);
	CHECK("128 futexes, past", waitv(v, 128, 0, &past, CLOCK_MONOTONIC));
	fill(2, FUTEX2_SIZE_U8);
	CHECK("8-bit futex", waitv(v, 2, 0, &past, CLOCK_MONOTONIC));
	fill(2, FUTEX2_SIZE_U64);
	CHECK("64-bit futex", waitv(v, 2, 0, &past, CLOCK_MONOTONIC));
	fill(2, FUTEX2_SIZE_U32 | 0x10);
	CHECK("unknown flag", waitv(v, 2, 0, &past, CLOCK_MONOTONIC));
	fill(2, FUTEX2_SIZE_U32);
	v[1].reserved = 1;
	CHECK("reserved set", waitv(v, 2, 0, &past, CLOCK_MONOTONIC));
	fill(2, FUTEX2_SIZE_U32);
	v[1].val = 1ULL << 32;
	CHECK("value above 32 bits", waitv(v, 2, 0, &past, CLOCK_MONOTONIC));
	fill(2, FUTEX2_SIZE_U32);
	v[1].uaddr += 2;
	CHECK("misaligned", waitv(v, 2, 0, &past, CLOCK_MONOTONIC));
	fill(2, FUTEX2_SIZE_U32);
	v[1].uaddr = (uintptr_t)unmapped;
	CHECK("unmapped word", waitv(v, 2, 0, &past, CLOCK_MONOTONIC));
	fill(2, FUTEX2_SIZE_U32 | FUTEX2_PRIVATE);
	v[1].uaddr = (uintptr_t)unmapped;
	CHECK("unmapped private word", waitv(v, 2, 0, &past, CLOCK_MONOTONIC));
	fill(2, FUTEX2_SIZE_U32);
	v[1].val = 9;
	CHECK("second word differs", waitv(v, 2, 0, NULL, 0));
	fill(2, FUTEX2_SIZE_U32);
	t = abs_ts(CLOCK_MONOTONIC, 30);
	CHECK("monotonic +30 ms", waitv(v, 2, 0, &t, CLOCK_MONOTONIC));
	t = abs_ts(CLOCK_REALTIME, 30);
	CHECK("realtime +30 ms", waitv(v, 2, 0, &t, CLOCK_REALTIME));

	/* Signals: EINTR without SA_RESTART; restarted with it (the word changed). */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { 0, 0 }, { 0, 20000 } };
	setitimer(ITIMER_REAL, &it, NULL);
	fill(2, FUTEX2_SIZE_U32 | FUTEX2_PRIVATE);
	CHECK("signal, no SA_RESTART", waitv(v, 2, 0, NULL, 0));
	words[1] = 0;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	t = abs_ts(CLOCK_MONOTONIC, 5000);
	CHECK("signal, SA_RESTART (restarted)", waitv(v, 2, 0, &t, CLOCK_MONOTONIC));
	printf("handlers ran %d\n", handled);

	/* Another process wakes the third of four shared futexes. */
	uint32_t *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pid = fork();
	if (pid == 0) {
		struct futex_waitv cv[4];
		for (int i = 0; i < 4; i++)
			cv[i] = (struct futex_waitv){ 0, (uintptr_t)&w[i * 16], FUTEX2_SIZE_U32, 0 };
		_exit((int)waitv(cv, 4, 0, NULL, 0) + 100);
	}
	long r = 0;
	for (int i = 0; i < 5000 && r == 0; i++) {
		r = syscall(SYS_futex, &w[32], FUTEX_WAKE, 1, NULL, NULL, 0);
		if (r == 0)
			usleep(1000);
	}
	int st;
	waitpid(pid, &st, 0);
	printf("wake of futex 2 from another process: %ld, waiter returned %d\n", r,
	    WEXITSTATUS(st) - 100);
	/* A private entry in the vector does not meet another process. */
	pid = fork();
	if (pid == 0) {
		struct futex_waitv cv[2] = {
			{ 0, (uintptr_t)&w[0], FUTEX2_SIZE_U32 | FUTEX2_PRIVATE, 0 },
			{ 0, (uintptr_t)&w[16], FUTEX2_SIZE_U32, 0 },
		};
		_exit((int)waitv(cv, 2, 0, NULL, 0) + 100);
	}
	usleep(20000);
	printf("shared wake of a private entry: %ld\n", syscall(SYS_futex, &w[0], FUTEX_WAKE, 1, NULL, NULL, 0));
	for (int i = 0, r = 0; i < 5000 && r == 0; i++) {
		r = syscall(SYS_futex, &w[16], FUTEX_WAKE, 1, NULL, NULL, 0);
		if (r == 0)
			usleep(1000);
	}
	waitpid(pid, &st, 0);
	printf("then the shared entry's: waiter returned %d\n", WEXITSTATUS(st) - 100);
	return 0;
}

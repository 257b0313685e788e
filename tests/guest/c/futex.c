/*
 * futex(2) without PI: every operation and its errors, timeouts
 * (relative, absolute, CLOCK_REALTIME), signals (EINTR and restarts),
 * and shared futexes between processes that share a MAP_SHARED mapping.
 * Private futexes in the same memory do not meet across processes, and
 * private and shared operations on one word do not meet at all (Linux).
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "futextest.h"

/* <linux/futex.h>, which musl-gcc does not see */
enum {
	FUTEX_WAIT, FUTEX_WAKE, FUTEX_FD, FUTEX_REQUEUE, FUTEX_CMP_REQUEUE,
	FUTEX_WAKE_OP, FUTEX_LOCK_PI, FUTEX_UNLOCK_PI, FUTEX_TRYLOCK_PI,
	FUTEX_WAIT_BITSET, FUTEX_WAKE_BITSET, FUTEX_WAIT_REQUEUE_PI,
	FUTEX_CMP_REQUEUE_PI, FUTEX_LOCK_PI2,
};
#define FUTEX_PRIVATE_FLAG	128
#define FUTEX_CLOCK_REALTIME	256
#define FUTEX_WAIT_PRIVATE	(FUTEX_WAIT | FUTEX_PRIVATE_FLAG)
#define FUTEX_WAKE_PRIVATE	(FUTEX_WAKE | FUTEX_PRIVATE_FLAG)
#define FUTEX_CMP_REQUEUE_PRIVATE (FUTEX_CMP_REQUEUE | FUTEX_PRIVATE_FLAG)
#define FUTEX_WAKE_OP_PRIVATE	(FUTEX_WAKE_OP | FUTEX_PRIVATE_FLAG)
#define FUTEX_WAIT_BITSET_PRIVATE (FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG)
enum { FUTEX_OP_SET, FUTEX_OP_ADD, FUTEX_OP_OR, FUTEX_OP_ANDN, FUTEX_OP_XOR };
#define FUTEX_OP_OPARG_SHIFT	8
enum { FUTEX_OP_CMP_EQ, FUTEX_OP_CMP_NE, FUTEX_OP_CMP_LT, FUTEX_OP_CMP_LE,
	FUTEX_OP_CMP_GT, FUTEX_OP_CMP_GE };

/* FUTEX_OP, without its warnings: op (with OPARG_SHIFT), 12-bit args. */
#define OP(op, oparg, cmp, cmparg) \
	((uint32_t)(op) << 28 | (uint32_t)(cmp) << 24 | \
	 ((uint32_t)(oparg) & 0xfff) << 12 | ((uint32_t)(cmparg) & 0xfff))

#define CHECK(what, call) printf("%-44s %s\n", what, err(call))

static double
now(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct timespec
ms_ts(int ms)
{
	return (struct timespec){ ms / 1000, (ms % 1000) * 1000000L };
}

/* An absolute time ms from now on clock c. */
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

/* A page of memory shared with children. */
static uint32_t *
shared_page(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

/*
 * Wakes one waiter on w with op (after it has gone to sleep): retries
 * for up to 5 s.  Returns what the last wake returned.
 */
static long
wake_when_waiting(uint32_t *w, int op, uint32_t bitset)
{
	long r = 0;
	for (int i = 0; i < 5000 && r == 0; i++) {
		r = fx(w, op, 1, NULL, NULL, bitset);
		if (r == 0)
			usleep(1000);
	}
	return r;
}

/* A child waiting on w (op, value val); its exit status is the result. */
static pid_t
waiter(uint32_t *w, int op, uint32_t val, uint32_t bitset)
{
	pid_t pid = fork();
	if (pid == 0) {
		long r = fx(w, op, val, NULL, NULL, bitset);
		_exit(r == 0 ? 0 : (int)-r);
	}
	return pid;
}

static const char *
reap(pid_t pid)
{
	int st;
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st))
		return "killed";
	return err(-(long)WEXITSTATUS(st));
}

static void
errors(void)
{
	uint32_t w = 7, aligned[2] = { 0, 0 };
	struct timespec t = ms_ts(1), bad = { 0, 1000000000 }, neg = { -1, 0 };
	char *unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(unmapped, 4096);

	CHECK("WAIT value differs", fx(&w, FUTEX_WAIT, 8, NULL, NULL, 0));
	CHECK("WAIT_PRIVATE value differs", fx(&w, FUTEX_WAIT_PRIVATE, 8, NULL, NULL, 0));
	CHECK("WAIT misaligned", fx((char *)aligned + 2, FUTEX_WAIT, 0, NULL, NULL, 0));
	CHECK("WAKE misaligned", fx((char *)aligned + 1, FUTEX_WAKE, 1, NULL, NULL, 0));
	CHECK("WAIT NULL", fx(NULL, FUTEX_WAIT, 0, NULL, NULL, 0));
	CHECK("WAIT_PRIVATE unmapped", fx(unmapped, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0));
	CHECK("WAIT unmapped", fx(unmapped, FUTEX_WAIT, 0, NULL, NULL, 0));
	CHECK("WAKE_PRIVATE unmapped (no access)", fx(unmapped, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0));
	CHECK("WAKE unmapped", fx(unmapped, FUTEX_WAKE, 1, NULL, NULL, 0));
	CHECK("WAKE kernel address", fx((void *)0xffffffff80000000UL, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0));
	CHECK("WAKE no waiters", fx(&w, FUTEX_WAKE, 1, NULL, NULL, 0));
	CHECK("WAIT_BITSET bitset 0", fx(&w, FUTEX_WAIT_BITSET, 7, NULL, NULL, 0));
	CHECK("WAKE_BITSET bitset 0", fx(&w, FUTEX_WAKE_BITSET, 1, NULL, NULL, 0));
	CHECK("WAIT timeout nsec 1e9", fx(&w, FUTEX_WAIT, 7, &bad, NULL, 0));
	CHECK("WAIT timeout negative", fx(&w, FUTEX_WAIT, 7, &neg, NULL, 0));
	CHECK("WAIT timeout unmapped", fx(&w, FUTEX_WAIT, 7, unmapped, NULL, 0));
	CHECK("WAIT timeout bad, value differs", fx(&w, FUTEX_WAIT, 8, &bad, NULL, 0));
	CHECK("WAKE bad 'timeout' is a count", fx(&w, FUTEX_WAKE, 1, unmapped, NULL, 0));
	CHECK("FUTEX_FD", fx(&w, 2, 0, NULL, NULL, 0));
	CHECK("command 14", fx(&w, 14, 0, NULL, NULL, 0));
	CHECK("command 127", fx(&w, 127, 0, NULL, NULL, 0));
	CHECK("WAKE|CLOCK_REALTIME", fx(&w, FUTEX_WAKE | FUTEX_CLOCK_REALTIME, 1, NULL, NULL, 0));
	CHECK("WAIT|CLOCK_REALTIME", fx(&w, FUTEX_WAIT | FUTEX_CLOCK_REALTIME, 7, &t, NULL, 0));
	CHECK("WAIT|CLOCK_REALTIME value differs", fx(&w, FUTEX_WAIT | FUTEX_CLOCK_REALTIME, 8, NULL, NULL, 0));
	CHECK("REQUEUE negative wake", fx(&w, FUTEX_REQUEUE, -1, (void *)1, aligned, 0));
	CHECK("REQUEUE negative requeue", fx(&w, FUTEX_REQUEUE, 1, (void *)-1L, aligned, 0));
	CHECK("REQUEUE misaligned target", fx(&w, FUTEX_REQUEUE, 1, (void *)1, (char *)aligned + 2, 0));
	CHECK("REQUEUE nobody", fx(&w, FUTEX_REQUEUE, 1, (void *)1, aligned, 0));
	CHECK("CMP_REQUEUE value differs", fx(&w, FUTEX_CMP_REQUEUE, 1, (void *)1, aligned, 8));
	CHECK("CMP_REQUEUE same", fx(&w, FUTEX_CMP_REQUEUE, 1, (void *)1, aligned, 7));
	CHECK("CMP_REQUEUE unmapped", fx(unmapped, FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)1, aligned, 7));
}

static void
timeouts(void)
{
	uint32_t w = 0;
	struct timespec t = ms_ts(30), zero = { 0, 0 }, past = { 1, 0 };
	double t0 = now(CLOCK_MONOTONIC);
	long r = fx(&w, FUTEX_WAIT_PRIVATE, 0, &t, NULL, 0);
	double el = now(CLOCK_MONOTONIC) - t0;
	printf("WAIT 30 ms relative: %s, waited enough %d\n", err(r), el >= 0.029);
	CHECK("WAIT zero timeout", fx(&w, FUTEX_WAIT, 0, &zero, NULL, 0));
	CHECK("WAIT_BITSET absolute in the past", fx(&w, FUTEX_WAIT_BITSET, 0, &past, NULL, ~0u));
	CHECK("WAIT_BITSET|REALTIME in the past", fx(&w, FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, 0, &past, NULL, ~0u));
	t = abs_ts(CLOCK_MONOTONIC, 30);
	t0 = now(CLOCK_MONOTONIC);
	r = fx(&w, FUTEX_WAIT_BITSET_PRIVATE, 0, &t, NULL, ~0u);
	el = now(CLOCK_MONOTONIC) - t0;
	printf("WAIT_BITSET monotonic +30 ms: %s, waited enough %d\n", err(r), el >= 0.029);
	t = abs_ts(CLOCK_REALTIME, 30);
	t0 = now(CLOCK_REALTIME);
	r = fx(&w, FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, 0, &t, NULL, 1);
	el = now(CLOCK_REALTIME) - t0;
	printf("WAIT_BITSET realtime +30 ms: %s, waited enough %d\n", err(r), el >= 0.029);
}

static volatile int handled;

static void
on_alarm(int sig)
{
	(void)sig;
	handled++;
}

static uint32_t *alarm_word;

static void
on_alarm_change(int sig)
{
	(void)sig;
	handled++;
	*alarm_word = 1;
}

static void
catch(void (*fn)(int), int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigaction(SIGALRM, &sa, NULL);
}

static void
alarm_ms(int ms)
{
	struct itimerval it = { { 0, 0 }, { 0, ms * 1000 } };
	setitimer(ITIMER_REAL, &it, NULL);
}

static void
signals(void)
{
	static uint32_t w;
	struct timespec t;

	catch(on_alarm, 0);
	alarm_ms(20);
	CHECK("WAIT, handler without SA_RESTART", fx(&w, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0));
	/* Restarted after the handler: the word it changed is seen. */
	alarm_word = &w;
	catch(on_alarm_change, SA_RESTART);
	alarm_ms(20);
	CHECK("WAIT, SA_RESTART handler (restarted)", fx(&w, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0));
	w = 0;
	/* With a timeout the restart block ends in EINTR once a handler ran. */
	alarm_ms(20);
	t = ms_ts(2000);
	CHECK("WAIT timeout, SA_RESTART handler", fx(&w, FUTEX_WAIT_PRIVATE, 0, &t, NULL, 0));
	w = 0;
	alarm_ms(20);
	t = abs_ts(CLOCK_MONOTONIC, 2000);
	CHECK("WAIT_BITSET abs, SA_RESTART handler", fx(&w, FUTEX_WAIT_BITSET_PRIVATE, 0, &t, NULL, ~0u));
	w = 0;
	printf("handlers ran %d\n", handled);
	signal(SIGALRM, SIG_DFL);

	/* Stopped and continued: no handler runs, the wait goes on to its deadline. */
	pid_t pid = fork();
	if (pid == 0) {
		struct timespec ts = ms_ts(300);
		double t0 = now(CLOCK_MONOTONIC);
		long r = fx(&w, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
		double el = now(CLOCK_MONOTONIC) - t0;
		_exit(r == -ETIMEDOUT ? (el >= 0.29 && el < 5 ? 0 : 2) : 1);
	}
	usleep(50000);
	kill(pid, SIGSTOP);
	usleep(20000);
	kill(pid, SIGCONT);
	int st;
	waitpid(pid, &st, 0);
	printf("WAIT across stop/continue: status %d\n", WEXITSTATUS(st));
}

static void
shared(void)
{
	uint32_t *w = shared_page();
	pid_t a, b;

	a = waiter(&w[0], FUTEX_WAIT, 0, 0);
	printf("shared WAKE wakes %ld\n", wake_when_waiting(&w[0], FUTEX_WAKE, 0));
	printf("  waiter: %s\n", reap(a));

	/* A private waiter in shared memory meets nobody in the parent. */
	a = waiter(&w[1], FUTEX_WAIT_PRIVATE, 0, 0);
	usleep(20000);
	printf("WAKE_PRIVATE from another process wakes %ld\n", fx(&w[1], FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0));
	printf("shared WAKE on a private waiter wakes %ld\n", fx(&w[1], FUTEX_WAKE, 1, NULL, NULL, 0));
	kill(a, SIGKILL);
	printf("  waiter: %s\n", reap(a));

	/* And a shared waiter is not woken by a private wake in its own process. */
	a = fork();
	if (a == 0) {
		pid_t c = waiter(&w[2], FUTEX_WAIT, 0, 0);
		(void)c;
		usleep(20000);
		long r = fx(&w[2], FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		_exit(r == 0 ? 0 : 1);
	}
	printf("WAKE_PRIVATE on a shared waiter: %s\n", reap(a));
	printf("  then shared WAKE wakes %ld\n", wake_when_waiting(&w[2], FUTEX_WAKE, 0));
	while (wait(NULL) > 0)
		;

	/* Bitsets. */
	a = waiter(&w[3], FUTEX_WAIT_BITSET, 0, 0x1);
	usleep(20000);
	printf("WAKE_BITSET 0x2 on a 0x1 waiter wakes %ld\n", fx(&w[3], FUTEX_WAKE_BITSET, 1, NULL, NULL, 0x2));
	printf("WAKE_BITSET 0x3 wakes %ld\n", wake_when_waiting(&w[3], FUTEX_WAKE_BITSET, 0x3));
	printf("  waiter: %s\n", reap(a));

	/* Requeue: two waiters on w[4]; one woken, one moved to w[5]. */
	a = waiter(&w[4], FUTEX_WAIT, 0, 0);
	b = waiter(&w[4], FUTEX_WAIT, 0, 0);
	long r = 0;
	for (int i = 0; i < 5000; i++) {
		/* Move both to w[6] and back until both are there. */
		r = fx(&w[4], FUTEX_REQUEUE, 0, (void *)2, &w[6], 0);
		if (r == 2 || fx(&w[6], FUTEX_REQUEUE, 0, (void *)2, &w[4], 0) == 2) {
			if (r != 2)
				fx(&w[4], FUTEX_REQUEUE, 0, (void *)2, &w[6], 0);
			break;
		}
		usleep(1000);
	}
	printf("CMP_REQUEUE value differs: %s\n", err(fx(&w[6], FUTEX_CMP_REQUEUE, 1, (void *)1, &w[5], 1)));
	printf("CMP_REQUEUE 1 wake, 1 requeue: %ld\n", fx(&w[6], FUTEX_CMP_REQUEUE, 1, (void *)1, &w[5], 0));
	printf("WAKE old word: %ld\n", fx(&w[6], FUTEX_WAKE, 1, NULL, NULL, 0));
	printf("WAKE new word: %ld\n", fx(&w[5], FUTEX_WAKE, 10, NULL, NULL, 0));
	printf("  waiters: %s", reap(a));
	printf(" %s\n", reap(b));

	/* WAKE_OP: the second word's old value decides. */
	w[7] = 5;
	a = waiter(&w[8], FUTEX_WAIT, 0, 0);
	for (int i = 0; i < 5000; i++) {
		r = fx(&w[8], FUTEX_REQUEUE, 0, (void *)1, &w[8], 0);	/* is it there? */
		if (r == 1)
			break;
		usleep(1000);
	}
	r = fx(&w[9], FUTEX_WAKE_OP, 1, (void *)1, &w[8],
	    OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_NE, 0));
	printf("WAKE_OP add, old 0 != 0 fails: %ld, word %u\n", r, w[8]);
	r = fx(&w[9], FUTEX_WAKE_OP, 1, (void *)1, &w[8],
	    OP(FUTEX_OP_ADD, 1, FUTEX_OP_CMP_EQ, 1));
	printf("WAKE_OP add, old 1 == 1 wakes: %ld, word %u\n", r, w[8]);
	printf("  waiter: %s\n", reap(a));
	while (wait(NULL) > 0)
		;
	munmap(w, 4096);
}

static void
wake_op(void)
{
	static uint32_t a, b;
	static const struct { const char *name; uint32_t op; } ops[] = {
		{ "SET 5", OP(FUTEX_OP_SET, 5, FUTEX_OP_CMP_EQ, 0) },
		{ "ADD -3", OP(FUTEX_OP_ADD, -3, FUTEX_OP_CMP_EQ, 0) },
		{ "OR 0x30", OP(FUTEX_OP_OR, 0x30, FUTEX_OP_CMP_EQ, 0) },
		{ "ANDN 0x10", OP(FUTEX_OP_ANDN, 0x10, FUTEX_OP_CMP_EQ, 0) },
		{ "XOR 0xfff", OP(FUTEX_OP_XOR, 0xfff, FUTEX_OP_CMP_EQ, 0) },
		{ "SET 1<<4", OP(FUTEX_OP_SET | FUTEX_OP_OPARG_SHIFT, 4, FUTEX_OP_CMP_EQ, 0) },
		{ "OR 1<<31", OP(FUTEX_OP_OR | FUTEX_OP_OPARG_SHIFT, 31, FUTEX_OP_CMP_EQ, 0) },
		{ "SET 1<<(33&31)", OP(FUTEX_OP_SET | FUTEX_OP_OPARG_SHIFT, 33, FUTEX_OP_CMP_EQ, 0) },
		{ "op 5", OP(5, 1, FUTEX_OP_CMP_EQ, 0) },
		{ "op 7", OP(7, 1, FUTEX_OP_CMP_EQ, 0) },
		{ "SET 9, cmp 6", OP(FUTEX_OP_SET, 9, 6, 0) },
		{ "SET 2, cmp 15", OP(FUTEX_OP_SET, 2, 15, 0) },
	};
	b = 0x10;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		long r = fx(&a, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1, &b, ops[i].op);
		printf("WAKE_OP %-16s %s, word %#x\n", ops[i].name, err(r), b);
	}
	/*
	 * The comparisons, signed, seen by whether a waiter on the second
	 * word wakes: a child waits on it again after each wake.
	 */
	static const int cmps[] = { FUTEX_OP_CMP_EQ, FUTEX_OP_CMP_NE, FUTEX_OP_CMP_LT,
	    FUTEX_OP_CMP_LE, FUTEX_OP_CMP_GT, FUTEX_OP_CMP_GE };
	uint32_t *w = shared_page();
	w[0] = (uint32_t)-2;
	pid_t pid = fork();
	if (pid == 0) {
		for (;;)
			fx(&w[0], FUTEX_WAIT, (uint32_t)-2, NULL, NULL, 0);
	}
	for (size_t i = 0; i < 6; i++) {
		long r[2];
		for (int j = 0; j < 2; j++) {
			/* until the child waits: a requeue onto itself counts it */
			for (int k = 0; k < 5000; k++) {
				if (fx(&w[0], FUTEX_REQUEUE, 0, (void *)1, &w[0], 0) == 1)
					break;
				usleep(1000);
			}
			r[j] = fx(&w[1], FUTEX_WAKE_OP, 1, (void *)1, &w[0],
			    OP(FUTEX_OP_SET, -2, cmps[i], j == 0 ? -2 : 3));
		}
		printf("WAKE_OP cmp %zu: -2 vs -2 wakes %ld, -2 vs 3 wakes %ld\n", i, r[0], r[1]);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	munmap(w, 4096);
	static const uint32_t ro __attribute__((aligned(4)));
	char *unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK("WAKE_OP target unmapped", fx(&a, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1, unmapped, 0));
	CHECK("WAKE_OP target read-only",
	    fx(&a, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1, (void *)&ro, 0));
	CHECK("WAKE_OP target misaligned", fx(&a, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1, (char *)&b + 1, 0));
	munmap(unmapped, 4096);
}

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	errors();
	timeouts();
	signals();
	shared();
	wake_op();
	return 0;
}

/*
 * Private futexes between threads of one process: wait and wake, requeue,
 * PI hand-off and a PI owner's death, futex_waitv, and the C library's
 * mutexes (robust, PI), condition variables and barriers on top; a
 * private futex does not meet another process sharing the page.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "futextest.h"

enum {
	FUTEX_WAIT, FUTEX_WAKE, FUTEX_FD, FUTEX_REQUEUE, FUTEX_CMP_REQUEUE,
	FUTEX_WAKE_OP, FUTEX_LOCK_PI, FUTEX_UNLOCK_PI, FUTEX_TRYLOCK_PI,
};
#define P	128	/* FUTEX_PRIVATE_FLAG */
#define FUTEX_WAITERS		0x80000000u
#define FUTEX_OWNER_DIED	0x40000000u
#define FUTEX_TID_MASK		0x3fffffffu
#define FUTEX2_SIZE_U32		0x02
#define FUTEX2_PRIVATE		128
#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif

struct futex_waitv {
	uint64_t val, uaddr;
	uint32_t flags, reserved;
};

static pid_t
gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* Waits up to 5 s for the thread with tid to sleep (/proc/self/task/TID/stat). */
static void
wait_sleeping(pid_t tid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	for (int i = 0; i < 5000; i++) {
		FILE *f = fopen(path, "r");
		size_t n = f != NULL ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
		if (f != NULL)
			fclose(f);
		buf[n] = '\0';
		char *p = strrchr(buf, ')');
		if (p != NULL && p[1] == ' ' && p[2] == 'S')
			return;
		usleep(1000);
	}
}

static uint32_t a, b, m;
static volatile pid_t tids[8];
static long results[8];
static uint32_t seen[8];

static void *
waiter_a(void *arg)
{
	int i = (int)(intptr_t)arg;
	tids[i] = gettid_();
	results[i] = fx(&a, FUTEX_WAIT | P, 0, NULL, NULL, 0);
	return NULL;
}

static void *
pi_locker(void *arg)
{
	int i = (int)(intptr_t)arg;
	tids[i] = gettid_();
	results[i] = fx(&m, FUTEX_LOCK_PI | P, 0, NULL, NULL, 0);
	seen[i] = m;
	if (results[i] == 0)
		results[i + 4] = fx(&m, FUTEX_UNLOCK_PI | P, 0, NULL, NULL, 0);
	return NULL;
}

static void *
pi_holder_dies(void *arg)
{
	int i = (int)(intptr_t)arg;
	tids[i] = gettid_();
	results[i] = fx(&m, FUTEX_TRYLOCK_PI | P, 0, NULL, NULL, 0);
	while (!(__atomic_load_n(&m, __ATOMIC_SEQ_CST) & FUTEX_WAITERS))
		usleep(1000);
	return NULL;	/* exits holding it */
}

static void *
waitv_waiter(void *arg)
{
	int i = (int)(intptr_t)arg;
	struct futex_waitv v[2] = {
		{ 0, (uintptr_t)&a, FUTEX2_SIZE_U32 | FUTEX2_PRIVATE, 0 },
		{ 0, (uintptr_t)&b, FUTEX2_SIZE_U32 | FUTEX2_PRIVATE, 0 },
	};
	tids[i] = gettid_();
	long r = syscall(SYS_futex_waitv, v, 2, 0, NULL, 0);
	results[i] = r < 0 ? -errno : r;
	return NULL;
}

static const char *
who(uint32_t w, int i)
{
	static char buf[64];
	snprintf(buf, sizeof(buf), "%s%s%s",
	    (pid_t)(w & FUTEX_TID_MASK) == tids[i] ? "itself" :
	    (w & FUTEX_TID_MASK) == 0 ? "0" : "other",
	    (w & FUTEX_WAITERS) ? "|WAITERS" : "",
	    (w & FUTEX_OWNER_DIED) ? "|OWNER_DIED" : "");
	return buf;
}

static void
raw_futexes(void)
{
	pthread_t t[4];

	/* Wait and wake. */
	pthread_create(&t[0], NULL, waiter_a, (void *)0);
	while (tids[0] == 0)
		usleep(1000);
	wait_sleeping(tids[0]);
	/* A child process sharing nothing private does not reach it. */
	pid_t pid = fork();
	if (pid == 0)
		_exit((int)fx(&a, FUTEX_WAKE | P, 1, NULL, NULL, 0));
	int st;
	waitpid(pid, &st, 0);
	printf("private WAKE from a forked child: %d\n", WEXITSTATUS(st));
	printf("shared WAKE on a private waiter: %ld\n", fx(&a, FUTEX_WAKE, 1, NULL, NULL, 0));
	printf("private WAKE: %ld\n", fx(&a, FUTEX_WAKE | P, 1, NULL, NULL, 0));
	pthread_join(t[0], NULL);
	printf("  waiter: %s\n", err(results[0]));

	/* Requeue three waiters: one woken, two moved to b. */
	memset((void *)tids, 0, sizeof(tids));
	for (int i = 0; i < 3; i++) {
		pthread_create(&t[i], NULL, waiter_a, (void *)(intptr_t)i);
		while (tids[i] == 0)
			usleep(1000);
		wait_sleeping(tids[i]);
	}
	printf("CMP_REQUEUE_PRIVATE 1+2: %ld\n", fx(&a, FUTEX_CMP_REQUEUE | P, 1, (void *)2, &b, 0));
	printf("WAKE b: %ld\n", fx(&b, FUTEX_WAKE | P, 5, NULL, NULL, 0));
	for (int i = 0; i < 3; i++) {
		pthread_join(t[i], NULL);
		printf("  waiter %d: %s\n", i, err(results[i]));
	}

	/* PI: the unlock hands over to the waiting thread. */
	memset((void *)tids, 0, sizeof(tids));
	fx(&m, FUTEX_TRYLOCK_PI | P, 0, NULL, NULL, 0);
	pthread_create(&t[0], NULL, pi_locker, (void *)0);
	while (tids[0] == 0)
		usleep(1000);
	wait_sleeping(tids[0]);
	printf("UNLOCK_PI: %s\n", err(fx(&m, FUTEX_UNLOCK_PI | P, 0, NULL, NULL, 0)));
	pthread_join(t[0], NULL);
	printf("  thread: LOCK_PI %s, word %s, UNLOCK_PI %s\n", err(results[0]),
	    who(seen[0], 0), err(results[4]));

	/* A thread dies holding a PI lock with a waiter: the waiter gets it. */
	memset((void *)tids, 0, sizeof(tids));
	m = 0;
	pthread_create(&t[1], NULL, pi_holder_dies, (void *)1);
	while (m == 0)
		usleep(1000);
	pthread_create(&t[0], NULL, pi_locker, (void *)0);
	pthread_join(t[1], NULL);
	pthread_join(t[0], NULL);
	printf("PI owner thread exits: LOCK_PI %s, word %s, UNLOCK_PI %s\n",
	    err(results[0]), who(seen[0], 0), err(results[4]));
	printf("  the word now %s\n", who(m, 0));

	/* futex_waitv between threads. */
	memset((void *)tids, 0, sizeof(tids));
	a = b = 0;
	pthread_create(&t[0], NULL, waitv_waiter, (void *)0);
	while (tids[0] == 0)
		usleep(1000);
	wait_sleeping(tids[0]);
	printf("WAKE of b: %ld\n", fx(&b, FUTEX_WAKE | P, 1, NULL, NULL, 0));
	pthread_join(t[0], NULL);
	printf("  futex_waitv: %s\n", err(results[0]));
}

/* The C library's primitives: four threads, a result that must be exact. */
static pthread_mutex_t robust, pi;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t bar;
static long counter;
static int go;

static void *
robust_owner(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&robust);
	return NULL;	/* exits holding it */
}

static void *
pi_worker(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&bar);
	for (int i = 0; i < 20000; i++) {
		pthread_mutex_lock(&pi);
		counter++;
		pthread_mutex_unlock(&pi);
	}
	pthread_mutex_lock(&cm);
	while (!go)
		pthread_cond_wait(&cv, &cm);
	pthread_mutex_unlock(&cm);
	return NULL;
}

static void
libc(void)
{
	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&robust, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&pi, &ma);

	pthread_t t[4];
	pthread_create(&t[0], NULL, robust_owner, NULL);
	pthread_join(t[0], NULL);
	int r = pthread_mutex_lock(&robust);
	printf("robust mutex, owner thread exited: %s\n", r == EOWNERDEAD ? "EOWNERDEAD" : strerror(r));
	r = pthread_mutex_consistent(&robust);
	printf("  consistent %d\n", r);
	pthread_mutex_unlock(&robust);

	pthread_barrier_init(&bar, NULL, 4);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, pi_worker, NULL);
	usleep(20000);
	pthread_mutex_lock(&cm);
	go = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&cm);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("four threads under a PI mutex: %ld\n", counter);
}

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	raw_futexes();
	libc();
	return 0;
}

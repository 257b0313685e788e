/*
 * Cancellation: deferred cancellation takes a thread blocked in read,
 * in nanosleep and in pthread_cond_wait (with the mutex held again for
 * its cleanup handler); cleanup handlers run last-pushed first; with
 * cancellation disabled the request waits until pthread_testcancel;
 * asynchronous cancellation stops a thread spinning in user code.  Each
 * joins as PTHREAD_CANCELED.
 */
#include "thr.h"
#include <semaphore.h>

static int pipefd[2];
static sem_t started, go_on;
static char order[8];
static int norder;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void *
reader(void *arg)
{
	char c;
	(void)arg;
	sem_post(&started);
	read(pipefd[0], &c, 1);
	return NULL;
}

static void
record(void *arg)
{
	order[norder++] = *(char *)arg;
}

static void *
sleeper(void *arg)
{
	(void)arg;
	pthread_cleanup_push(record, "1");
	pthread_cleanup_push(record, "2");
	pthread_cleanup_push(record, "3");
	sem_post(&started);
	thr_sleep_ms(100000);
	pthread_cleanup_pop(0);
	pthread_cleanup_pop(0);
	pthread_cleanup_pop(0);
	return NULL;
}

static int owned_in_cleanup;

static void
unlock_cleanup(void *arg)
{
	(void)arg;
	/* The cancelled pthread_cond_wait took the mutex back: trylock fails. */
	owned_in_cleanup = pthread_mutex_trylock(&m) != 0;
	pthread_mutex_unlock(&m);
}

static void *
cond_waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	pthread_cleanup_push(unlock_cleanup, NULL);
	sem_post(&started);
	for (;;)
		pthread_cond_wait(&cv, &m);
	pthread_cleanup_pop(1);
	return NULL;
}

static int passed_wait, passed_test;

static void *
disabled(void *arg)
{
	(void)arg;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	sem_post(&started);
	sem_wait(&go_on);
	passed_wait = 1;
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
	pthread_testcancel();
	passed_test = 1;
	return NULL;
}

static void *
spinner(void *arg)
{
	volatile unsigned long n = 0;
	(void)arg;
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	sem_post(&started);
	for (;;)
		n++;
	return NULL;
}

/* Starts fn, waits until it is about to block, cancels it, joins it. */
static void *
cancel_one(void *(*fn)(void *))
{
	pthread_t t;
	thr_create(&t, NULL, fn, NULL);
	sem_wait(&started);
	thr_sleep_ms(20);
	int e = pthread_cancel(t);
	if (e != 0)
		printf("FAIL pthread_cancel: %s\n", strerror(e));
	return thr_join(t);
}

int
main(void)
{
	pthread_t t;

	thr_init();
	sem_init(&started, 0, 0);
	sem_init(&go_on, 0, 0);
	pipe(pipefd);
	CHECK(cancel_one(reader) == PTHREAD_CANCELED, "cancelled in read: PTHREAD_CANCELED");
	CHECK(cancel_one(sleeper) == PTHREAD_CANCELED, "cancelled in nanosleep: PTHREAD_CANCELED");
	EXPECT(norder, 3, "three cleanup handlers ran");
	CHECK(memcmp(order, "321", 3) == 0, "cleanup handlers: the last pushed first");
	CHECK(cancel_one(cond_waiter) == PTHREAD_CANCELED, "cancelled in pthread_cond_wait: PTHREAD_CANCELED");
	EXPECT(owned_in_cleanup, 1, "its cleanup handler holds the mutex");
	EXPECT(pthread_mutex_trylock(&m), 0, "the mutex is free after");
	pthread_mutex_unlock(&m);

	thr_create(&t, NULL, disabled, NULL);
	sem_wait(&started);
	EXPECT(pthread_cancel(t), 0, "pthread_cancel with cancellation disabled");
	sem_post(&go_on);
	CHECK(thr_join(t) == PTHREAD_CANCELED, "disabled, then testcancel: PTHREAD_CANCELED");
	EXPECT(passed_wait, 1, "disabled: not cancelled in sem_wait");
	EXPECT(passed_test, 0, "enabled: cancelled in pthread_testcancel");

	CHECK(cancel_one(spinner) == PTHREAD_CANCELED, "asynchronous, spinning: PTHREAD_CANCELED");
	return thr_exit_status();
}

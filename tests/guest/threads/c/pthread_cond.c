/*
 * Condition variables: a producer and a consumer pass 1..1000 through a
 * four-slot ring with pthread_cond_signal; a broadcast wakes all four
 * waiters; pthread_cond_timedwait times out with ETIMEDOUT on the
 * realtime and the monotonic clock, and returns 0 when signalled first.
 */
#include "thr.h"

#define ITEMS	1000
#define SLOTS	4
#define NTHR	4

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static int ring[SLOTS], head, count;

static void *
producer(void *arg)
{
	(void)arg;
	for (int i = 1; i <= ITEMS; i++) {
		pthread_mutex_lock(&m);
		while (count == SLOTS)
			pthread_cond_wait(&not_full, &m);
		ring[(head + count) % SLOTS] = i;
		count++;
		pthread_cond_signal(&not_empty);
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

static void *
consumer(void *arg)
{
	long sum = 0, in_order = 1;
	(void)arg;
	for (int i = 1; i <= ITEMS; i++) {
		pthread_mutex_lock(&m);
		while (count == 0)
			pthread_cond_wait(&not_empty, &m);
		int v = ring[head];
		head = (head + 1) % SLOTS;
		count--;
		pthread_cond_signal(&not_full);
		pthread_mutex_unlock(&m);
		sum += v;
		in_order &= v == i;
	}
	return (void *)(sum * in_order);
}

static pthread_cond_t go_cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t waiting_cv = PTHREAD_COND_INITIALIZER;
static int go, waiting, woken;

static void *
broadcast_waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	waiting++;
	pthread_cond_signal(&waiting_cv);
	while (!go)
		pthread_cond_wait(&go_cv, &m);
	woken++;
	pthread_mutex_unlock(&m);
	return NULL;
}

static int ready;

/* Waits up to 10 s for ready, which main sets and signals. */
static void *
patient_waiter(void *arg)
{
	pthread_cond_t *cv = arg;
	struct timespec dl = thr_deadline(CLOCK_MONOTONIC, 10000);
	long r = 0;
	pthread_mutex_lock(&m);
	while (!ready && r == 0)
		r = pthread_cond_timedwait(cv, &m, &dl);
	pthread_mutex_unlock(&m);
	return (void *)r;
}

int
main(void)
{
	pthread_t t[NTHR];
	pthread_condattr_t ca;
	pthread_cond_t mono;
	struct timespec dl;

	thr_init();
	thr_create(&t[0], NULL, producer, NULL);
	thr_create(&t[1], NULL, consumer, NULL);
	thr_join(t[0]);
	EXPECT((long)thr_join(t[1]), ITEMS * (ITEMS + 1) / 2,
	    "signal: 1..1000 through a four-slot ring, in order");

	for (int i = 0; i < NTHR; i++)
		thr_create(&t[i], NULL, broadcast_waiter, NULL);
	pthread_mutex_lock(&m);
	while (waiting < NTHR)
		pthread_cond_wait(&waiting_cv, &m);
	go = 1;
	pthread_cond_broadcast(&go_cv);
	pthread_mutex_unlock(&m);
	for (int i = 0; i < NTHR; i++)
		thr_join(t[i]);
	EXPECT(woken, NTHR, "broadcast: wakes all four waiters");

	pthread_mutex_lock(&m);
	dl = thr_deadline(CLOCK_REALTIME, 50);
	EXPECT(pthread_cond_timedwait(&go_cv, &m, &dl), ETIMEDOUT, "timedwait, realtime: ETIMEDOUT");
	CHECK(thr_passed(CLOCK_REALTIME, dl), "timedwait, realtime: not before the deadline");
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&mono, &ca);
	dl = thr_deadline(CLOCK_MONOTONIC, 50);
	EXPECT(pthread_cond_timedwait(&mono, &m, &dl), ETIMEDOUT, "timedwait, monotonic: ETIMEDOUT");
	CHECK(thr_passed(CLOCK_MONOTONIC, dl), "timedwait, monotonic: not before the deadline");
	dl.tv_sec -= 1;
	EXPECT(pthread_cond_timedwait(&mono, &m, &dl), ETIMEDOUT, "timedwait, a deadline passed: ETIMEDOUT");
	pthread_mutex_unlock(&m);

	thr_create(&t[0], NULL, patient_waiter, &mono);
	thr_sleep_ms(20);
	pthread_mutex_lock(&m);
	ready = 1;
	pthread_cond_signal(&mono);
	pthread_mutex_unlock(&m);
	EXPECT((long)thr_join(t[0]), 0, "timedwait, signalled before the deadline: 0");
	pthread_cond_destroy(&mono);
	pthread_condattr_destroy(&ca);
	return thr_exit_status();
}

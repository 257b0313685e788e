/*
 * Mutexes: four threads count under a normal mutex, a waiter blocks
 * (in the kernel) until the holder unlocks, the error-checking kind
 * reports EDEADLK and EPERM, the recursive kind counts its owner's
 * locks, trylock reports EBUSY; pthread_once runs its routine once and
 * a spin lock excludes as a mutex does.
 */
#include "thr.h"

#define NTHR	4
#define ROUNDS	100000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static int shared;

static void *
adder(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

/* Blocks until main, which holds the lock, has set shared and unlocked. */
static void *
waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	long seen = shared;
	pthread_mutex_unlock(&lock);
	return (void *)seen;
}

static void *
unlock_other(void *m)
{
	return (void *)(long)pthread_mutex_unlock(m);
}

/* trylock from another thread; unlocks again when it got the lock. */
static void *
trylock_other(void *m)
{
	long e = pthread_mutex_trylock(m);
	if (e == 0)
		pthread_mutex_unlock(m);
	return (void *)e;
}

static long
in_thread(void *(*fn)(void *), void *arg)
{
	pthread_t t;
	thr_create(&t, NULL, fn, arg);
	return (long)thr_join(t);
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int once_runs;

static void
once_init(void)
{
	once_runs++;
}

static void *
call_once(void *arg)
{
	(void)arg;
	pthread_once(&once, once_init);
	return NULL;
}

static pthread_spinlock_t spin;
static long spin_counter;

static void *
spin_adder(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		pthread_spin_lock(&spin);
		spin_counter++;
		pthread_spin_unlock(&spin);
	}
	return NULL;
}

int
main(void)
{
	pthread_t t[NTHR];
	pthread_mutexattr_t a;
	pthread_mutex_t m;

	thr_init();
	for (int i = 0; i < NTHR; i++)
		thr_create(&t[i], NULL, adder, NULL);
	for (int i = 0; i < NTHR; i++)
		thr_join(t[i]);
	EXPECT(counter, NTHR * ROUNDS, "four threads count under one mutex");

	pthread_mutex_lock(&lock);
	thr_create(&t[0], NULL, waiter, NULL);
	thr_sleep_ms(20);
	shared = 42;
	pthread_mutex_unlock(&lock);
	EXPECT((long)thr_join(t[0]), 42, "a waiter gets the lock once it is unlocked");
	EXPECT(pthread_mutex_trylock(&lock), 0, "normal: trylock of a free mutex");
	EXPECT(pthread_mutex_trylock(&lock), EBUSY, "normal: trylock of a held mutex: EBUSY");
	EXPECT(in_thread(trylock_other, &lock), EBUSY, "normal: trylock from another thread: EBUSY");
	pthread_mutex_unlock(&lock);

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&m, &a);
	EXPECT(pthread_mutex_lock(&m), 0, "errorcheck: lock");
	EXPECT(pthread_mutex_lock(&m), EDEADLK, "errorcheck: relock by the owner: EDEADLK");
	EXPECT(in_thread(unlock_other, &m), EPERM, "errorcheck: unlock by another thread: EPERM");
	EXPECT(in_thread(trylock_other, &m), EBUSY, "errorcheck: trylock by another thread: EBUSY");
	EXPECT(pthread_mutex_unlock(&m), 0, "errorcheck: unlock by the owner");
	EXPECT(pthread_mutex_unlock(&m), EPERM, "errorcheck: unlock of an unlocked mutex: EPERM");
	EXPECT(in_thread(trylock_other, &m), 0, "errorcheck: trylock by another thread once free");
	pthread_mutex_destroy(&m);

	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&m, &a);
	EXPECT(pthread_mutex_lock(&m), 0, "recursive: lock");
	EXPECT(pthread_mutex_lock(&m), 0, "recursive: lock again");
	EXPECT(pthread_mutex_trylock(&m), 0, "recursive: trylock by the owner");
	EXPECT(in_thread(trylock_other, &m), EBUSY, "recursive: trylock by another thread: EBUSY");
	EXPECT(in_thread(unlock_other, &m), EPERM, "recursive: unlock by another thread: EPERM");
	int unlocks = 0;
	while (pthread_mutex_unlock(&m) == 0 && unlocks < 10)
		unlocks++;
	EXPECT(unlocks, 3, "recursive: three unlocks, then EPERM");
	EXPECT(in_thread(trylock_other, &m), 0, "recursive: free for another thread after them");
	pthread_mutex_destroy(&m);
	pthread_mutexattr_destroy(&a);

	for (int i = 0; i < NTHR; i++)
		thr_create(&t[i], NULL, call_once, NULL);
	for (int i = 0; i < NTHR; i++)
		thr_join(t[i]);
	EXPECT(once_runs, 1, "pthread_once: the routine runs once for four threads");

	pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
	for (int i = 0; i < 2; i++)
		thr_create(&t[i], NULL, spin_adder, NULL);
	for (int i = 0; i < 2; i++)
		thr_join(t[i]);
	EXPECT(spin_counter, 2 * ROUNDS, "two threads count under a spin lock");
	return thr_exit_status();
}

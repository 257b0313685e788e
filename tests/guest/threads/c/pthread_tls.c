/*
 * Thread-local storage: each thread starts with the initial values of
 * the __thread variables (whatever main wrote to its own), keeps its
 * own copy at its own address, and its %fs base is its pthread_self();
 * pthread_key values are per thread, and the destructors run at thread
 * exit for non-null values only, again while they set a new value.
 */
#include "thr.h"

#define ARCH_GET_FS	0x1003	/* <asm/prctl.h>, which musl-gcc does not see */

#define NTHR	4

static __thread int tv = 7;
static __thread int tarr[4] = { 1, 2, 3, 4 };
static __thread char tbss[4096];
static pthread_barrier_t bar;
static int *addr[NTHR];
static pthread_key_t key, again_key;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int dtor_calls, dtor_sum, again_calls;

static void
dtor(void *v)
{
	pthread_mutex_lock(&m);
	dtor_calls++;
	dtor_sum += *(int *)v;
	pthread_mutex_unlock(&m);
	free(v);
}

/* Sets its value again on the first call: a second round calls it again. */
static void
again_dtor(void *v)
{
	pthread_mutex_lock(&m);
	again_calls++;
	pthread_mutex_unlock(&m);
	if (v == (void *)1)
		pthread_setspecific(again_key, (void *)2);
}

static void *
worker(void *arg)
{
	int id = (int)(long)arg;
	long bad = 0;
	unsigned long fs = 0;

	bad |= (tv != 7) << 0;
	bad |= (tarr[0] + tarr[1] + tarr[2] + tarr[3] != 10) << 1;
	for (int i = 0; i < (int)sizeof(tbss); i++)
		bad |= (tbss[i] != 0) << 2;
	tv = 100 + id;
	tbss[id] = 1;
	addr[id] = &tv;
	bad |= (pthread_getspecific(key) != NULL) << 3;
	if (id != NTHR - 1) {
		int *v = malloc(sizeof(*v));
		*v = id + 1;
		pthread_setspecific(key, v);
	}
	pthread_setspecific(again_key, (void *)1);
	pthread_barrier_wait(&bar);
	bad |= (tv != 100 + id) << 4;
	for (int i = 0; i < NTHR; i++)
		bad |= (tbss[i] != (i == id)) << 5;
	if (id != NTHR - 1)
		bad |= (*(int *)pthread_getspecific(key) != id + 1) << 6;
	syscall(SYS_arch_prctl, ARCH_GET_FS, &fs);
	bad |= (fs != (unsigned long)pthread_self()) << 7;
	return (void *)bad;
}

int
main(void)
{
	pthread_t t[NTHR];
	long bad = 0;

	thr_init();
	tv = 99;
	tarr[0] = 0;
	tbss[0] = 5;
	pthread_barrier_init(&bar, NULL, NTHR);
	EXPECT(pthread_key_create(&key, dtor), 0, "pthread_key_create");
	pthread_key_create(&again_key, again_dtor);
	for (long i = 0; i < NTHR; i++)
		thr_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < NTHR; i++)
		bad |= (long)thr_join(t[i]);
	EXPECT(bad & 7, 0, "each thread starts with the initial values");
	EXPECT(bad & 0x30, 0, "each thread keeps its own copy");
	EXPECT(bad & 0x48, 0, "pthread_key values are per thread");
	EXPECT(bad & 0x80, 0, "the %fs base is pthread_self()");
	int distinct = 1;
	for (int i = 0; i < NTHR; i++)
		for (int j = 0; j < i; j++)
			distinct &= addr[i] != addr[j] && addr[i] != &tv;
	CHECK(distinct, "each thread's copy at its own address");
	EXPECT(tv, 99, "main's copy untouched");
	EXPECT(dtor_calls, NTHR - 1, "destructors run for non-null values only");
	EXPECT(dtor_sum, NTHR * (NTHR - 1) / 2, "destructors get each thread's value");
	EXPECT(again_calls, 2 * NTHR, "a destructor that sets a value runs again");
	CHECK(pthread_getspecific(key) == NULL, "main's value unset");
	EXPECT(pthread_key_delete(key), 0, "pthread_key_delete");
	return thr_exit_status();
}

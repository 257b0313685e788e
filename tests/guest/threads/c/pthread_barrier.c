/*
 * Barriers: four threads meet 200 times; each round exactly one gets
 * PTHREAD_BARRIER_SERIAL_THREAD, and every thread sees what all the
 * others wrote before the barrier.
 */
#include "thr.h"

#define NTHR	4
#define ROUNDS	200

static pthread_barrier_t bar;
static int slot[2][NTHR];
static int serials, mismatches;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *
runner(void *arg)
{
	int id = (int)(long)arg, bad = 0, serial = 0;
	for (int r = 0; r < ROUNDS; r++) {
		/* Two buffers: round r+2 writes this one only after all passed r+1. */
		slot[r & 1][id] = r * NTHR + id;
		int e = pthread_barrier_wait(&bar);
		if (e == PTHREAD_BARRIER_SERIAL_THREAD)
			serial++;
		else if (e != 0)
			bad++;
		for (int j = 0; j < NTHR; j++)
			bad += slot[r & 1][j] != r * NTHR + j;
	}
	pthread_mutex_lock(&m);
	serials += serial;
	mismatches += bad;
	pthread_mutex_unlock(&m);
	return NULL;
}

int
main(void)
{
	pthread_t t[NTHR];

	thr_init();
	EXPECT(pthread_barrier_init(&bar, NULL, NTHR), 0, "barrier_init for four");
	for (long i = 0; i < NTHR; i++)
		thr_create(&t[i], NULL, runner, (void *)i);
	for (int i = 0; i < NTHR; i++)
		thr_join(t[i]);
	EXPECT(serials, ROUNDS, "one serial thread per round");
	EXPECT(mismatches, 0, "each sees the others' writes after the barrier");
	EXPECT(pthread_barrier_destroy(&bar), 0, "barrier_destroy");
	EXPECT(pthread_barrier_init(&bar, NULL, 0), EINVAL, "barrier_init for none: EINVAL");
	return thr_exit_status();
}

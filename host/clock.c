/*
 * Host time (see clock.h).
 */
#include <pthread.h>

#include "clock.h"

static uint64_t tsc_per_us;
static pthread_once_t tsc_once = PTHREAD_ONCE_INIT;

static void
tsc_calibrate(void)
{
	uint64_t t0 = host_nanotime(), c0 = host_rdtsc(), t1, c1;
	do {
		t1 = host_nanotime();
		c1 = host_rdtsc();
	} while (t1 - t0 < 5000000);	/* 5 ms is good to 0.1% */
	tsc_per_us = (c1 - c0) * 1000 / (t1 - t0);
	if (tsc_per_us == 0)
		tsc_per_us = 1;
}

uint64_t
host_tsc_per_us(void)
{
	pthread_once(&tsc_once, tsc_calibrate);
	return tsc_per_us;
}

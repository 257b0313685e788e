/*
 * A parallel computation: four threads each mix and sum a quarter of
 * 0..N-1 (CPU-bound, no locks), main adds the four parts; the total is
 * the serial one, and a known constant.  On -n 2 the threads run on
 * both CPUs at once; the result must not change.
 */
#include "thr.h"

#define NTHR	4
#define N	(1L << 27)
#define TOTAL	0xf9f26bf957952164UL

struct part {
	long lo, hi;
	unsigned long sum;
};

static unsigned long
mix(unsigned long x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185UL;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dUL;
	return x ^ (x >> 33);
}

static void *
summer(void *arg)
{
	struct part *p = arg;
	unsigned long s = 0;
	for (long i = p->lo; i < p->hi; i++)
		s += mix(i);
	p->sum = s;
	return NULL;
}

int
main(void)
{
	pthread_t t[NTHR];
	struct part p[NTHR];
	unsigned long total = 0;

	thr_init();
	for (int i = 0; i < NTHR; i++) {
		p[i].lo = N / NTHR * i;
		p[i].hi = N / NTHR * (i + 1);
		thr_create(&t[i], NULL, summer, &p[i]);
	}
	for (int i = 0; i < NTHR; i++) {
		thr_join(t[i]);
		printf("part %d: %016lx\n", i, p[i].sum);
		total += p[i].sum;
	}
	printf("total of four threads: %016lx\n", total);
	struct part all = { 0, N, 0 };
	summer(&all);
	CHECK(total == all.sum, "the serial sum is the same");
	CHECK(total == TOTAL, "the known total");
	return thr_exit_status();
}

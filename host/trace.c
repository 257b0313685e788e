/*
 * The stage trace (host/trace.h): sums per pair of consecutive points.
 */
#ifdef VK_TRACE
#include <stdio.h>

#include "host/trace.h"

static const char *const trace_names[TR_N] = {
	[TR_NONE] = "-",
	[TR_K_USERRET] = "k.userret",
	[TR_T_RUN] = "t.run",
	[TR_T_PREP] = "t.prep",
	[TR_T_LOCKED] = "t.locked",
	[TR_T_WOKEN] = "t.woken",
	[TR_T_POSTED] = "t.posted",
	[TR_T_YIELDED] = "t.yielded",
	[TR_T_HANDOFF] = "t.handoff",
	[TR_S_SEEN] = "s.seen",
	[TR_S_POST] = "s.post",
	[TR_T_REPORT] = "t.report",
	[TR_T_RETURN] = "t.return",
	[TR_K_LOCKED] = "k.locked",
	[TR_K_PATCHED] = "k.patched",
	[TR_K_SYSCALL] = "k.syscall",
	[TR_K_SWITCH] = "k.switch",
	[TR_K_SWITCHED] = "k.switched",
	[TR_K_DISPATCHED] = "k.dispatched",
};

static uint64_t trace_sum[TR_N][TR_N], trace_cnt[TR_N][TR_N];
static __thread enum trace_point trace_last;
static __thread uint64_t trace_last_tsc;

/* A pair slower than this is a sleep or a preemption: counted apart. */
#define TRACE_LONG_US	200

static uint64_t trace_long[TR_N][TR_N];

/* 20 ns buckets up to TRACE_LONG_US, for each pair's median. */
#define TRACE_BUCKET_NS	20
#define TRACE_NBUCKETS	(TRACE_LONG_US * 1000 / TRACE_BUCKET_NS)
static uint32_t trace_hist[TR_N][TR_N][TRACE_NBUCKETS];
static uint64_t bucket_tsc;

/* The median of pair (i, j), in ns, from its buckets. */
static double
trace_median(int i, int j)
{
	uint64_t half = trace_cnt[i][j] / 2, n = 0;
	for (int b = 0; b < TRACE_NBUCKETS; b++)
		if ((n += trace_hist[i][j][b]) > half)
			return (b + 0.5) * TRACE_BUCKET_NS;
	return 0;
}

/*
 * The calling thread passes point p at TSC value tsc: the time since its
 * last point goes to that pair.  A stamp older than the last one (a
 * stub's, read late) counts for no pair.
 */
void
trace_at(enum trace_point p, uint64_t tsc)
{
	enum trace_point q = trace_last;

	static uint64_t long_tsc;
	if (long_tsc == 0) {
		long_tsc = TRACE_LONG_US * host_tsc_per_us();
		bucket_tsc = TRACE_BUCKET_NS * host_tsc_per_us() / 1000;
	}
	if (q != TR_NONE && tsc >= trace_last_tsc) {
		uint64_t d = tsc - trace_last_tsc;
		if (d > long_tsc) {
			__atomic_fetch_add(&trace_long[q][p], 1, __ATOMIC_RELAXED);
		} else {
			__atomic_fetch_add(&trace_sum[q][p], d, __ATOMIC_RELAXED);
			__atomic_fetch_add(&trace_cnt[q][p], 1, __ATOMIC_RELAXED);
			uint64_t b = d / (bucket_tsc ? bucket_tsc : 1);
			if (b < TRACE_NBUCKETS)
				__atomic_fetch_add(&trace_hist[q][p][b], 1, __ATOMIC_RELAXED);
		}
	}
	trace_last = p;
	if (tsc > trace_last_tsc || q == TR_NONE)
		trace_last_tsc = tsc;
}

static __attribute__((destructor)) void
trace_dump(void)
{
	double per_us = (double)host_tsc_per_us();

	fprintf(stderr, "trace: from -> to  count  mean-ns  median-ns  total-ms  (longer than %d us)\n",
	    TRACE_LONG_US);
	for (int i = 0; i < TR_N; i++)
		for (int j = 0; j < TR_N; j++) {
			if (trace_cnt[i][j] == 0 && trace_long[i][j] == 0)
				continue;
			double tot = (double)trace_sum[i][j] / per_us;
			fprintf(stderr, "trace: %-13s -> %-13s %9lu %8.0f %8.0f %9.1f (%lu)\n",
			    trace_names[i], trace_names[j],
			    (unsigned long)trace_cnt[i][j],
			    trace_cnt[i][j] ? tot * 1000 / (double)trace_cnt[i][j] : 0,
			    trace_median(i, j),
			    tot / 1000, (unsigned long)trace_long[i][j]);
		}
}
#endif

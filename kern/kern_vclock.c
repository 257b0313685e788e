/*
 * The guests' clock (vclock.h): CLOCK_MONOTONIC is
 * mono_base + (tsc - tsc_base) * mult >> shift, CLOCK_REALTIME that plus
 * real_off, as kern/vdso/vvar.h describes; this file keeps the fields.
 *
 * The host's clocks are the reference (the kernel's uptime and the
 * machine's wall clock, host/clock.h).  Every tick the base moves to
 * now: the new mono_base is the old formula's value at the new tsc_base,
 * so the clock never jumps, and mult is steered so that the error
 * against the host's monotonic clock is worked off over the next
 * VCLOCK_SLEW_NS, at most VCLOCK_MAX_PPM faster or slower than the
 * TSC's measured rate (Linux's timekeeping slews its clocks the same
 * way, rather than stepping them).  The rate itself is measured over
 * the whole time since boot, so it gets better as the kernel runs.
 * real_off changes only when the host's wall clock is stepped (by more
 * than VCLOCK_STEP_NS): slews move both host clocks alike.
 */
#include "host/clock.h"
#include "host/cpu.h"
#include "host/cpuid.h"
#include "kern/kernel.h"
#include "kern/proc.h"
#include "kern/thread.h"
#include "kern/timeout.h"
#include "kern/vclock.h"
#include "kern/vdso/vvar.h"

#define VCLOCK_SHIFT	32
#define VCLOCK_SLEW_NS	100000000LL	/* work an error off over 100 ms */
#define VCLOCK_MAX_PPM	1000		/* steer at most 0.1% off the rate */
#define VCLOCK_STEP_NS	10000000LL	/* errors beyond a tick are stepped */
#define VCLOCK_READ_NS	20000		/* a host reading slower is noise */

static volatile struct vvar_data *vvar;
static uint64_t boot_tsc;		/* the rate is measured from here */
static int64_t boot_ns;
static uint64_t rate_mult;		/* the measured rate, << VCLOCK_SHIFT */
static int64_t tick_ns;
static struct callout vclock_callout;

/* The TSC ticks at a constant rate in every power state (cpuid). */
static bool
tsc_invariant(void)
{
	uint32_t r[4];
	host_cpuid(0x80000000, 0, r);
	if (r[0] < 0x80000007)
		return false;
	host_cpuid(0x80000007, 0, r);
	return (r[3] & (1u << 8)) != 0;
}

/*
 * The host's monotonic and wall clocks and the TSC read together: the
 * TSC between two monotonic readings, whose middle is taken.  false if
 * the host took too long (it ran something else meanwhile).
 */
static bool
host_sample(uint64_t *tsc, int64_t *mono, int64_t *real_off)
{
	struct timespec rt;
	int64_t m1 = (int64_t)host_nanotime();
	*tsc = host_rdtsc_ordered();
	host_realtime(&rt);
	int64_t m2 = (int64_t)host_nanotime();
	*mono = m1 + (m2 - m1) / 2;
	*real_off = rt.tv_sec * 1000000000LL + rt.tv_nsec - *mono;
	return m2 - m1 < VCLOCK_READ_NS;
}

/* The formula at TSC value tsc, with the fields now in the page. */
static int64_t
vclock_at(uint64_t tsc)
{
	int64_t d = (int64_t)(tsc - vvar->tsc_base);
	if (d <= 0)
		return vvar->mono_base;
	return vvar->mono_base + (int64_t)(((unsigned __int128)(uint64_t)d *
	    vvar->mult) >> vvar->shift);
}

static void
vclock_tick(void *arg)
{
	(void)arg;
	vclock_update();
	/* Due just before the next tick, so that it runs at every tick. */
	callout_reset(&vclock_callout, (uint64_t)(tick_ns - tick_ns / 10),
	    vclock_tick, NULL);
}

void
vclock_update(void)
{
	uint64_t tsc;
	int64_t host, real_off;

	KASSERT(kernel_locked(), "vclock_update: big lock not held");
	if (vvar == NULL || !(vvar->flags & VVAR_CLOCK))
		return;
	/* The host's reading first: the page stays readable meanwhile. */
	if (!host_sample(&tsc, &host, &real_off))
		return;		/* next tick: the formula holds till then */
	int64_t err = host - vclock_at(tsc);
	if (host - boot_ns >= VCLOCK_SLEW_NS)
		rate_mult = (uint64_t)(((unsigned __int128)(uint64_t)(host -
		    boot_ns) << VCLOCK_SHIFT) / (tsc - boot_tsc));
	__int128 adj = (__int128)rate_mult * err / VCLOCK_SLEW_NS;
	__int128 lim = (__int128)rate_mult * VCLOCK_MAX_PPM / 1000000;
	adj = adj > lim ? lim : adj < -lim ? -lim : adj;

	/*
	 * Readers that see an odd count wait.  The new base is the old
	 * formula at a TSC read after the count is odd: any reader that
	 * used the old fields read an earlier TSC, so got no more.
	 */
	uint32_t seq = vvar->seq;
	__atomic_store_n(&vvar->seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	uint64_t base_tsc = host_rdtsc_ordered();
	int64_t now = vclock_at(base_tsc);
	if (err > VCLOCK_STEP_NS)
		now += err;		/* never backwards, and only if far off */
	vvar->tsc_base = base_tsc;
	vvar->mono_base = now;
	vvar->mult = (uint64_t)((__int128)rate_mult + adj);
	int64_t step = real_off - vvar->real_off;
	if (step > VCLOCK_STEP_NS / 10 || step < -VCLOCK_STEP_NS / 10)
		vvar->real_off = real_off;	/* the host's wall clock was set */
	__atomic_store_n(&vvar->seq, seq + 2, __ATOMIC_RELEASE);
}

void
vclock_init(struct vvar_data *vd)
{
	uint64_t tsc;
	int64_t host, real_off;

	vvar = vd;
	int hz = cpu_tick_hz();
	tick_ns = hz > 0 ? 1000000000LL / hz : 10000000LL;
	vd->coarse_res = tick_ns;
	vd->shift = VCLOCK_SHIFT;
	if (!tsc_invariant() || hz <= 0) {
		/* Without a tick, nothing would follow the host's clock. */
		kprintf("vclock: no invariant TSC or no tick; the vDSO's clocks "
		    "make system calls\n");
		return;
	}
	uint64_t per_us = host_tsc_per_us();
	rate_mult = (1000ULL << VCLOCK_SHIFT) / per_us;
	while (!host_sample(&tsc, &host, &real_off))
		;
	boot_tsc = tsc;
	boot_ns = host;
	vd->tsc_base = tsc;
	vd->mono_base = host;
	vd->mult = rate_mult;
	vd->real_off = real_off;
	__atomic_store_n(&vd->flags, VVAR_CLOCK, __ATOMIC_RELEASE);
	callout_reset(&vclock_callout, (uint64_t)tick_ns, vclock_tick, NULL);
}

static uint64_t
vclock_rdtsc(void)
{
	return host_rdtsc_ordered();
}

int
vclock_ns(int clock, int64_t *ns)
{
	if (vvar == NULL)
		return -1;
	return vvar_clock_ns(vvar, clock, vclock_rdtsc, ns);
}

int64_t
vclock_res(int clock)
{
	if (clock == VVAR_CLOCK_REALTIME_COARSE ||
	    clock == VVAR_CLOCK_MONOTONIC_COARSE)
		return tick_ns;
	return 1;
}

int64_t
clock_ns(const struct lwp *lp, int clock)
{
	struct timespec ts;
	uint64_t u, s;
	int64_t ns;
	if (vclock_ns(clock, &ns) == 0)
		return ns;
	switch (clock) {
	case CLOCK_REALTIME:
	case CLOCK_REALTIME_COARSE:
		nanotime(&ts);
		return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_MONOTONIC_COARSE:
	case CLOCK_BOOTTIME:
		return (int64_t)nanouptime();
	case CLOCK_PROCESS_CPUTIME_ID:
		proc_cputime(lp->lwp_proc, &u, &s);
		return (int64_t)(u + s);
	case CLOCK_THREAD_CPUTIME_ID:
		lwp_cputime(lp, &u, &s);
		return (int64_t)(u + s);
	}
	return -EINVAL;
}

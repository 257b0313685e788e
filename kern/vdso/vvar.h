/*
 * The vvar page: the kernel's clocks and CPU numbers, published in one
 * page of RAM that every process maps read-only (just below its vDSO),
 * so that clock_gettime, gettimeofday, time and getcpu need no trap.
 * Included by the kernel (kern/kern_vclock.c writes it) and by the vDSO
 * (kern/vdso/vdso.c reads it): plain C, no headers of either side.
 *
 * The clock.  CLOCK_MONOTONIC at TSC value t is
 *
 *	mono_base + ((t - tsc_base) * mult) >> shift	(128-bit product)
 *
 * and CLOCK_REALTIME is that plus real_off.  The kernel's system calls
 * compute the very same formula from the very same page (vvar_clock_ns
 * below, on both sides), so a vDSO read and a system call agree to the
 * nanosecond and neither goes back behind the other.  The kernel moves
 * the base forward every tick, each new base being the old formula's
 * value at the new tsc_base (the clock is continuous), and steers mult
 * so that the clock follows the host's (kern/kern_vclock.c).
 *
 * The sequence count: odd while the kernel writes.  A reader takes an
 * even count, reads the TSC and the fields, and starts over if the count
 * changed.  The writer reads its TSC after making the count odd, so a
 * reader that got the old fields read an older TSC than the new
 * tsc_base: the old formula at its TSC is at most the new base.
 */
#ifndef KERN_VDSO_VVAR_H
#define KERN_VDSO_VVAR_H

#include <stdint.h>

#define VVAR_NCORES	1024	/* host cores the getcpu table covers */

struct vvar_data {
	uint32_t seq;		/* odd while the kernel writes */
	uint32_t flags;		/* VVAR_* */
	uint64_t tsc_base;	/* the TSC at the last update */
	uint64_t mult;		/* ns per TSC tick, << shift */
	uint32_t shift;
	uint32_t pad;
	int64_t mono_base;	/* CLOCK_MONOTONIC (ns) at tsc_base */
	int64_t real_off;	/* CLOCK_REALTIME - CLOCK_MONOTONIC */
	int64_t coarse_res;	/* the tick: resolution of the coarse clocks */
	/*
	 * getcpu: host core -> the virtual CPU whose guests run pinned
	 * there, plus one; 0 where no single CPU's do (the vDSO then asks
	 * the kernel).
	 */
	uint8_t cpu_of_core[VVAR_NCORES];
};

#define VVAR_CLOCK	0x1	/* the clock fields are valid (TSC usable) */

/* Linux's clock ids (the vDSO has no <time.h>). */
#define VVAR_CLOCK_REALTIME		0
#define VVAR_CLOCK_MONOTONIC		1
#define VVAR_CLOCK_MONOTONIC_RAW	4
#define VVAR_CLOCK_REALTIME_COARSE	5
#define VVAR_CLOCK_MONOTONIC_COARSE	6
#define VVAR_CLOCK_BOOTTIME		7

/*
 * Whether clock is one the page gives (the monotonic clocks are all the
 * kernel's uptime here: it never suspends, and does not slew one of
 * them apart).
 */
static inline int
vvar_clock_known(int clock)
{
	return clock == VVAR_CLOCK_REALTIME || clock == VVAR_CLOCK_MONOTONIC ||
	    clock == VVAR_CLOCK_MONOTONIC_RAW || clock == VVAR_CLOCK_BOOTTIME ||
	    clock == VVAR_CLOCK_REALTIME_COARSE ||
	    clock == VVAR_CLOCK_MONOTONIC_COARSE;
}

/*
 * Reads clock from vd into *ns, with rdtsc an ordered TSC read (the
 * caller's: an instruction in the vDSO, a host/ function in the kernel).
 * Returns 0, or -1 if the page does not give that clock.
 */
static inline __attribute__((always_inline)) int
vvar_clock_ns(const volatile struct vvar_data *vd, int clock,
    uint64_t (*rdtsc)(void), int64_t *ns)
{
	uint32_t seq;
	int64_t t;

	if (!vvar_clock_known(clock))
		return -1;
	do {
		while ((seq = __atomic_load_n(&vd->seq, __ATOMIC_ACQUIRE)) & 1)
			__builtin_ia32_pause();
		if (!(vd->flags & VVAR_CLOCK))
			return -1;
		t = vd->mono_base;
		if (clock != VVAR_CLOCK_REALTIME_COARSE &&
		    clock != VVAR_CLOCK_MONOTONIC_COARSE) {
			int64_t d = (int64_t)(rdtsc() - vd->tsc_base);
			if (d > 0)
				t += (int64_t)(((unsigned __int128)(uint64_t)d *
				    vd->mult) >> vd->shift);
		}
		if (clock == VVAR_CLOCK_REALTIME ||
		    clock == VVAR_CLOCK_REALTIME_COARSE)
			t += vd->real_off;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (__atomic_load_n(&vd->seq, __ATOMIC_RELAXED) != seq);
	*ns = t;
	return 0;
}

#endif /* KERN_VDSO_VVAR_H */

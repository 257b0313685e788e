/*
 * The kernel's clocks as guests see them (kern_vclock.c): CLOCK_REALTIME,
 * CLOCK_MONOTONIC, BOOTTIME, MONOTONIC_RAW and the coarse ones, computed
 * from the TSC and published in the vvar page (kern/vdso/vvar.h) that
 * the vDSO reads without a trap.  The system calls read them here, from
 * the same page by the same formula, so both agree exactly.
 */
#ifndef KERN_VCLOCK_H
#define KERN_VCLOCK_H

#include <stdint.h>

struct vvar_data;

/*
 * Starts the clock from the host's (calibrating the TSC, a few ms) and
 * keeps it in vd, a page every process maps read-only; starts the
 * update that follows the host's clock every tick.  Call once at boot,
 * under the big lock.  Without an invariant TSC, or without a tick, the
 * clock is not published: vclock_ns fails and the vDSO makes system
 * calls.
 */
void vclock_init(struct vvar_data *vd);

/*
 * The time of clock (a Linux clock id) in ns into *ns: 0, or -1 if the
 * vvar page does not give that clock (the caller asks the host).
 */
int vclock_ns(int clock, int64_t *ns);

/* The resolution of clock (ns): the tick for a coarse clock, else 1. */
int64_t vclock_res(int clock);

/*
 * Moves the clock's base to now and steers it toward the host's clock
 * (the tick calls it; so should a change of the host's wall clock the
 * kernel makes).  Under the big lock.
 */
void vclock_update(void);

/*
 * The time of clock as lp sees it, in ns (the clocks above, and lp's
 * own and its process's CPU time): what clock_gettime gives, or -EINVAL
 * for an unknown clock.
 */
struct lwp;
int64_t clock_ns(const struct lwp *lp, int clock);

#endif /* KERN_VCLOCK_H */

/*
 * Host time: a monotonic nanosecond clock (the kernel's uptime), the
 * wall clock, and the TSC rate, which the stubs use to bound their
 * spinning without a system call.
 */
#ifndef HOST_CLOCK_H
#define HOST_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t
host_nanotime(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The host's wall clock: the machine's realtime clock, which the kernel
 * does not keep itself (settimeofday is refused).
 */
static inline void
host_realtime(struct timespec *ts)
{
	clock_gettime(CLOCK_REALTIME, ts);
}

static inline uint64_t
host_rdtsc(void)
{
	return __builtin_ia32_rdtsc();
}

/*
 * The TSC, read after every earlier load and store has completed
 * (lfence first): a clock built on it orders with the memory it is
 * published through (kern/vdso/vvar.h's sequence count).
 */
static inline uint64_t
host_rdtsc_ordered(void)
{
	__asm__ volatile ("lfence" ::: "memory");
	return __builtin_ia32_rdtsc();
}

/* TSC ticks per microsecond, measured once (a few ms) on first use. */
uint64_t host_tsc_per_us(void);

/* A relative timespec of ns nanoseconds. */
static inline struct timespec
host_timespec(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
	return ts;
}

#endif /* HOST_CLOCK_H */

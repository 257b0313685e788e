/*
 * The vDSO: the code every process finds at AT_SYSINFO_EHDR, as Linux's
 * x86-64 one (the same symbols, versioned LINUX_2.6, so glibc and musl
 * use it unchanged).  It reads the kernel's clock and CPU numbers from
 * the vvar page mapped just below it (vvar.h) and falls back to the real
 * system call for anything that page does not give.
 *
 * Built freestanding and position independent, linked by vdso.lds into
 * a shared object with no relocations at all (tested by the Makefile):
 * the kernel maps the same bytes at whatever address exec chose.
 */
#include "kern/vdso/vvar.h"

/* Placed by vdso.lds one page below the image: the vvar page. */
extern const volatile struct vvar_data vvar_page
    __attribute__((visibility("hidden")));

struct vdso_timespec {
	int64_t tv_sec, tv_nsec;
};

struct vdso_timeval {
	int64_t tv_sec, tv_usec;
};

#define SYS_gettimeofday	96
#define SYS_time		201
#define SYS_clock_gettime	228
#define SYS_clock_getres	229
#define SYS_getcpu		309

static inline long
vdso_syscall3(long nr, long a, long b, long c)
{
	long r;
	__asm__ volatile ("syscall" : "=a"(r) : "0"(nr), "D"(a), "S"(b), "d"(c)
	    : "rcx", "r11", "memory");
	return r;
}

static uint64_t
vdso_rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile ("lfence; rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
	return (uint64_t)hi << 32 | lo;
}

int
__vdso_clock_gettime(int clock, struct vdso_timespec *ts)
{
	int64_t ns;
	if (vvar_clock_ns(&vvar_page, clock, vdso_rdtsc, &ns) < 0)
		return (int)vdso_syscall3(SYS_clock_gettime, clock, (long)ts, 0);
	ts->tv_sec = ns / 1000000000;
	ts->tv_nsec = ns % 1000000000;
	return 0;
}

int
__vdso_gettimeofday(struct vdso_timeval *tv, void *tz)
{
	int64_t ns;
	if (tz != 0 ||
	    vvar_clock_ns(&vvar_page, VVAR_CLOCK_REALTIME, vdso_rdtsc, &ns) < 0)
		return (int)vdso_syscall3(SYS_gettimeofday, (long)tv, (long)tz, 0);
	if (tv != 0) {
		tv->tv_sec = ns / 1000000000;
		tv->tv_usec = ns % 1000000000 / 1000;
	}
	return 0;
}

int64_t
__vdso_time(int64_t *t)
{
	int64_t ns;
	if (vvar_clock_ns(&vvar_page, VVAR_CLOCK_REALTIME, vdso_rdtsc, &ns) < 0)
		return vdso_syscall3(SYS_time, (long)t, 0, 0);
	if (t != 0)
		*t = ns / 1000000000;
	return ns / 1000000000;
}

int
__vdso_clock_getres(int clock, struct vdso_timespec *res)
{
	if (!vvar_clock_known(clock) || !(vvar_page.flags & VVAR_CLOCK))
		return (int)vdso_syscall3(SYS_clock_getres, clock, (long)res, 0);
	if (res != 0) {
		res->tv_sec = 0;
		res->tv_nsec = clock == VVAR_CLOCK_REALTIME_COARSE ||
		    clock == VVAR_CLOCK_MONOTONIC_COARSE ? vvar_page.coarse_res : 1;
	}
	return 0;
}

/*
 * The host core comes from the segment limit Linux keeps per CPU in its
 * GDT (its own vDSO's way: lsl works in user mode on every x86-64 Linux,
 * without rdpid or a TSC_AUX the hypervisor may not pass through).
 */
#define CPUNODE_SEG	(15 * 8 + 3)	/* GDT_ENTRY_CPUNODE, RPL 3 */

int
__vdso_getcpu(unsigned *cpu, unsigned *node, void *tcache)
{
	unsigned p = 0, v = 0;
	unsigned char ok;
	__asm__ volatile ("lsl %2, %0; setz %1" : "=r"(p), "=q"(ok)
	    : "r"(CPUNODE_SEG) : "cc");
	unsigned core = p & 0xfff;
	if (ok && core < VVAR_NCORES)
		v = vvar_page.cpu_of_core[core];
	if (v == 0)
		return (int)vdso_syscall3(SYS_getcpu, (long)cpu, (long)node,
		    (long)tcache);
	if (cpu != 0)
		*cpu = v - 1;
	if (node != 0)
		*node = 0;
	return 0;
}

/* The unprefixed names Linux's vDSO also exports. */
int clock_gettime(int, struct vdso_timespec *)
    __attribute__((weak, alias("__vdso_clock_gettime")));
int gettimeofday(struct vdso_timeval *, void *)
    __attribute__((weak, alias("__vdso_gettimeofday")));
int64_t time(int64_t *) __attribute__((weak, alias("__vdso_time")));
int clock_getres(int, struct vdso_timespec *)
    __attribute__((weak, alias("__vdso_clock_getres")));
int getcpu(unsigned *, unsigned *, void *)
    __attribute__((weak, alias("__vdso_getcpu")));

/*
 * vkernel's user range ends at 0x7fff00000000 (its stub lives above),
 * below Linux's TASK_SIZE (0x7ffffffff000); the memory calls answer for
 * addresses past it as Linux does past TASK_SIZE: a hint is not taken,
 * MAP_FIXED is ENOMEM, munmap EINVAL, mprotect and madvise ENOMEM.
 * Where the host's stack (and its auxiliary vector) and vdso were in
 * the stub, a read faults.  Natively these addresses are user space,
 * so this runs inside only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define TOP	0x7fff00000000UL	/* VM_MAX_USER_ADDRESS */
#define PG	4096UL

static int fails;
static sigjmp_buf env;

static void
check(const char *what, int ok)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	fails += !ok;
}

static int
err(long r)
{
	return r < 0 ? errno : 0;
}

static void
on_segv(int sig)
{
	(void)sig;
	siglongjmp(env, 1);
}

/* True if reading va faults. */
static int
read_faults(uint64_t va)
{
	if (sigsetjmp(env, 1) == 0) {
		(void)*(volatile uint8_t *)va;
		return 0;
	}
	return 1;
}

int
main(void)
{
	void *p = mmap((void *)TOP, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	check("mmap hint past the user range: not taken",
	    p != MAP_FAILED && (uint64_t)p + PG <= TOP);
	p = mmap((void *)(TOP - PG), 2 * PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	check("mmap hint crossing the end: not taken",
	    p != MAP_FAILED && (uint64_t)p + 2 * PG <= TOP);
	p = mmap((void *)TOP, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	check("MAP_FIXED past it: ENOMEM", p == MAP_FAILED && errno == ENOMEM);
	p = mmap((void *)TOP, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_FIXED_NOREPLACE, -1, 0);
	check("MAP_FIXED_NOREPLACE past it: ENOMEM", p == MAP_FAILED && errno == ENOMEM);
	check("munmap past it: EINVAL", err(munmap((void *)TOP, PG)) == EINVAL);
	check("munmap crossing the end: EINVAL", err(munmap((void *)(TOP - PG), 2 * PG)) == EINVAL);
	check("munmap below Linux's TASK_SIZE: EINVAL",
	    err(munmap((void *)0x7ffffffde000UL, PG)) == EINVAL);
	check("mprotect past it: ENOMEM", err(mprotect((void *)TOP, PG, PROT_READ)) == ENOMEM);
	check("madvise past it: ENOMEM", err(madvise((void *)TOP, PG, MADV_DONTNEED)) == ENOMEM);

	signal(SIGSEGV, on_segv);
	check("the stub's host stack (auxv) is gone", read_faults(0x7ffffffde000UL) &&
	    read_faults(0x7fffffffe000UL));
	check("the stub's vdso is gone", read_faults(0x7ffff7ffd000UL));
	return fails != 0;
}

/*
 * Tries to dirty the host memory of its own stub: writes a page at a
 * time downwards from just below Linux's TASK_SIZE, where the stub's
 * host stack was (a writable, growable mapping: 8 MiB a process once),
 * and stops at the first fault.  Prints how many KiB it wrote there,
 * then sleeps, so that the host can measure the stubs.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#define TOP	0x7ffffffff000UL
#define SPAN	(8UL << 20)

static sigjmp_buf env;

static void
on_segv(int sig)
{
	(void)sig;
	siglongjmp(env, 1);
}

int
main(int argc, char **argv)
{
	static volatile uint64_t va;

	signal(SIGSEGV, on_segv);
	if (sigsetjmp(env, 1) == 0)
		for (va = TOP - 4096; va >= TOP - SPAN; va -= 4096)
			*(volatile char *)va = 1;
	if (argc > 1)
		printf("%lu KiB\n", (unsigned long)(TOP - 4096 - va) >> 10);
	sleep(argc > 2 ? 30 : 10);
	return 0;
}

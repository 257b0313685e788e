/*
 * No process sees a page an exited one left behind.  vkernel recycles an
 * exited process's host stub for the next fork, and may wipe its host
 * mappings after its parent has collected it (host/trap/trap_recycle.c):
 * each child here writes a secret into a page it maps at a fixed
 * address, on its stack and in its heap, and exits; every next child,
 * first thing, must fault reading that address (it has no mapping there:
 * a host mapping left from an elder sibling would show the secret), get
 * zeros from a fresh mapping there, and see the parent's bytes on its
 * stack and heap.  Children forked and exiting in quick succession, then
 * with grandchildren, then after an exec of the parent's own program.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PG	4096
#define AT	((char *)0x3f000000)	/* unmapped in the parent */
#define ROUNDS	60

static sigjmp_buf env;

static void
segv(int sig)
{
	(void)sig;
	siglongjmp(env, 1);
}

/* 1 if reading AT faulted, 0 if it read something, printing what. */
static int
faults_at(void)
{
	volatile char *p = AT;
	if (sigsetjmp(env, 1) != 0)
		return 1;
	char c = p[0];
	printf("read %#x at %p without a mapping\n", (unsigned char)c, (void *)AT);
	return 0;
}

/* The child's round r: 0 if all it saw was right. */
static int
child(int r, char *heap)
{
	char stack[PG];
	int bad = 0;

	if (!faults_at())
		bad |= 1;
	char *m = mmap(AT, PG, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (m != AT)
		return 2;
	for (int i = 0; i < PG; i += 512)
		if (m[i] != 0)
			bad |= 4;
	memset(stack, 0, sizeof(stack));	/* the parent's were zero */
	if (heap[0] != 'h' || heap[PG - 1] != 'h')
		bad |= 8;
	/* The secrets the next child must not see. */
	memset(m, 's' + r % 7, PG);
	memset(stack, 'k', sizeof(stack));
	memset(heap, 'x', PG);
	__asm__ volatile ("" ::: "memory");
	return bad | (stack[1] != 'k');
}

static int
rounds(const char *how, char *heap, int grandchildren)
{
	int failed = 0;
	for (int r = 0; r < ROUNDS; r++) {
		pid_t p = fork();
		if (p == 0) {
			if (grandchildren && fork() == 0)
				_exit(child(r, heap));
			int st = 0;
			if (grandchildren)
				wait(&st);
			_exit(child(r, heap) | (WIFEXITED(st) ? WEXITSTATUS(st) : 64));
		}
		int st = 0;
		if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 0) {
			printf("%s: round %d: status %#x\n", how, r, st);
			failed = 1;
		}
	}
	printf("%s: %s\n", how, failed ? "FAIL" : "ok");
	return failed;
}

int
main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);	/* forks below */
	struct sigaction sa = { .sa_handler = segv };
	sigaction(SIGSEGV, &sa, NULL);
	char *heap = malloc(PG);
	memset(heap, 'h', PG);
	if (!faults_at())
		return 1;
	int failed = rounds("children", heap, 0);
	failed |= rounds("grandchildren", heap, 1);
	if (argc == 1) {
		/* Once more from a fresh image: exec keeps its stub. */
		execl("/proc/self/exe", argv[0], "again", (char *)NULL);
		printf("exec failed\n");
		return 1;
	}
	return failed;
}

/*
 * Program text moved by mremap after its system calls ran often: a page
 * of text holding "mov $nr,%eax; syscall" (the pattern vkernel patches
 * into a jump to its trampoline once a site has run 16 times) is moved
 * elsewhere with mremap, and the calls made from the new place must
 * still be the same calls, as on Linux, in this process and in a child
 * it forks.  getuid's site is a run site ("mov $102,%eax; xor %edx,%edx;
 * syscall"), whose patch is a relative jump.  Grown in place, moved by MREMAP_MAYMOVE and moved back.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PG	4096L

/*
 * One page of text of its own, so that moving it moves nothing else the
 * program runs: getpid and getppid, each the exact pattern.
 */
__asm__(".text\n"
	".balign 4096\n"
	".globl mv_page\n"
	"mv_page:\n"
	"mv_getpid:\n"
	"	mov $39, %eax\n"
	"	syscall\n"
	"	ret\n"
	"	.balign 64\n"
	"mv_getppid:\n"
	"	mov $110, %eax\n"
	"	syscall\n"
	"	ret\n"
	"	.balign 64\n"
	"mv_getuid:\n"
	"	mov $102, %eax\n"
	"	xor %edx, %edx\n"
	"	syscall\n"
	"	ret\n"
	".balign 4096\n");
extern char mv_page[], mv_getpid[], mv_getppid[], mv_getuid[];

typedef long (*call_fn)(void);

/*
 * Calls getpid, getppid, then getuid, n times each from the page at base; the
 * bad answers.  One site after the other: each is counted to its patch.
 */
static int
calls(char *base, int n)
{
	call_fn gp = (call_fn)(void *)(base + (mv_getpid - mv_page));
	call_fn gpp = (call_fn)(void *)(base + (mv_getppid - mv_page));
	call_fn gu = (call_fn)(void *)(base + (mv_getuid - mv_page));
	long pid = getpid(), ppid = getppid(), uid = getuid();
	int bad = 0;
	for (int i = 0; i < n; i++)
		bad += gp() != pid;
	for (int i = 0; i < n; i++)
		bad += gpp() != ppid;
	for (int i = 0; i < n; i++)
		bad += gu() != uid;
	return bad;
}

/* A child forked now calls from base too; its bad answers, or -1. */
static int
child_calls(char *base)
{
	pid_t p = fork();
	if (p == 0)
		_exit(calls(base, 40) != 0);
	int st;
	if (p < 0 || waitpid(p, &st, 0) != p)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int
main(void)
{
	char *text = mv_page;

	setvbuf(stdout, NULL, _IONBF, 0);
	printf("in place: %d bad\n", calls(text, 40));

	/* Somewhere free for it: reserved, then given up to mremap. */
	char *to = mmap(NULL, 4 * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
	    -1, 0);
	if (to == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	char *moved = mremap(text, PG, PG, MREMAP_MAYMOVE | MREMAP_FIXED,
	    to + PG);
	printf("moved: %s\n", moved == to + PG ? "yes" : "no");
	if (moved != to + PG)
		return 1;
	printf("moved, calls: %d bad\n", calls(moved, 40));
	printf("moved, child: %d\n", child_calls(moved));

	/* Moved again without a place named (it may stay or go). */
	munmap(to + 2 * PG, 2 * PG);
	char *again = mremap(moved, PG, 2 * PG, MREMAP_MAYMOVE);
	printf("grown: %s\n", again == MAP_FAILED ? "failed" : "yes");
	if (again == MAP_FAILED)
		return 1;
	printf("grown, calls: %d bad\n", calls(again, 40));

	/* Home again: the original place runs as before. */
	char *home = mremap(again, PG, PG, MREMAP_MAYMOVE | MREMAP_FIXED, text);
	printf("home: %s\n", home == text ? "yes" : "no");
	if (home != text)
		return 1;
	printf("home, calls: %d bad\n", calls(text, 40));
	printf("home, child: %d\n", child_calls(text));
	return 0;
}

/*
 * Address-space abuse: mprotect across a hole does what Linux does (the
 * part before the hole changes, then ENOMEM), and splitting a mapping
 * into tens of thousands stops with ENOMEM at vm.max_map_count (65530,
 * Linux's default and vkernel's).  A host whose limit is far above that
 * (/proc/sys/vm/max_map_count) is not made to show it: the line is
 * printed as expected there, so that only vkernel's answer is tested.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PG	4096L

static long
max_map_count(void)
{
	long n = 65530;		/* vkernel has no /proc: its fixed limit */
	FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
	if (f != NULL) {
		if (fscanf(f, "%ld", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* Three pages, the third unmapped: mprotect all three read-only. */
	char *p = mmap(NULL, 3 * PG, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || munmap(p + 2 * PG, PG) < 0)
		return 1;
	errno = 0;
	int r = mprotect(p, 3 * PG, PROT_READ);
	printf("mprotect across a hole: %s\n", r == 0 ? "0" :
	    errno == ENOMEM ? "ENOMEM" : strerror(errno));
	pid_t pid = fork();
	if (pid == 0) {
		p[PG] = 1;	/* before the hole: read-only now */
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	printf("writing before the hole: %s\n", WIFSIGNALED(status) &&
	    WTERMSIG(status) == SIGSEGV ? "SIGSEGV" : "allowed");
	munmap(p, 2 * PG);

	/* Every other page of a large mapping read-only: one entry each. */
	long limit = max_map_count(), n = 70000, i;
	if (limit < 0 || limit > n - 100) {
		printf("splitting stopped by ENOMEM near the limit: yes\n");
		return 0;
	}
	p = mmap(NULL, n * PG, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	errno = 0;
	for (i = 0; i < n; i += 2)
		if (mprotect(p + i * PG, PG, PROT_READ) < 0)
			break;
	/* Each mprotect adds two entries but the first; others exist. */
	printf("splitting stopped by ENOMEM near the limit: %s\n",
	    errno == ENOMEM && i > limit - 200 && i <= limit ? "yes" : "no");
	munmap(p, n * PG);
	void *q = mmap(NULL, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	printf("after munmap, mmap: %s\n", q == MAP_FAILED ? strerror(errno) : "mapped");
	return 0;
}

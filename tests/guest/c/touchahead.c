/*
 * Anonymous mappings touched as soon as they are made (as malloc does),
 * which vkernel learns to map ahead of the touch, compared with Linux:
 * the pages read zero and keep what is written, fork copies them, and a
 * page mapped ahead but never touched is not resident in mincore or
 * smaps, as on Linux; then mappings that are not touched, after which
 * nothing is mapped ahead.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PG	4096L
#define N	99	/* mappings touched at once; vkernel learns after two */

static char *
map(long pages)
{
	char *p = mmap(NULL, pages * PG, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

static const char *
core(char *p, long pages)
{
	static char s[64];
	unsigned char v[16];
	if (mincore(p, pages * PG, v) != 0)
		return "mincore failed";
	for (long i = 0; i < pages; i++)
		s[i] = (char)('0' + (v[i] & 1));
	s[pages] = '\0';
	return s;
}

/* Rss of the mapping at p, from /proc/self/smaps, in kB; -1 if absent. */
static long
rss(char *p)
{
	char line[256];
	unsigned long lo, hi, a = (unsigned long)p;
	long kb = -1;
	int in = 0;
	FILE *f = fopen("/proc/self/smaps", "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			in = lo <= a && a < hi;
		} else if (in && strncmp(line, "Rss:", 4) == 0) {
			kb = strtol(line + 4, NULL, 10);
			break;
		}
	}
	fclose(f);
	return kb;
}

int
main(void)
{
	static char *v[N];
	long bad = 0;

	/* Each touched at once: the pages read zero and keep a write. */
	for (int i = 0; i < N; i++) {
		v[i] = map(1 + i % 3);
		bad += v[i][0] != 0;
		v[i][0] = (char)(i + 1);
	}
	for (int i = 0; i < N; i++)
		bad += v[i][0] != (char)(i + 1) || v[i][1] != 0;
	printf("touched at once: %ld wrong\n", bad);

	/*
	 * One made in the same pattern and not touched: absent.  It lies
	 * between inaccessible pages, so that no neighbour merges with it
	 * and its smaps entry is its own.
	 */
	char *r = mmap(NULL, 6 * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
	    -1, 0);
	char *p = mmap(r + PG, 4 * PG, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (r == MAP_FAILED || p != r + PG) {
		perror("mmap");
		return 1;
	}
	printf("untouched: mincore %s, Rss %ld kB\n", core(p, 4), rss(p));
	p[2 * PG] = 1;
	printf("after writing page 2: mincore %s\n", core(p, 4));
	p[0] = 7;
	printf("after writing page 0: mincore %s, Rss %ld kB\n", core(p, 4),
	    rss(p));

	/* fork copies a page mapped ahead; each side keeps its own write. */
	char *q = map(1);
	q[0] = 'p';
	pid_t c = fork();
	if (c == 0) {
		q[0] = 'c';
		_exit(q[0] == 'c' ? 0 : 1);
	}
	int st;
	waitpid(c, &st, 0);
	printf("fork: child %s, parent sees %c\n",
	    WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "ok" : "failed", q[0]);

	/* Mappings left alone: none is resident before its touch. */
	char *w[8];
	for (int i = 0; i < 8; i++)
		w[i] = map(1);
	long present = 0;
	for (int i = 0; i < 8; i++)
		present += core(w[i], 1)[0] == '1';
	printf("left alone: %ld of 8 resident\n", present);
	for (int i = 0; i < N; i++)
		munmap(v[i], (1 + i % 3) * PG);
	return 0;
}

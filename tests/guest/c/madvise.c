/*
 * madvise(2), mincore(2) and the mmap flags MAP_POPULATE,
 * MAP_FIXED_NOREPLACE and MAP_NORESERVE, compared with Linux: what each
 * advice does to private, shared and file memory, which advice is
 * accepted, what fork inherits, and which pages mincore calls resident.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ	22
#define MADV_POPULATE_WRITE	23
#endif

#define PG	4096L

static const char *
res(int r)
{
	if (r == 0)
		return "0";
	switch (errno) {
	case EINVAL: return "EINVAL";
	case EFAULT: return "EFAULT";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EEXIST: return "EEXIST";
	default: return strerror(errno);
	}
}

static char *
anon(long pages, int prot, int flags)
{
	return mmap(NULL, pages * PG, prot, flags | MAP_ANONYMOUS, -1, 0);
}

/* mincore's answer for n pages as a string of 0 and 1, or the error. */
static const char *
core(char *p, long n)
{
	static char s[64];
	unsigned char v[64];
	if (mincore(p, n * PG, v) != 0)
		return res(-1);
	for (long i = 0; i < n; i++)
		s[i] = '0' + (v[i] & 1);
	s[n] = 0;
	return s;
}

/* How a child that touches p ends: "exit 0" or the signal. */
static const char *
child_touch(char *p, int write)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (write)
			p[0] = 1;
		_exit(p[0] == 0 ? 0 : 3);
	}
	int st;
	waitpid(pid, &st, 0);
	if (WIFSIGNALED(st))
		return WTERMSIG(st) == SIGSEGV ? "SIGSEGV" : "another signal";
	return WEXITSTATUS(st) == 0 ? "reads zero" : "reads data";
}

static void
advice(void)
{
	static const struct { int advice; const char *name; } ok[] = {
		{ MADV_NORMAL, "NORMAL" }, { MADV_RANDOM, "RANDOM" },
		{ MADV_SEQUENTIAL, "SEQUENTIAL" }, { MADV_WILLNEED, "WILLNEED" },
		{ MADV_MERGEABLE, "MERGEABLE" }, { MADV_UNMERGEABLE, "UNMERGEABLE" },
		{ MADV_HUGEPAGE, "HUGEPAGE" }, { MADV_NOHUGEPAGE, "NOHUGEPAGE" },
		{ MADV_DONTDUMP, "DONTDUMP" }, { MADV_DODUMP, "DODUMP" },
		{ MADV_COLD, "COLD" }, { MADV_PAGEOUT, "PAGEOUT" },
	};
	char *p = anon(4, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	memset(p, 'a', 4 * PG);
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		printf("%s: %s, data %s\n", ok[i].name,
		    res(madvise(p, 4 * PG, ok[i].advice)),
		    p[0] == 'a' && p[4 * PG - 1] == 'a' ? "kept" : "lost");
	printf("unknown advice: %s\n", res(madvise(p, PG, 999)));
	printf("unaligned: %s\n", res(madvise(p + 1, PG, MADV_NORMAL)));
	printf("zero length: %s\n", res(madvise(p, 0, MADV_DONTNEED)));
	munmap(p + PG, PG);
	printf("over a hole: %s, ", res(madvise(p, 4 * PG, MADV_DONTNEED)));
	printf("after it too: %s\n", p[3 * PG] == 0 ? "dropped" : "kept");
	munmap(p, 4 * PG);
}

static void
dontneed(void)
{
	char *p = anon(4, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	memset(p, 'b', 4 * PG);
	printf("private before DONTNEED: %s\n", core(p, 4));
	printf("private DONTNEED: %s, ", res(madvise(p + PG, 2 * PG,
	    MADV_DONTNEED)));
	printf("resident %s, ", core(p, 4));
	printf("reads %s, outside %s\n", p[PG] == 0 && p[3 * PG - 1] == 0 ?
	    "zero" : "old data", p[0] == 'b' && p[3 * PG] == 'b' ? "kept" :
	    "lost");

	/* After fork, the child's copy-on-write view drops to zero too. */
	memset(p, 'c', 4 * PG);
	pid_t pid = fork();
	if (pid == 0) {
		madvise(p, 4 * PG, MADV_DONTNEED);
		_exit(p[0] == 0 && p[2 * PG] == 0 ? 0 : 1);
	}
	int st;
	waitpid(pid, &st, 0);
	printf("DONTNEED in a child: %s, parent's data %s\n",
	    WEXITSTATUS(st) == 0 ? "zero" : "old data",
	    p[0] == 'c' ? "kept" : "lost");

	/* MADV_FREE: old data or zero, then a write sticks. */
	printf("FREE: %s, ", res(madvise(p, 4 * PG, MADV_FREE)));
	printf("reads %s, ", p[0] == 0 || p[0] == 'c' ? "zero or old" : "junk");
	p[0] = 'd';
	printf("a write sticks: %s\n", p[0] == 'd' ? "yes" : "no");
	munmap(p, 4 * PG);

	/* Shared memory keeps its data. */
	p = anon(2, PROT_READ | PROT_WRITE, MAP_SHARED);
	memset(p, 'e', 2 * PG);
	printf("shared DONTNEED: %s, ", res(madvise(p, 2 * PG, MADV_DONTNEED)));
	printf("data %s\n", p[0] == 'e' && p[PG] == 'e' ? "kept" : "lost");
	printf("shared FREE: %s\n", res(madvise(p, 2 * PG, MADV_FREE)));
	printf("shared WIPEONFORK: %s\n", res(madvise(p, 2 * PG,
	    MADV_WIPEONFORK)));

	/* MADV_REMOVE punches shared memory: zero for everyone. */
	pid = fork();
	if (pid == 0)
		_exit(madvise(p, PG, MADV_REMOVE) == 0 ? 0 : errno);
	waitpid(pid, &st, 0);
	printf("shared REMOVE in a child: %s, ", WEXITSTATUS(st) == 0 ? "0" :
	    strerror(WEXITSTATUS(st)));
	printf("parent reads %s, the rest %s\n", p[0] == 0 ? "zero" : "old data",
	    p[PG] == 'e' ? "kept" : "lost");
	munmap(p, 2 * PG);
	p = anon(1, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	printf("private REMOVE: %s\n", res(madvise(p, PG, MADV_REMOVE)));
	munmap(p, PG);

	/* A private file mapping reads the file again. */
	int fd = open("madvise.tmp", O_RDWR | O_CREAT | O_TRUNC, 0600);
	char buf[2 * PG];
	memset(buf, 'F', sizeof(buf));
	if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
		printf("write failed\n");
	p = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	p[0] = 'w';
	printf("file DONTNEED: %s, ", res(madvise(p, 2 * PG, MADV_DONTNEED)));
	printf("reads %s\n", p[0] == 'F' ? "the file" : "the private copy");
	printf("file FREE: %s\n", res(madvise(p, PG, MADV_FREE)));
	printf("file REMOVE: %s\n", res(madvise(p, PG, MADV_REMOVE)));
	munmap(p, 2 * PG);
	close(fd);
	unlink("madvise.tmp");
}

static void
forking(void)
{
	char *p = anon(2, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	memset(p, 'g', 2 * PG);
	printf("DONTFORK: %s, ", res(madvise(p, 2 * PG, MADV_DONTFORK)));
	printf("child %s, ", child_touch(p, 0));
	printf("DOFORK: %s, ", res(madvise(p, 2 * PG, MADV_DOFORK)));
	printf("child %s\n", child_touch(p, 0));
	printf("WIPEONFORK: %s, ", res(madvise(p, 2 * PG, MADV_WIPEONFORK)));
	printf("child %s, ", child_touch(p, 0));
	printf("KEEPONFORK: %s, ", res(madvise(p, 2 * PG, MADV_KEEPONFORK)));
	printf("child %s\n", child_touch(p, 0));
	/* Shared memory left out of a child too. */
	char *s = anon(1, PROT_READ | PROT_WRITE, MAP_SHARED);
	s[0] = 's';
	printf("shared DONTFORK: %s, ", res(madvise(s, PG, MADV_DONTFORK)));
	printf("child %s\n", child_touch(s, 1));
	munmap(p, 2 * PG);
	munmap(s, PG);
}

static void
residency(void)
{
	unsigned char v[8];
	char *p = anon(4, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	printf("mincore fresh: %s, ", core(p, 4));
	p[PG] = 1;
	p[3 * PG] = 1;
	printf("after touching two: %s\n", core(p, 4));
	printf("mincore unaligned: %s\n", res(mincore(p + 1, PG, v)));
	printf("mincore partial page: %s\n", core(p, 1) ? res(mincore(p, 1, v)) :
	    "");
	printf("mincore zero length: %s\n", res(mincore(p, 0, v)));
	printf("mincore bad vector: %s\n", res(mincore(p, PG, (void *)8)));
	char *ro = anon(1, PROT_READ, MAP_PRIVATE);
	printf("mincore read-only vector: %s\n", res(mincore(p, PG,
	    (void *)ro)));
	munmap(p + 2 * PG, PG);
	printf("mincore over a hole: %s\n", res(mincore(p, 4 * PG, v)));
	printf("mincore unmapped: %s\n", res(mincore(p + 2 * PG, PG, v)));
	munmap(p, 4 * PG);
	munmap(ro, PG);

	p = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	printf("MAP_POPULATE: %s\n", core(p, 4));
	munmap(p, 4 * PG);
	p = anon(3, PROT_READ | PROT_WRITE, MAP_SHARED);
	printf("shared fresh: %s, ", core(p, 3));
	p[0] = 1;
	printf("touched: %s\n", core(p, 3));
	printf("POPULATE_WRITE: %s, ", res(madvise(p, 3 * PG,
	    MADV_POPULATE_WRITE)));
	printf("%s\n", core(p, 3));
	munmap(p, 3 * PG);
	p = anon(2, PROT_READ, MAP_PRIVATE);
	printf("POPULATE_WRITE read-only: %s\n", res(madvise(p, 2 * PG,
	    MADV_POPULATE_WRITE)));
	printf("POPULATE_READ read-only: %s\n", res(madvise(p, 2 * PG,
	    MADV_POPULATE_READ)));
	munmap(p, 2 * PG);
}

static void
flags(void)
{
	char *p = anon(4, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	p[0] = 'n';
	char *r = mmap(p + PG, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_FIXED_NOREPLACE, -1, 0);
	printf("FIXED_NOREPLACE over a mapping: %s, data %s\n",
	    r == MAP_FAILED ? res(-1) : "mapped", p[0] == 'n' ? "kept" : "lost");
	munmap(p + 2 * PG, PG);
	r = mmap(p + 2 * PG, 2 * PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_FIXED_NOREPLACE, -1, 0);
	printf("FIXED_NOREPLACE overlapping the end: %s\n",
	    r == MAP_FAILED ? res(-1) : "mapped");
	r = mmap(p + 2 * PG, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_FIXED_NOREPLACE, -1, 0);
	printf("FIXED_NOREPLACE in a hole: %s\n", r == p + 2 * PG ? "there" :
	    r == MAP_FAILED ? res(-1) : "elsewhere");
	r = mmap(p + 2 * PG + 1, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_FIXED_NOREPLACE, -1, 0);
	printf("FIXED_NOREPLACE unaligned: %s\n",
	    r == MAP_FAILED ? res(-1) : "mapped");
	munmap(p, 4 * PG);
	p = mmap(NULL, 64 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	printf("MAP_NORESERVE: %s\n", p == MAP_FAILED ? res(-1) : "mapped");
	p[63 * PG] = 1;
	munmap(p, 64 * PG);
}

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	advice();
	dontneed();
	forking();
	residency();
	flags();
	return 0;
}

/*
 * mremap(2), every case, compared with Linux: errors in Linux's order,
 * shrinking, growing in place, moving (contents and the old range),
 * MREMAP_FIXED (with shrinking, growing, and across holes),
 * MREMAP_DONTUNMAP (private anonymous: the old range reads zero; shared:
 * it still shows the data), duplicating a shared mapping (old_len 0),
 * file mappings, and a move after fork.  Addresses never print: only
 * whether they are where they should be.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PG	4096L

static const char *
err(void *r)
{
	if (r != MAP_FAILED)
		return "ok";
	switch (errno) {
	case EINVAL: return "EINVAL";
	case EFAULT: return "EFAULT";
	case ENOMEM: return "ENOMEM";
	case EEXIST: return "EEXIST";
	default: return strerror(errno);
	}
}

/* Whether [p, p + n pages) is entirely unmapped (mincore says ENOMEM). */
static int
unmapped(char *p, long n)
{
	unsigned char v[64];
	for (long i = 0; i < n; i++)
		if (mincore(p + i * PG, PG, v) == 0 || errno != ENOMEM)
			return 0;
	return 1;
}

static char *
anon(long pages, int prot, int flags)
{
	return mmap(NULL, pages * PG, prot, flags | MAP_ANONYMOUS, -1, 0);
}

/* Fills page i of p with byte c + i. */
static void
fill(char *p, long pages, int c)
{
	for (long i = 0; i < pages; i++)
		memset(p + i * PG, c + (int)i, PG);
}

/* Whether page i of p is all byte c + i. */
static int
holds(char *p, long pages, int c)
{
	for (long i = 0; i < pages; i++)
		for (long j = 0; j < PG; j += 512)
			if (p[i * PG + j] != (char)(c + i))
				return 0;
	return 1;
}

static int
zero(char *p, long pages)
{
	for (long i = 0; i < pages * PG; i += 256)
		if (p[i] != 0)
			return 0;
	return 1;
}

/* A free, page-aligned range of n pages whose neighbours are free too. */
static char *
hole(long n)
{
	char *r = anon(n + 32, PROT_NONE, MAP_PRIVATE);
	munmap(r, (n + 32) * PG);
	return r + 16 * PG;
}

static void
errors(void)
{
	char *p = anon(4, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	char *q = hole(4);
	printf("unknown flag: %s\n", err(mremap(p, PG, PG, 8)));
	printf("unaligned address: %s\n", err(mremap(p + 1, PG, PG, 0)));
	printf("new length 0: %s\n", err(mremap(p, PG, 0, MREMAP_MAYMOVE)));
	printf("new length huge: %s\n",
	    err(mremap(p, PG, (size_t)1 << 60, MREMAP_MAYMOVE)));
	printf("shrink from a huge length: %s\n",
	    err(mremap(p, (size_t)1 << 60, PG, 0)));
	printf("shrink from a length past the end: %s\n",
	    err(mremap(p, (size_t)-PG * 4, PG, 0)));
	printf("move from a huge length: %s\n", err(mremap(p, (size_t)1 << 60,
	    PG, MREMAP_MAYMOVE | MREMAP_FIXED, q)));
	printf("FIXED without MAYMOVE: %s\n",
	    err(mremap(p, PG, PG, MREMAP_FIXED, q)));
	printf("FIXED unaligned: %s\n",
	    err(mremap(p, PG, PG, MREMAP_FIXED | MREMAP_MAYMOVE, q + 1)));
	printf("FIXED overlapping: %s\n",
	    err(mremap(p, 2 * PG, 2 * PG, MREMAP_FIXED | MREMAP_MAYMOVE, p + PG)));
	printf("FIXED past user space: %s\n",
	    err(mremap(p, PG, PG, MREMAP_FIXED | MREMAP_MAYMOVE,
	    (void *)0x7ffffffff000UL)));
	printf("DONTUNMAP resizing: %s\n", err(mremap(p, PG, 2 * PG,
	    MREMAP_DONTUNMAP | MREMAP_MAYMOVE, NULL)));
	printf("DONTUNMAP without MAYMOVE: %s\n",
	    err(mremap(p, PG, PG, MREMAP_DONTUNMAP, NULL)));
	printf("unmapped, growing: %s\n", err(mremap(q, PG, 2 * PG,
	    MREMAP_MAYMOVE)));
	printf("unmapped, shrinking: %s\n", err(mremap(q, 2 * PG, PG, 0)));
	printf("unmapped, same size: %s\n", err(mremap(q, PG, PG, 0)));
	printf("unmapped, FIXED move: %s\n", err(mremap(q, PG, PG,
	    MREMAP_FIXED | MREMAP_MAYMOVE, q + 8 * PG)));
	printf("private, old length 0: %s\n",
	    err(mremap(p, 0, PG, MREMAP_MAYMOVE)));
	/* Two mappings side by side (different protections). */
	mprotect(p + 2 * PG, 2 * PG, PROT_READ);
	printf("across two mappings, growing: %s\n",
	    err(mremap(p, 3 * PG, 5 * PG, MREMAP_MAYMOVE)));
	printf("across two mappings, moving: %s\n",
	    err(mremap(p, 3 * PG, 3 * PG, MREMAP_MAYMOVE | MREMAP_DONTUNMAP,
	    NULL)));
	printf("cannot grow in place: %s\n", err(mremap(p, 2 * PG, 3 * PG, 0)));
	printf("same size in place: %s\n",
	    mremap(p, 2 * PG, 2 * PG, 0) == p ? "same address" : "moved");
	munmap(p, 4 * PG);
}

static void
resize(void)
{
	/* Shrink: the tail is unmapped, the rest keeps its data. */
	char *p = anon(4, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	fill(p, 4, 'a');
	char *r = mremap(p, 4 * PG, 2 * PG + 1, 0);
	printf("shrink: %s, %s, data %s, tail %s\n", err(r),
	    r == p ? "in place" : "moved", holds(p, 3, 'a') ? "kept" : "lost",
	    unmapped(p + 3 * PG, 1) ? "unmapped" : "mapped");
	munmap(p, 3 * PG);

	/* Grow in place into free room. */
	p = hole(8);
	p = mmap(p, 4 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_FIXED_NOREPLACE, -1, 0);
	fill(p, 4, 'b');
	r = mremap(p, 4 * PG, 8 * PG, 0);
	printf("grow in place: %s, %s, data %s, new pages %s\n", err(r),
	    r == p ? "in place" : "moved", holds(p, 4, 'b') ? "kept" : "lost",
	    zero(p + 4 * PG, 4) ? "zero" : "not zero");
	p[8 * PG - 1] = 1;
	/* Grow a part that ends where the mapping ends. */
	r = mremap(p + 6 * PG, 2 * PG, 4 * PG, 0);
	printf("grow the tail in place: %s, %s\n", err(r),
	    r == p + 6 * PG ? "in place" : "moved");
	munmap(p, 10 * PG);

	/* Cannot grow in place: ENOMEM, or a move with MREMAP_MAYMOVE. */
	p = anon(8, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	mprotect(p + 4 * PG, 4 * PG, PROT_READ);
	fill(p, 4, 'c');
	printf("blocked grow: %s\n", err(mremap(p, 4 * PG, 6 * PG, 0)));
	r = mremap(p, 4 * PG, 6 * PG, MREMAP_MAYMOVE);
	printf("moving grow: %s, %s, data %s, new pages %s, old %s\n", err(r),
	    r == p ? "in place" : "moved", holds(r, 4, 'c') ? "kept" : "lost",
	    zero(r + 4 * PG, 2) ? "zero" : "not zero",
	    unmapped(p, 4) ? "unmapped" : "mapped");
	memset(r, 'z', 6 * PG);
	printf("moved pages writable: %s\n", r[6 * PG - 1] == 'z' ? "yes" : "no");
	/* A part from the middle of a mapping. */
	fill(r, 6, 'd');
	char *m = mremap(r + 2 * PG, 2 * PG, 3 * PG, MREMAP_MAYMOVE);
	printf("middle part: %s, data %s, hole %s, rest %s\n", err(m),
	    holds(m, 2, 'd' + 2) ? "kept" : "lost",
	    unmapped(r + 2 * PG, 2) ? "unmapped" : "mapped",
	    holds(r, 2, 'd') && holds(r + 4 * PG, 2, 'd' + 4) ? "kept" : "lost");
	munmap(r, 6 * PG);
	munmap(m, 3 * PG);
	munmap(p + 4 * PG, 4 * PG);

	/* A large mapping moves without copying: every page follows. */
	long n = 1024;
	p = anon(n, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	for (long i = 0; i < n; i++)
		*(long *)(p + i * PG) = i;
	char *blocker = mmap(p + n * PG, PG, PROT_READ,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	r = mremap(p, n * PG, 2 * n * PG, MREMAP_MAYMOVE);
	long bad = 0;
	for (long i = 0; r != MAP_FAILED && i < n; i++)
		bad += *(long *)(r + i * PG) != i;
	printf("4 MiB moved: %s, %ld pages wrong\n", err(r), bad);
	munmap(r, 2 * n * PG);
	if (blocker != MAP_FAILED)
		munmap(blocker, PG);
}

static void
fixed(void)
{
	char *p = anon(4, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	char *d = anon(6, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	fill(p, 4, 'e');
	fill(d, 6, 'x');
	char *r = mremap(p, 4 * PG, 4 * PG, MREMAP_FIXED | MREMAP_MAYMOVE, d);
	printf("FIXED move: %s, %s, data %s, old %s, beyond %s\n", err(r),
	    r == d ? "at new_addr" : "elsewhere",
	    holds(d, 4, 'e') ? "kept" : "lost",
	    unmapped(p, 4) ? "unmapped" : "mapped",
	    holds(d + 4 * PG, 2, 'x' + 4) ? "untouched" : "changed");

	/* FIXED with a shrink, then with a grow. */
	r = mremap(d, 4 * PG, 2 * PG, MREMAP_FIXED | MREMAP_MAYMOVE, p);
	printf("FIXED shrink: %s, %s, data %s, old %s\n", err(r),
	    r == p ? "at new_addr" : "elsewhere",
	    holds(p, 2, 'e') ? "kept" : "lost",
	    unmapped(d, 4) ? "unmapped" : "mapped");
	r = mremap(p, 2 * PG, 4 * PG, MREMAP_FIXED | MREMAP_MAYMOVE, d);
	printf("FIXED grow: %s, %s, data %s, new pages %s\n", err(r),
	    r == d ? "at new_addr" : "elsewhere",
	    holds(d, 2, 'e') ? "kept" : "lost",
	    zero(d + 2 * PG, 2) ? "zero" : "not zero");
	munmap(d, 6 * PG);

	/* FIXED, same size: every mapping of the range moves, holes kept. */
	p = anon(5, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	fill(p, 5, 'f');
	munmap(p + PG, PG);
	mprotect(p + 3 * PG, 2 * PG, PROT_READ);
	d = anon(5, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	fill(d, 5, 'y');
	r = mremap(p, 5 * PG, 5 * PG, MREMAP_FIXED | MREMAP_MAYMOVE, d);
	printf("FIXED across a hole: %s, first %s, hole %s, rest %s, old %s\n",
	    err(r), holds(d, 1, 'f') ? "moved" : "lost",
	    holds(d + PG, 1, 'y' + 1) ? "untouched" : "changed",
	    holds(d + 2 * PG, 3, 'f' + 2) ? "moved" : "lost",
	    unmapped(p, 5) ? "unmapped" : "mapped");
	munmap(d, 5 * PG);
	/* ...but the range must start in a mapping. */
	p = anon(3, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	munmap(p, PG);
	d = hole(3);
	printf("FIXED starting in a hole: %s\n", err(mremap(p, 3 * PG, 3 * PG,
	    MREMAP_FIXED | MREMAP_MAYMOVE, d)));
	munmap(p, 3 * PG);
}

static void
dontunmap(void)
{
	char *p = anon(4, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	fill(p, 4, 'g');
	char *r = mremap(p, 4 * PG, 4 * PG, MREMAP_MAYMOVE | MREMAP_DONTUNMAP,
	    NULL);
	printf("DONTUNMAP private: %s, %s, data %s, old range %s and %s\n",
	    err(r), r == p ? "in place" : "moved",
	    holds(r, 4, 'g') ? "moved" : "lost",
	    unmapped(p, 4) ? "unmapped" : "mapped",
	    zero(p, 4) ? "zero" : "not zero");
	p[0] = 1;
	printf("DONTUNMAP private: old and new apart: %s\n",
	    r[0] == 'g' ? "yes" : "no");
	munmap(r, 4 * PG);
	/* With MREMAP_FIXED. */
	char *d = hole(4);
	fill(p, 4, 'h');
	r = mremap(p, 4 * PG, 4 * PG, MREMAP_MAYMOVE | MREMAP_DONTUNMAP |
	    MREMAP_FIXED, d);
	printf("DONTUNMAP FIXED: %s, %s, data %s, old %s\n", err(r),
	    r == d ? "at new_addr" : "elsewhere",
	    holds(d, 4, 'h') ? "moved" : "lost", zero(p, 4) ? "zero" : "not zero");
	munmap(d, 4 * PG);
	munmap(p, 4 * PG);

	/* Shared memory: both ranges show the same pages afterwards. */
	p = anon(2, PROT_READ | PROT_WRITE, MAP_SHARED);
	fill(p, 2, 'i');
	r = mremap(p, 2 * PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, NULL);
	printf("DONTUNMAP shared: %s, new %s, old %s", err(r),
	    holds(r, 2, 'i') ? "has the data" : "lost it",
	    holds(p, 2, 'i') ? "has the data" : "lost it");
	p[0] = 'Q';
	printf(", a write shows in both: %s\n", r[0] == 'Q' ? "yes" : "no");
	munmap(p, 2 * PG);
	munmap(r, 2 * PG);
}

static void
shared(void)
{
	/* old_len 0 maps shared memory a second time. */
	char *p = anon(2, PROT_READ | PROT_WRITE, MAP_SHARED);
	fill(p, 2, 'j');
	char *r = mremap(p, 0, 2 * PG, MREMAP_MAYMOVE);
	printf("shared, old length 0: %s, %s, data %s", err(r),
	    r == p ? "same address" : "new address",
	    holds(r, 2, 'j') ? "same" : "different");
	r[PG] = 'R';
	printf(", a write shows in both: %s\n", p[PG] == 'R' ? "yes" : "no");
	printf("shared, old length 0, no MAYMOVE: %s\n",
	    err(mremap(p, 0, PG, 0)));
	munmap(r, 2 * PG);

	/* A moved shared mapping stays shared with a child. */
	pid_t pid = fork();
	if (pid == 0) {
		char *m = mremap(p, 2 * PG, 4 * PG, MREMAP_MAYMOVE);
		m[0] = 'C';
		_exit(m != MAP_FAILED ? 0 : 1);
	}
	int st;
	waitpid(pid, &st, 0);
	printf("child moved its shared mapping: status %d, parent sees its "
	    "write: %s\n", WEXITSTATUS(st), p[0] == 'C' ? "yes" : "no");
	munmap(p, 2 * PG);

	/* Private memory after fork: a child's move keeps its copy. */
	p = anon(3, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	fill(p, 3, 'k');
	pid = fork();
	if (pid == 0) {
		char *d = hole(8);
		char *m = mremap(p, 3 * PG, 6 * PG, MREMAP_MAYMOVE | MREMAP_FIXED, d);
		int ok = m == d && holds(m, 3, 'k') && zero(m + 3 * PG, 3);
		m[0] = 'X';
		_exit(ok ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	printf("child moved a copy-on-write mapping: status %d, parent's "
	    "data %s\n", WEXITSTATUS(st), holds(p, 3, 'k') ? "kept" : "changed");
	munmap(p, 3 * PG);
}

static void
file(void)
{
	int fd = open("mremap.tmp", O_RDWR | O_CREAT | O_TRUNC, 0600);
	char buf[PG];
	for (int i = 0; i < 4; i++) {
		memset(buf, 'A' + i, PG);
		if (write(fd, buf, PG) != PG)
			printf("write failed\n");
	}
	char *p = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, PG);
	p[1] = '!';
	char *r = mremap(p, PG, 3 * PG, MREMAP_MAYMOVE);
	printf("file, grown: %s, private write %s, more of the file %s\n",
	    err(r), r[1] == '!' ? "kept" : "lost",
	    r[PG] == 'C' && r[2 * PG + 5] == 'D' ? "shown" : "not shown");
	char *s = mremap(r, 3 * PG, PG, 0);
	printf("file, shrunk: %s, %s\n", err(s), s == r ? "in place" : "moved");
	munmap(s, PG);

	/* DONTUNMAP of a private file mapping: the old range shows the file. */
	p = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	p[0] = '!';
	r = mremap(p, 2 * PG, 2 * PG, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, NULL);
	printf("file, DONTUNMAP: %s, new %s, old shows the file: %s\n", err(r),
	    r != MAP_FAILED && r[0] == '!' ? "has the private write" :
	    "lost it", p[0] == 'A' && p[PG] == 'B' ? "yes" : "no");
	munmap(p, 2 * PG);
	if (r != MAP_FAILED)
		munmap(r, 2 * PG);
	close(fd);
	unlink("mremap.tmp");
}

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	errors();
	resize();
	fixed();
	dontunmap();
	shared();
	file();
	return 0;
}

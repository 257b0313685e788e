/*
 * A dynamically linked program (gcc -O2, glibc's ld.so and libc.so.6):
 * its arguments, what ld.so found in the auxiliary vector, a malloc and
 * stdio workout, and mmap of a file (private copy-on-write, past the end
 * of the file, read-only shared, mprotect).  Run inside and natively; the
 * output must match.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

extern char _start[];
static sigjmp_buf jb;

static void
onbus(int sig)
{
	siglongjmp(jb, sig);
}

static int
cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Allocations of many sizes, freed out of order; a checksum of them. */
static void
malloc_workout(void)
{
	enum { N = 2000 };
	static char *p[N];
	unsigned long sum = 0;
	for (int i = 0; i < N; i++) {
		size_t n = (size_t)(i * 7919) % 70000 + 1;
		if ((p[i] = malloc(n)) == NULL) {
			printf("malloc failed\n");
			return;
		}
		memset(p[i], i & 0xff, n);
		if (i % 3 == 0) {
			free(p[i / 2]);
			p[i / 2] = NULL;
		}
	}
	for (int i = 0; i < N; i++)
		if (p[i] != NULL) {
			sum += (unsigned char)p[i][0];
			free(p[i]);
		}
	int v[1000];
	for (int i = 0; i < 1000; i++)
		v[i] = (i * 7919) % 1000;
	qsort(v, 1000, sizeof(v[0]), cmp);
	printf("malloc: sum %lu, sorted %d %d %d\n", sum, v[0], v[500], v[999]);
}

static void
stdio_workout(void)
{
	FILE *f = fopen("dyn.txt", "w+");
	if (f == NULL) {
		printf("fopen: %s\n", strerror(errno));
		return;
	}
	for (int i = 0; i < 1000; i++)
		fprintf(f, "line %d %.3f %s\n", i, i / 7.0, i % 2 ? "odd" : "even");
	fflush(f);
	rewind(f);
	char line[64];
	int n = 0;
	while (fgets(line, sizeof(line), f) != NULL)
		n++;
	printf("stdio: %d lines, %ld bytes\n", n, ftell(f));
	fclose(f);
}

static void
mmap_workout(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	int fd = open("dyn.txt", O_RDWR);
	off_t size = lseek(fd, 0, SEEK_END);
	printf("mmap: file of %ld bytes\n", (long)size);

	/* Private: a write is the mapping's own; the file does not change. */
	size_t len = ((size_t)size / pg + 2) * pg;	/* a page past the end */
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		printf("mmap private: %s\n", strerror(errno));
		return;
	}
	printf("private: %.10s\n", p);
	p[0] = 'L';
	char c;
	pread(fd, &c, 1, 0);
	printf("private write: mapping %c, file %c\n", p[0], c);
	/* The tail of the last page is zero; a page wholly past the end: SIGBUS. */
	long last = size % pg ? size % pg : pg;
	char *lastpage = p + (size - 1) / pg * pg;
	printf("tail zero: %d\n", lastpage[last - 1] != 0 &&
	    (last == pg || lastpage[last] == 0));
	signal(SIGBUS, onbus);
	volatile char *beyond = lastpage + pg;
	int sig = sigsetjmp(jb, 1);
	if (sig == 0) {
		c = *beyond;
		printf("past the end: no signal\n");
	} else {
		printf("past the end: signal %d\n", sig);
	}
	munmap(p, len);

	/* Read-only shared, then mprotect of a private read-only mapping. */
	p = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, pg);
	printf("shared read-only: %s\n", p == MAP_FAILED ? strerror(errno) :
	    strncmp(p, "line", 4) == 0 || p[0] != 0 ? "mapped" : "empty");
	if (p != MAP_FAILED)
		munmap(p, pg);
	p = mmap(NULL, pg, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p != MAP_FAILED && mprotect(p, pg, PROT_READ | PROT_WRITE) == 0) {
		p[1] = 'X';
		printf("mprotect: %.4s\n", p);
	}
	/* A file opened write-only cannot be mapped. */
	int wfd = open("dyn.txt", O_WRONLY);
	p = mmap(NULL, pg, PROT_READ, MAP_PRIVATE, wfd, 0);
	printf("write-only fd: %s\n", p == MAP_FAILED ? strerror(errno) : "mapped");
	close(wfd);
	close(fd);
	unlink("dyn.txt");
}

int
main(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		printf("argv[%d] %s\n", i, i == 0 ? "(name)" : argv[i]);
	const Elf64_Phdr *ph = (const Elf64_Phdr *)getauxval(AT_PHDR);
	printf("AT_BASE %s\n", getauxval(AT_BASE) != 0 ? "non-zero" : "zero");
	printf("AT_ENTRY is _start: %d\n", getauxval(AT_ENTRY) == (unsigned long)_start);
	printf("AT_PHDR[0] is PT_PHDR: %d, AT_PHNUM %lu\n",
	    ph != NULL && ph[0].p_type == PT_PHDR, getauxval(AT_PHNUM));
	printf("AT_EXECFN %s\n", strrchr((char *)getauxval(AT_EXECFN), '/'));
	malloc_workout();
	stdio_workout();
	mmap_workout();
	return 0;
}

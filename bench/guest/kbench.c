/*
 * Kernel benchmark, run the same inside vkernel, natively and under
 * User-Mode Linux: each figure is the median of several rounds, in
 * microseconds per operation.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 7

static double
now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double
median(double (*fn)(int), int n)
{
	double v[ROUNDS];
	for (int r = 0; r < ROUNDS; r++)
		v[r] = fn(n);
	qsort(v, ROUNDS, sizeof(double), cmp);
	return v[ROUNDS / 2];
}

static double
b_getpid(int n)
{
	double t = now_us();
	for (int i = 0; i < n; i++)
		syscall(SYS_getpid);
	return (now_us() - t) / n;
}

static double
b_fork(int n)
{
	double t = now_us();
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p == 0)
			_exit(0);
		waitpid(p, NULL, 0);
	}
	return (now_us() - t) / n;
}

static const char *self;

static double
b_forkexec(int n)
{
	double t = now_us();
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p == 0) {
			execl(self, self, "exit", (char *)0);
			_exit(127);
		}
		waitpid(p, NULL, 0);
	}
	return (now_us() - t) / n;
}

static double
b_touch(int pages)
{
	char *m = mmap(NULL, (size_t)pages * 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -1;
	double t = now_us();
	for (int i = 0; i < pages; i++)
		m[(size_t)i * 4096] = 1;
	t = (now_us() - t) / pages;
	munmap(m, (size_t)pages * 4096);
	return t;
}

static double
b_pipe(int n)
{
	int a[2], b[2];
	char c = 0;
	if (pipe(a) < 0 || pipe(b) < 0)
		return -1;
	pid_t p = fork();
	if (p == 0) {
		for (int i = 0; i < n; i++)
			if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	double t = now_us();
	for (int i = 0; i < n; i++)
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			break;
	t = (now_us() - t) / n;
	waitpid(p, NULL, 0);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return t;
}

static double
b_mmaps(int n)
{
	void **v = malloc(sizeof(void *) * (size_t)n);
	double t = now_us();
	for (int i = 0; i < n; i++)
		v[i] = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	t = (now_us() - t) / n;
	for (int i = 0; i < n; i++)
		munmap(v[i], 4096);
	free(v);
	return t;
}

int
main(int argc, char **argv)
{
	self = argv[0];
	if (argc > 1 && strcmp(argv[1], "exit") == 0)
		return 0;
	int touch_pages = argc > 1 ? atoi(argv[1]) : 16384;
	printf("getpid %.3f\n", median(b_getpid, 20000));
	printf("fork+exit+wait %.1f\n", median(b_fork, 200));
	printf("fork+exec+wait %.1f\n", median(b_forkexec, 100));
	printf("first-touch-per-page %.2f\n", median(b_touch, touch_pages));
	printf("pipe-round-trip %.2f\n", median(b_pipe, 5000));
	printf("mmap-per-mapping %.2f\n", median(b_mmaps, 10000));
	return 0;
}

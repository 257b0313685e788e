/*
 * SMP benchmark, run the same natively and inside vkernel (as init):
 * N CPU-bound workers, each computing ITER rounds of the same loop, as
 * processes (fork) or as threads (pthread_create); prints the wall time
 * from the first worker's start to the last one's end:
 *
 *   smpbench procs|threads N ITER    "wall SECONDS"
 *
 * If the kernel cannot make threads it prints "unsupported: REASON" and
 * exits 0, so that the benchmark's table shows the gap.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXWORKERS	64

static uint64_t iter;
static volatile uint64_t sink[MAXWORKERS];

static double
now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *
worker(void *arg)
{
	uintptr_t id = (uintptr_t)arg;
	uint64_t x = id;
	for (uint64_t i = 0; i < iter; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		x ^= x >> 29;
	}
	sink[id] = x;
	return NULL;
}

static int
procs(int n)
{
	int st, bad = 0;
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			worker((void *)(uintptr_t)i);
			_exit(0);
		}
	}
	while (wait(&st) > 0)
		bad |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	return bad;
}

static int
threads(int n)
{
	pthread_t t[MAXWORKERS];
	for (int i = 0; i < n; i++) {
		int e = pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i);
		if (e != 0) {
			printf("unsupported: pthread_create: %s\n", strerror(e));
			exit(0);
		}
	}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc != 4 || (strcmp(argv[1], "procs") != 0 &&
	    strcmp(argv[1], "threads") != 0)) {
		fprintf(stderr, "usage: smpbench procs|threads N ITER\n");
		return 2;
	}
	int n = atoi(argv[2]);
	iter = strtoull(argv[3], NULL, 0);
	if (n < 1 || n > MAXWORKERS)
		return 2;
	double t0 = now_s();
	int bad = strcmp(argv[1], "procs") == 0 ? procs(n) : threads(n);
	printf("wall %.3f\n", now_s() - t0);
	return bad;
}

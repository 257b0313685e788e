/*
 * Guest side of tests/system/smp.t, also run natively there.
 *
 *   smp cpus            the CPU count as sched_getaffinity, sysconf and
 *                       /proc/cpuinfo give it: "cpus A B C"
 *   smp spin N ITER     N processes each compute a checksum of ITER
 *                       rounds: "proc I SUM" each (the same natively);
 *                       then, inside only (-s), the user ticks each CPU
 *                       gained from /proc/stat: "stat cpu0 U0 cpu1 U1
 *                       elapsed E" (E: the ticks of one CPU meanwhile)
 *   smp pin CPU N ITER  N processes pinned to CPU compute as above and
 *                       check with getcpu where they ran: "pinned I
 *                       SUM elsewhere K mask M"
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAXCPUS	8

/* Not inlined away: the loop is the guest's CPU-bound work. */
static uint64_t
work(uint64_t n, uint64_t seed)
{
	uint64_t x = seed;
	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		x ^= x >> 29;
	}
	return x;
}

/* Per-CPU ticks from /proc/stat: user[i], and all states of cpu0. */
static int
read_stat(unsigned long user[MAXCPUS], unsigned long *all0)
{
	FILE *f = fopen("/proc/stat", "r");
	char line[256];
	int n = 0;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		int cpu;
		unsigned long v[8];
		if (sscanf(line, "cpu%d %lu %lu %lu %lu %lu %lu %lu %lu", &cpu,
		    &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 9 ||
		    cpu < 0 || cpu >= MAXCPUS)
			continue;
		user[cpu] = v[0];
		if (cpu == 0) {
			*all0 = 0;
			for (int i = 0; i < 8; i++)
				*all0 += v[i];
		}
		n++;
	}
	fclose(f);
	return n;
}

static int
cpus(void)
{
	cpu_set_t set;
	char line[256];
	int info = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (f != NULL) {
		while (fgets(line, sizeof(line), f) != NULL)
			info += strncmp(line, "processor", 9) == 0;
		fclose(f);
	}
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	printf("cpus %d %ld %d\n", CPU_COUNT(&set), sysconf(_SC_NPROCESSORS_ONLN), info);
	return 0;
}

/* Forks n children running child(i); 0 if all exited 0. */
static int
fork_all(int n, void (*child)(int, void *), void *arg)
{
	int bad = 0, st;

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			child(i, arg);
			exit(0);
		}
	}
	while (wait(&st) > 0)
		bad |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	return bad;
}

static void
spin_child(int i, void *arg)
{
	printf("proc %d %016llx\n", i,
	    (unsigned long long)work(*(uint64_t *)arg, (uint64_t)i));
	fflush(stdout);
}

static int
spin(int n, uint64_t iter, int stats)
{
	unsigned long u0[MAXCPUS] = { 0 }, u1[MAXCPUS] = { 0 }, a0 = 0, a1 = 0;

	if (stats && read_stat(u0, &a0) < 2)
		return 1;
	if (fork_all(n, spin_child, &iter) != 0)
		return 1;
	if (stats) {
		if (read_stat(u1, &a1) < 2)
			return 1;
		printf("stat cpu0 %lu cpu1 %lu elapsed %lu\n", u1[0] - u0[0],
		    u1[1] - u0[1], a1 - a0);
	}
	return 0;
}

struct pin {
	int cpu;
	uint64_t iter;
};

static void
pin_child(int i, void *arg)
{
	struct pin *p = arg;
	cpu_set_t set;
	unsigned long elsewhere = 0;
	uint64_t sum = (uint64_t)i;

	CPU_ZERO(&set);
	CPU_SET(p->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		perror("sched_setaffinity");
		exit(1);
	}
	for (int r = 0; r < 100; r++) {
		sum = work(p->iter / 100, sum);
		elsewhere += sched_getcpu() != p->cpu;
	}
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		exit(1);
	unsigned long mask = 0;
	for (int c = 0; c < 64; c++)
		if (CPU_ISSET(c, &set))
			mask |= 1UL << c;
	printf("pinned %d %016llx elsewhere %lu mask %#lx\n", i,
	    (unsigned long long)sum, elsewhere, mask);
	fflush(stdout);
}

int
main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && strcmp(argv[1], "cpus") == 0)
		return cpus();
	if (argc >= 4 && strcmp(argv[1], "spin") == 0)
		return spin(atoi(argv[2]), strtoull(argv[3], NULL, 0),
		    argc > 4 && strcmp(argv[4], "-s") == 0);
	if (argc == 5 && strcmp(argv[1], "pin") == 0) {
		struct pin p = { atoi(argv[2]), strtoull(argv[4], NULL, 0) };
		return fork_all(atoi(argv[3]), pin_child, &p);
	}
	fprintf(stderr, "usage: smp cpus | spin N ITER [-s] | pin CPU N ITER\n");
	return 2;
}

/*
 * Hostile futex calls: four processes of four threads each share a page
 * and throw random futex(2), futex_waitv and set_robust_list calls at
 * the kernel (every command and flag, good, misaligned, unmapped and
 * kernel addresses, bad timeouts, words changing under the kernel from
 * other threads), and one process is killed midway while it may own PI
 * locks and robust lists.  The kernel must neither crash nor hang:
 * every process ends (each has 30 s) and is reaped.  Prints "ok" and
 * exits 0 then.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS	5000

static uint32_t *shm;

static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint64_t
addr(uint64_t *s)
{
	switch (rnd(s) % 8) {
	case 0: return 0;
	case 1: return (uint64_t)(uintptr_t)shm + rnd(s) % 4096;	/* misaligned too */
	case 2: return 0x7fff00000000ULL - 4;				/* above user memory */
	case 3: return 0xffff800000000000ULL;				/* the kernel half */
	default: return (uint64_t)(uintptr_t)&shm[rnd(s) % 16];
	}
}

static void *
hammer(void *arg)
{
	uint64_t s = (uint64_t)(uintptr_t)arg * 7919 + (uint64_t)getpid();
	struct timespec ts = { 0, 1000000 }, bad = { -1, 5 };
	for (int i = 0; i < ROUNDS; i++) {
		int cmd = (int)(rnd(&s) % 15);
		int op = cmd | (rnd(&s) % 2 ? 128 : 0) | (rnd(&s) % 4 == 0 ? 256 : 0);
		uint32_t val = rnd(&s) % 3 == 0 ? (uint32_t)rnd(&s) : shm[rnd(&s) % 16];
		const void *t = rnd(&s) % 5 == 0 ? (const void *)&bad : (const void *)&ts;
		if (cmd == 3 || cmd == 4 || cmd == 5 || cmd == 12)
			t = (const void *)(uintptr_t)(rnd(&s) % 4);	/* a count */
		syscall(SYS_futex, addr(&s), op, val, t, addr(&s), (uint32_t)rnd(&s));
		if (rnd(&s) % 50 == 0) {
			struct { uint64_t val, uaddr; uint32_t flags, reserved; } v[3];
			for (int j = 0; j < 3; j++) {
				v[j].val = shm[j];
				v[j].uaddr = addr(&s);
				v[j].flags = 2 | (rnd(&s) % 2 ? 128 : 0);
				v[j].reserved = 0;
			}
			syscall(449, v, 1 + rnd(&s) % 3, 0, &ts, CLOCK_MONOTONIC);
		}
		if (rnd(&s) % 100 == 0) {
			/* a list through the shared page, maybe looping, maybe PI */
			uint64_t *h = (uint64_t *)&shm[100];
			h[0] = (uint64_t)(uintptr_t)&shm[106 + 2 * (rnd(&s) % 4)] | (rnd(&s) & 1);
			h[1] = rnd(&s) % 64 - 32;
			h[2] = rnd(&s) % 2 ? 0 : (uint64_t)(uintptr_t)&shm[rnd(&s) % 16];
			for (int j = 0; j < 4; j++)
				*(uint64_t *)&shm[106 + 2 * j] = rnd(&s) % 2 ?
				    (uint64_t)(uintptr_t)h : (uint64_t)(uintptr_t)&shm[106 + 2 * (rnd(&s) % 4)];
			syscall(SYS_set_robust_list, h, 24);
		}
		if (rnd(&s) % 20 == 0)
			shm[rnd(&s) % 16] = rnd(&s) % 3 == 0 ? (uint32_t)getpid() : (uint32_t)rnd(&s);
	}
	return NULL;
}

int
main(void)
{
	shm = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED)
		return 1;
	pid_t kids[4];
	for (int k = 0; k < 4; k++) {
		if ((kids[k] = fork()) == 0) {
			alarm(30);
			pthread_t t[3];
			for (int j = 0; j < 3; j++)
				pthread_create(&t[j], NULL, hammer, (void *)(uintptr_t)(k * 4 + j + 1));
			hammer((void *)(uintptr_t)(k * 4 + 100));
			_exit(0);	/* the other threads go with it */
		}
	}
	usleep(100000);
	kill(kids[0], SIGKILL);
	int reaped = 0, late = 0, st;
	while (wait(&st) > 0) {
		reaped++;
		late += WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM;
	}
	if (reaped != 4 || late != 0) {
		printf("FAIL futexfuzz: %d reaped, %d hung until their alarm\n", reaped, late);
		return 1;
	}
	printf("ok futexfuzz\n");
	return 0;
}

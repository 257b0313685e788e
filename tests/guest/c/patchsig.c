/*
 * System calls made by "mov $nr,%eax; syscall" (the pattern vkernel
 * patches into a jump to its trampoline) while signals arrive: threads
 * looping on getpid/gettid/getppid, signalled all along; a blocking read
 * interrupted with and without SA_RESTART; a nanosleep interrupted by a
 * stop (restart_syscall); fork and vfork from patched code.  Output must
 * be Linux's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The exact pattern: mov $nr,%eax (b8 imm32) right before syscall. */
#define RAW0(nr) ({ long _r; __asm__ volatile ("mov $" #nr ", %%eax\n\tsyscall" \
	: "=a"(_r) : : "rcx", "r11", "memory"); _r; })
#define RAW3(nr, a, b, c) ({ long _r; register long _d __asm__("rdx") = (long)(c); \
	__asm__ volatile ("mov $" #nr ", %%eax\n\tsyscall" : "=a"(_r) \
	: "D"((long)(a)), "S"((long)(b)), "r"(_d) : "rcx", "r11", "memory"); _r; })

#define NTHREADS 3
#define LOOPS 20000

static volatile int sigs;
static volatile int stop;
static int bad[NTHREADS];

static void
on_sig(int s)
{
	(void)s;
	sigs++;
}

static void *
looper(void *arg)
{
	int n = (int)(long)arg;
	long pid = getpid(), tid = syscall(SYS_gettid), ppid = getppid();

	for (int i = 0; i < LOOPS && !stop; i++) {
		if (RAW0(39) != pid)		/* getpid */
			bad[n]++;
		if (RAW0(186) != tid)		/* gettid */
			bad[n]++;
		if (RAW0(110) != ppid)		/* getppid */
			bad[n]++;
	}
	return NULL;
}

static void
threads(void)
{
	pthread_t t[NTHREADS];
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sig;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	for (int i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, looper, (void *)(long)i);
	for (int k = 0; k < 300; k++)
		for (int i = 0; i < NTHREADS; i++)
			pthread_kill(t[i], SIGUSR1);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	int b = 0;
	for (int i = 0; i < NTHREADS; i++)
		b += bad[i];
	printf("threads: %d wrong results\n", b);
}

static int pfd[2];
static volatile long rd_ret, rd_err;
static volatile int rd_done;

/* One site for every read: warmed up, then blocked in. */
__attribute__((noinline)) static long
raw_read(int fd, char *c)
{
	return RAW3(0, fd, c, 1);
}

__attribute__((noinline)) static long
raw_nanosleep(const struct timespec *ts)
{
	return RAW3(35, ts, NULL, 0);
}

static void *
reader(void *arg)
{
	char c = 0;
	(void)arg;
	long r = raw_read(pfd[0], &c);
	rd_ret = r < 0 ? -1 : r;
	rd_err = r < 0 ? -r : 0;
	rd_done = 1;
	return NULL;
}

/* A read blocked on a pipe, signalled 5 times, then fed. */
static void
blocking_read(int flags)
{
	struct sigaction sa;
	pthread_t t;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sig;
	sa.sa_flags = flags;
	sigaction(SIGUSR2, &sa, NULL);
	pipe(pfd);
	/* Enough calls from the site for vkernel to patch it (16). */
	for (int i = 0; i < 20; i++) {
		char c;
		if (write(pfd[1], "w", 1) != 1 || raw_read(pfd[0], &c) != 1)
			printf("warm-up read failed\n");
	}
	rd_done = 0;
	pthread_create(&t, NULL, reader, NULL);
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	for (int i = 0; i < 5 && !rd_done; i++) {
		nanosleep(&ts, NULL);
		pthread_kill(t, SIGUSR2);
	}
	nanosleep(&ts, NULL);
	if (write(pfd[1], "x", 1) != 1)
		perror("write");
	pthread_join(t, NULL);
	printf("read %s: returned %ld errno %s\n",
	    flags & SA_RESTART ? "SA_RESTART" : "no SA_RESTART",
	    rd_ret, rd_err == EINTR ? "EINTR" : rd_err == 0 ? "0" : "other");
	close(pfd[0]);
	close(pfd[1]);
}

/* nanosleep (35) stopped and continued: restart_syscall finishes it. */
static void
stopped_sleep(void)
{
	/* Patched here first: the child sleeps through the trampoline. */
	struct timespec z = { 0, 1 };
	for (int i = 0; i < 20; i++)
		raw_nanosleep(&z);
	pid_t c = fork();
	if (c == 0) {
		struct timespec ts = { 0, 300 * 1000 * 1000 }, t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		long r = raw_nanosleep(&ts);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
		_exit(r == 0 && ms >= 290 ? 0 : 1);
	}
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	kill(c, SIGSTOP);
	nanosleep(&ts, NULL);
	kill(c, SIGCONT);
	int st;
	waitpid(c, &st, 0);
	printf("nanosleep across a stop: %s\n",
	    WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "slept it all" : "wrong");
}

static void
forks(void)
{
	long pid = RAW0(39);
	pid_t c = fork();
	if (c == 0)
		_exit(RAW0(39) == getpid() && RAW0(39) != pid ? 0 : 1);
	int st;
	waitpid(c, &st, 0);
	printf("fork: child's getpid %s\n", WEXITSTATUS(st) == 0 ? "its own" : "wrong");
	c = vfork();
	if (c == 0)
		_exit(RAW0(110) == pid ? 0 : 1);
	waitpid(c, &st, 0);
	printf("vfork: child's getppid %s; parent's getpid %s\n",
	    WEXITSTATUS(st) == 0 ? "right" : "wrong", RAW0(39) == pid ? "right" : "wrong");
}

/*
 * With a gs base of its own (vkernel's trampoline then takes the signal
 * path) and back to 0: the same answers, and the base reads back as set.
 */
static void
gsbase(void)
{
	static char area[64];
	unsigned long got = 1;
	int bad = 0;
	long pid = getpid();

	syscall(SYS_arch_prctl, 0x1001 /* ARCH_SET_GS */, area);
	for (int i = 0; i < 1000; i++)
		bad += RAW0(39) != pid;
	syscall(SYS_arch_prctl, 0x1004 /* ARCH_GET_GS */, &got);
	printf("gs set: %d wrong, reads back %s\n", bad,
	    got == (unsigned long)area ? "as set" : "otherwise");
	syscall(SYS_arch_prctl, 0x1001, 0UL);
	bad = 0;
	for (int i = 0; i < 1000; i++)
		bad += RAW0(39) != pid;
	syscall(SYS_arch_prctl, 0x1004, &got);
	printf("gs 0: %d wrong, reads back %lu\n", bad, got);
}

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	/* Twice: the first time each site goes by the signal path. */
	for (int round = 0; round < 2; round++) {
		threads();
		blocking_read(SA_RESTART);
		blocking_read(0);
		stopped_sleep();
		forks();
		gsbase();
	}
	return 0;
}

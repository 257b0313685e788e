/*
 * Threads that end while others block in system calls: one thread's
 * pthread_exit leaves a reader blocked in read on a pipe and a sleeper
 * in nanosleep as they were (the read gets its byte, the sleep ends
 * whole, not EINTR); exit() in one thread, or _exit in main, ends a
 * process whose other threads block in read, nanosleep, a futex wait
 * and pause, with its status.
 */
#include "thr.h"
#include <semaphore.h>
#include <sys/wait.h>

static int pipefd[2];
static sem_t never;

static void *
reader(void *arg)
{
	char c = 0;
	(void)arg;
	long n = read(pipefd[0], &c, 1);
	return (void *)(n == 1 ? (long)c : -1);
}

static void *
sleeper(void *arg)
{
	struct timespec ts = { 0, 300 * 1000000L };
	(void)arg;
	return (void *)(long)(nanosleep(&ts, NULL) == 0 ? 0 : errno);
}

static void *
ender(void *arg)
{
	(void)arg;
	pthread_exit((void *)3);
}

static void *
waiter(void *arg)
{
	(void)arg;
	sem_wait(&never);
	return NULL;
}

static void *
pauser(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void *
exits(void *arg)
{
	thr_sleep_ms(50);
	exit((int)(long)arg);
}

/* A child whose threads block; exit from a thread (or _exit from main). */
static int
child_exit(int from_thread)
{
	int st = -1;
	pid_t pid = fork();
	if (pid == 0) {
		pthread_t t;
		thr_create(&t, NULL, reader, NULL);
		thr_create(&t, NULL, sleeper, NULL);
		thr_create(&t, NULL, waiter, NULL);
		thr_create(&t, NULL, pauser, NULL);
		if (from_thread) {
			thr_create(&t, NULL, exits, (void *)7);
			thr_join(t);
		}
		thr_sleep_ms(50);
		_exit(9);
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int
main(void)
{
	pthread_t r, s, e;

	thr_init();
	pipe(pipefd);
	sem_init(&never, 0, 0);
	thr_create(&r, NULL, reader, NULL);
	thr_create(&s, NULL, sleeper, NULL);
	thr_sleep_ms(20);
	thr_create(&e, NULL, ender, NULL);
	EXPECT((long)thr_join(e), 3, "a thread ends while two block");
	thr_sleep_ms(20);
	write(pipefd[1], "z", 1);
	EXPECT((long)thr_join(r), 'z', "the reader then reads its byte");
	EXPECT((long)thr_join(s), 0, "the sleeper sleeps whole: 0, no EINTR");

	/* The child's threads keep the pipe's write end: read never ends. */
	EXPECT(child_exit(1), 7, "exit in a thread ends the blocked others: status 7");
	EXPECT(child_exit(0), 9, "_exit in main ends the blocked others: status 9");
	return thr_exit_status();
}

/*
 * fork from a thread: the child has the calling thread alone (one task
 * in /proc/self/task, its tid its pid), runs the pthread_atfork child
 * handler, can create and join threads of its own, and sees memory as
 * it was; the parent keeps all its threads.
 */
#include "thr.h"
#include <semaphore.h>
#include <sys/wait.h>

#define NHELP	2

static sem_t hold;
static char calls[8];
static int ncalls;
static int value = 1;

static void prepare(void) { calls[ncalls++] = 'p'; }
static void parent(void) { calls[ncalls++] = 'P'; }
static void child(void) { calls[ncalls++] = 'C'; }

static void *
helper(void *arg)
{
	(void)arg;
	sem_wait(&hold);
	return NULL;
}

static void *
doubler(void *arg)
{
	return (void *)((long)arg * 2);
}

static void *
forker(void *arg)
{
	int st = -1;
	(void)arg;
	value = 2;
	pid_t pid = fork();
	if (pid == 0) {
		pthread_t t;
		EXPECT(thr_ntasks(), 1, "child: one thread in /proc/self/task");
		EXPECT(thr_gettid(), getpid(), "child: its thread's tid is its pid");
		CHECK(ncalls == 2 && memcmp(calls, "pC", 2) == 0, "child: prepare, then the child handler");
		EXPECT(value, 2, "child: memory as the thread left it");
		thr_create(&t, NULL, doubler, (void *)21);
		EXPECT((long)thr_join(t), 42, "child: a thread of its own");
		fflush(stdout);
		_exit(thr_exit_status());
	}
	waitpid(pid, &st, 0);
	EXPECT(WIFEXITED(st) ? WEXITSTATUS(st) : -1, 0, "parent: the child's checks passed");
	CHECK(ncalls == 2 && memcmp(calls, "pP", 2) == 0, "parent: prepare, then the parent handler");
	EXPECT(thr_ntasks(), NHELP + 2, "parent: all its threads in /proc/self/task");
	return NULL;
}

int
main(void)
{
	pthread_t t[NHELP], f;

	thr_init();
	sem_init(&hold, 0, 0);
	pthread_atfork(prepare, parent, child);
	for (int i = 0; i < NHELP; i++)
		thr_create(&t[i], NULL, helper, NULL);
	thr_create(&f, NULL, forker, NULL);
	thr_join(f);
	for (int i = 0; i < NHELP; i++)
		sem_post(&hold);
	for (int i = 0; i < NHELP; i++)
		thr_join(t[i]);
	return thr_exit_status();
}

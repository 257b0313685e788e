/*
 * Join and detach: join returns each thread's value (returned, or given
 * to pthread_exit deep in its calls), also of a thread that ended
 * before the join; 200 threads one after another and 32 at once; a
 * detached thread runs to its end; a thread on a stack of the caller's
 * runs on it; when main calls pthread_exit the others go on, and the
 * process ends with the last one.
 */
#include "thr.h"
#include <semaphore.h>

#define NTHR	4
#define MANY	200
#define ATONCE	32

static sem_t done;

static void *
ret_value(void *arg)
{
	return (void *)((long)arg * 10 + 1);
}

static void
deeper(void)
{
	pthread_exit((void *)77);
}

static void
deep(void)
{
	deeper();
	printf("FAIL pthread_exit returned\n");
}

static void *
exits_deep(void *arg)
{
	(void)arg;
	deep();
	return NULL;
}

static void *
posts(void *arg)
{
	(void)arg;
	sem_post(&done);
	return (void *)5;
}

static pthread_barrier_t bar;

static void *
meets(void *arg)
{
	pthread_barrier_wait(&bar);
	return arg;
}

/* Whether a local variable lies in [arg[0], arg[1]). */
static void *
on_stack(void *arg)
{
	char **bounds = arg;
	char local;
	return (void *)(long)(&local >= bounds[0] && &local < bounds[1]);
}

static pid_t main_pid;

static void *
last_one(void *arg)
{
	(void)arg;
	sem_wait(&done);
	thr_sleep_ms(20);
	EXPECT(getpid(), main_pid, "after main's pthread_exit: the same process");
	/* The process ends with the last thread, with status 0. */
	printf("the last thread returns\n");
	return NULL;
}

int
main(void)
{
	pthread_t t[ATONCE];
	pthread_attr_t a;
	long sum;
	int st;

	thr_init();
	for (long i = 0; i < NTHR; i++)
		thr_create(&t[i], NULL, ret_value, (void *)i);
	sum = 0;
	for (int i = NTHR - 1; i >= 0; i--)
		sum += (long)thr_join(t[i]) == i * 10 + 1;
	EXPECT(sum, NTHR, "join returns each thread's value, joined in reverse");
	thr_create(&t[0], NULL, exits_deep, NULL);
	EXPECT((long)thr_join(t[0]), 77, "join returns pthread_exit's value");
	sem_init(&done, 0, 0);
	thr_create(&t[0], NULL, posts, NULL);
	sem_wait(&done);
	thr_sleep_ms(20);
	EXPECT((long)thr_join(t[0]), 5, "join of a thread already ended");

	sum = 0;
	for (long i = 0; i < MANY; i++) {
		thr_create(&t[0], NULL, ret_value, (void *)i);
		sum += (long)thr_join(t[0]) == i * 10 + 1;
	}
	EXPECT(sum, MANY, "200 threads, one after another");
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	pthread_barrier_init(&bar, NULL, ATONCE);
	for (long i = 0; i < ATONCE; i++)
		thr_create(&t[i], &a, meets, (void *)i);
	sum = 0;
	for (long i = 0; i < ATONCE; i++)
		sum += (long)thr_join(t[i]) == i;
	EXPECT(sum, ATONCE, "32 threads at once, on 64 KiB stacks");

	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_attr_getdetachstate(&a, &st);
	EXPECT(st, PTHREAD_CREATE_DETACHED, "attr: detached");
	thr_create(&t[0], &a, posts, NULL);
	EXPECT(sem_wait(&done), 0, "a detached thread runs");
	thr_create(&t[0], NULL, posts, NULL);
	EXPECT(pthread_detach(t[0]), 0, "pthread_detach of a running thread");
	EXPECT(sem_wait(&done), 0, "it runs to its end");
	pthread_attr_destroy(&a);

	static char stack[256 * 1024] __attribute__((aligned(64)));
	pthread_attr_init(&a);
	pthread_attr_setstack(&a, stack, sizeof(stack));
	char *bounds[2] = { stack, stack + sizeof(stack) };
	thr_create(&t[0], &a, on_stack, bounds);
	EXPECT((long)thr_join(t[0]), 1, "a thread on the caller's stack runs on it");
	pthread_attr_destroy(&a);

	main_pid = getpid();
	thr_create(&t[0], NULL, last_one, NULL);
	printf("main calls pthread_exit\n");
	sem_post(&done);
	pthread_exit(NULL);
}

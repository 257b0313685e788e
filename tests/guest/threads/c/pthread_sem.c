/*
 * Semaphores: a thread takes 1000 posts one by one, two threads play
 * ping-pong, sem_trywait reports EAGAIN, sem_timedwait ETIMEDOUT (and 0
 * when posted); a process-shared pair in a MAP_SHARED page plays
 * ping-pong across fork.
 */
#include "thr.h"
#include <semaphore.h>
#include <sys/mman.h>
#include <sys/wait.h>

#define ROUNDS	1000

static sem_t s, ping, pong;

static void *
taker(void *arg)
{
	long n = 0;
	(void)arg;
	for (int i = 0; i < ROUNDS; i++)
		n += sem_wait(&s) == 0;
	return (void *)n;
}

static void *
ponger(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		sem_wait(&ping);
		sem_post(&pong);
	}
	return NULL;
}

struct shared {
	sem_t a, b;
	int count;
};

int
main(void)
{
	pthread_t t;
	int v = -1, st;
	struct timespec dl;

	thr_init();
	sem_init(&s, 0, 0);
	thr_create(&t, NULL, taker, NULL);
	for (int i = 0; i < ROUNDS; i++)
		sem_post(&s);
	EXPECT((long)thr_join(t), ROUNDS, "a thread takes 1000 posts");
	sem_getvalue(&s, &v);
	EXPECT(v, 0, "sem_getvalue: 0 after");
	errno = 0;
	EXPECT(sem_trywait(&s), -1, "sem_trywait at 0: -1");
	EXPECT(errno, EAGAIN, "sem_trywait at 0: EAGAIN");
	dl = thr_deadline(CLOCK_REALTIME, 50);
	errno = 0;
	EXPECT(sem_timedwait(&s, &dl), -1, "sem_timedwait at 0: -1");
	EXPECT(errno, ETIMEDOUT, "sem_timedwait at 0: ETIMEDOUT");
	CHECK(thr_passed(CLOCK_REALTIME, dl), "sem_timedwait: not before the deadline");
	sem_post(&s);
	dl = thr_deadline(CLOCK_REALTIME, 50);
	EXPECT(sem_timedwait(&s, &dl), 0, "sem_timedwait when posted: 0");

	sem_init(&ping, 0, 0);
	sem_init(&pong, 0, 0);
	thr_create(&t, NULL, ponger, NULL);
	int rounds = 0;
	for (int i = 0; i < ROUNDS; i++) {
		sem_post(&ping);
		rounds += sem_wait(&pong) == 0;
	}
	thr_join(t);
	EXPECT(rounds, ROUNDS, "ping-pong between two threads: 1000 rounds");

	struct shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sh != MAP_FAILED, "a MAP_SHARED page");
	EXPECT(sem_init(&sh->a, 1, 0), 0, "process-shared sem_init");
	sem_init(&sh->b, 1, 0);
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < ROUNDS; i++) {
			sem_wait(&sh->a);
			sh->count++;
			sem_post(&sh->b);
		}
		_exit(0);
	}
	rounds = 0;
	for (int i = 0; i < ROUNDS; i++) {
		sem_post(&sh->a);
		rounds += sem_wait(&sh->b) == 0;
	}
	EXPECT(waitpid(pid, &st, 0), pid, "the child ends");
	EXPECT(st, 0, "the child's status");
	EXPECT(rounds, ROUNDS, "ping-pong across fork: 1000 rounds");
	EXPECT(sh->count, ROUNDS, "ping-pong across fork: the child counted each");
	return thr_exit_status();
}

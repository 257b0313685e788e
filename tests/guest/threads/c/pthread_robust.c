/*
 * Robust mutexes: when the owner dies holding one (a thread that ends,
 * a process that exits or is killed, in a MAP_SHARED page), the next
 * locker gets EOWNERDEAD, also one already waiting; after
 * pthread_mutex_consistent it is a mutex again; unlocked without it,
 * it is ENOTRECOVERABLE for good.
 */
#include "thr.h"
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

static void *
lock_and_end(void *m)
{
	pthread_mutex_lock(m);
	return NULL;
}

static void
robust_init(pthread_mutex_t *m, int pshared)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutexattr_setpshared(&a, pshared);
	pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
}

/* A child locks m; it tells us on p, waits delay_ms, and dies by how. */
static pid_t
child_holds(pthread_mutex_t *m, int how, long delay_ms)
{
	int p[2];
	char c;
	pipe(p);
	pid_t pid = fork();
	if (pid == 0) {
		pthread_mutex_lock(m);
		write(p[1], "x", 1);
		thr_sleep_ms(delay_ms);
		if (how == SIGKILL)
			raise(SIGKILL);
		_exit(0);
	}
	read(p[0], &c, 1);
	close(p[0]);
	close(p[1]);
	return pid;
}

int
main(void)
{
	pthread_mutex_t m;
	pthread_t t;
	int st;

	thr_init();
	robust_init(&m, PTHREAD_PROCESS_PRIVATE);
	thr_create(&t, NULL, lock_and_end, &m);
	thr_join(t);
	EXPECT(pthread_mutex_lock(&m), EOWNERDEAD, "thread ended holding it: EOWNERDEAD");
	EXPECT(pthread_mutex_consistent(&m), 0, "pthread_mutex_consistent");
	EXPECT(pthread_mutex_unlock(&m), 0, "unlock");
	EXPECT(pthread_mutex_lock(&m), 0, "a mutex again: lock");
	pthread_mutex_unlock(&m);

	thr_create(&t, NULL, lock_and_end, &m);
	thr_join(t);
	EXPECT(pthread_mutex_lock(&m), EOWNERDEAD, "again: EOWNERDEAD");
	EXPECT(pthread_mutex_unlock(&m), 0, "unlock, not made consistent");
	EXPECT(pthread_mutex_lock(&m), ENOTRECOVERABLE, "then: ENOTRECOVERABLE");
	EXPECT(pthread_mutex_trylock(&m), ENOTRECOVERABLE, "trylock too: ENOTRECOVERABLE");

	pthread_mutex_t *sm = mmap(NULL, sizeof(*sm), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	robust_init(sm, PTHREAD_PROCESS_SHARED);
	pid_t pid = child_holds(sm, 0, 0);
	waitpid(pid, &st, 0);
	EXPECT(pthread_mutex_lock(sm), EOWNERDEAD, "shared: the child exited holding it: EOWNERDEAD");
	pthread_mutex_consistent(sm);
	pthread_mutex_unlock(sm);
	pid = child_holds(sm, SIGKILL, 0);
	waitpid(pid, &st, 0);
	EXPECT(WIFSIGNALED(st) ? WTERMSIG(st) : 0, SIGKILL, "shared: a child killed holding it");
	EXPECT(pthread_mutex_lock(sm), EOWNERDEAD, "shared: then EOWNERDEAD");
	pthread_mutex_consistent(sm);
	pthread_mutex_unlock(sm);
	/* Blocks in the lock (in the kernel) before the child exits. */
	pid = child_holds(sm, 0, 100);
	EXPECT(pthread_mutex_lock(sm), EOWNERDEAD, "shared: a waiter when the owner exits: EOWNERDEAD");
	pthread_mutex_consistent(sm);
	pthread_mutex_unlock(sm);
	waitpid(pid, &st, 0);
	EXPECT(pthread_mutex_trylock(sm), 0, "shared: a mutex again");
	return thr_exit_status();
}

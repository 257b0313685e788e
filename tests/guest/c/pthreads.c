/*
 * The thread mechanisms through the C library's pthreads (clone with
 * CLONE_SETTLS and CHILD_CLEARTID, join on the futex the kernel wakes at
 * thread exit): create and join with return values, a mutex-protected
 * count across threads, thread ids, a detached thread, a thread that
 * forks, and one that execs while the others block.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define NTHREADS	4
#define NINCR		20000

extern char **environ;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static pid_t tids[NTHREADS];
static __thread int tls_value;

static void *
worker(void *arg)
{
	int i = (int)(intptr_t)arg;
	tls_value = i + 1;
	tids[i] = (pid_t)syscall(SYS_gettid);
	for (int n = 0; n < NINCR; n++) {
		pthread_mutex_lock(&lock);
		counter++;
		pthread_mutex_unlock(&lock);
	}
	return (void *)(intptr_t)(tls_value * 10);
}

static void
test_create_join(void)
{
	pthread_t th[NTHREADS];
	int sum = 0, distinct = 1;
	for (int i = 0; i < NTHREADS; i++)
		pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
	for (int i = 0; i < NTHREADS; i++) {
		void *ret;
		pthread_join(th[i], &ret);
		sum += (int)(intptr_t)ret;
	}
	for (int i = 0; i < NTHREADS; i++)
		for (int j = 0; j < i; j++)
			distinct &= tids[i] != tids[j] && tids[i] != getpid();
	printf("join: sum of returns %d, count %ld, tids distinct %d, "
	    "main's TLS untouched %d\n", sum, counter, distinct, tls_value == 0);
}

static volatile int detached_ran;

static void *
detached(void *arg)
{
	(void)arg;
	detached_ran = 1;
	return NULL;
}

static void
test_detach(void)
{
	pthread_t th;
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_create(&th, &a, detached, NULL);
	while (!detached_ran)
		usleep(1000);
	printf("detached thread ran %d\n", detached_ran);
}

static void *
forker(void *arg)
{
	(void)arg;
	pid_t pid = fork();
	if (pid == 0)
		_exit((pid_t)syscall(SYS_gettid) == getpid() ? 21 : 22);
	int st = 0;
	waitpid(pid, &st, 0);
	return (void *)(intptr_t)WEXITSTATUS(st);
}

static void *
execer(void *arg)
{
	char *argv[] = { "pthreads", "--after-exec", arg, NULL };
	execve("/proc/self/exe", argv, environ);
	return NULL;
}

static void *
sleeper(void *arg)
{
	(void)arg;
	pause();
	return NULL;
}

static void
test_fork_exec(void)
{
	pthread_t th;
	void *ret;
	pthread_create(&th, NULL, forker, NULL);
	pthread_join(th, &ret);
	printf("fork from a thread: child status %d\n", (int)(intptr_t)ret);

	pid_t pid = fork();
	if (pid == 0) {
		static char pidarg[16];
		snprintf(pidarg, sizeof(pidarg), "%d", getpid());
		pthread_create(&th, NULL, sleeper, NULL);
		pthread_create(&th, NULL, execer, pidarg);
		pause();
		_exit(1);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	printf("exec from a thread: status %d\n", WEXITSTATUS(st));
}

int
main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 3 && strcmp(argv[1], "--after-exec") == 0) {
		printf("after exec: pid kept %d, tid is pid %d\n",
		    getpid() == atoi(argv[2]),
		    (pid_t)syscall(SYS_gettid) == getpid());
		return 8;
	}
	test_create_join();
	test_detach();
	test_fork_exec();
	return 0;
}

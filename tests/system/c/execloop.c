/*
 * Exec in every shape a process meets it, many times over: a forked
 * child's, a vfork child's, a threaded process's (its other threads
 * killed by the exec) and a chain of execs in one process.  Each exec'd
 * image reports through its exit status what it was given, so a lost
 * argument, a wrong image or a stale address space shows as a status.
 *
 *	execloop N		runs the four patterns, N rounds of the loops
 *	execloop child K	exits with K % 7 (the exec'd image)
 *	execloop chain K	execs itself with K - 1, exits 5 at 0
 *	execloop threads	starts two threads, then execs "child 3"
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char self[] = "/proc/self/exe";
static char *image;		/* argv[0]: what we exec */

static int
status_of(pid_t p)
{
	int st;
	if (p < 0 || waitpid(p, &st, 0) != p)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void
exec_self(const char *what, long k)
{
	char arg[32];
	snprintf(arg, sizeof(arg), "%ld", k);
	execl(image, image, what, arg, (char *)0);
	_exit(126);
}

static volatile unsigned long spun;

static void *
spinner(void *arg)
{
	(void)arg;
	for (;;)
		spun++;
	return NULL;
}

static void *
sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static int
bad_statuses(int n, pid_t (*start)(long))
{
	int bad = 0;
	for (long i = 0; i < n; i++)
		if (status_of(start(i)) != i % 7)
			bad++;
	return bad;
}

static pid_t
fork_exec(long i)
{
	pid_t p = fork();
	if (p == 0)
		exec_self("child", i);
	return p;
}

static pid_t
vfork_exec(long i)
{
	pid_t p = vfork();
	if (p == 0)
		exec_self("child", i);
	return p;
}

int
main(int argc, char **argv)
{
	image = argc > 0 && strchr(argv[0], '/') != NULL ? argv[0] : self;
	if (argc == 3 && strcmp(argv[1], "child") == 0)
		return (int)(atol(argv[2]) % 7);
	if (argc == 3 && strcmp(argv[1], "chain") == 0) {
		long k = atol(argv[2]);
		if (k > 0)
			exec_self("chain", k - 1);
		return 5;
	}
	if (argc == 2 && strcmp(argv[1], "threads") == 0) {
		pthread_t a, b;
		if (pthread_create(&a, NULL, spinner, NULL) != 0 ||
		    pthread_create(&b, NULL, sleeper, NULL) != 0)
			return 120;
		while (spun < 1000)
			sched_yield();
		exec_self("child", 3);
	}
	int n = argc == 2 ? atoi(argv[1]) : 100;
	printf("fork+exec: %d of %d wrong\n", bad_statuses(n, fork_exec), n);
	printf("vfork+exec: %d of %d wrong\n", bad_statuses(n, vfork_exec), n);
	int bad = 0;
	for (int i = 0; i < 20; i++) {
		pid_t p = fork();
		if (p == 0) {
			execl(image, image, "threads", (char *)0);
			_exit(126);
		}
		bad += status_of(p) != 3;
	}
	printf("threads then exec: %d of 20 wrong\n", bad);
	pid_t p = fork();
	if (p == 0)
		exec_self("chain", 50);
	printf("a chain of 50 execs: status %d\n", status_of(p));
	return 0;
}

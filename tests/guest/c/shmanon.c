/*
 * MAP_SHARED | MAP_ANONYMOUS memory is one memory for every process and
 * thread that maps it: a child's writes show in its parent and the other
 * way round, after a second fork (a grandchild) too, whether the memory
 * was touched before the fork or not; mprotect of a part in one process
 * does not change the other's; a thread sees it as any memory.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PG	4096L

static char *
shared(long pages)
{
	return mmap(NULL, pages * PG, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
}

static int
wait_child(pid_t pid)
{
	int st;
	waitpid(pid, &st, 0);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

static void *
thread_main(void *arg)
{
	char *p = arg;
	p[PG] = 'T';
	return (void *)(long)(p[0] == 'M');
}

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* Untouched before the fork: the child's first write is shared. */
	char *p = shared(4);
	pid_t pid = fork();
	if (pid == 0) {
		strcpy(p, "from the child");
		strcpy(p + 3 * PG, "last page");
		_exit(0);
	}
	wait_child(pid);
	printf("untouched, child wrote: \"%s\", \"%s\"\n", p, p + 3 * PG);

	/* The parent's writes after the fork show in the child. */
	int pipefd[2];
	if (pipe(pipefd) != 0)
		return 1;
	pid = fork();
	if (pid == 0) {
		char c;
		if (read(pipefd[0], &c, 1) != 1)
			_exit(2);
		_exit(strcmp(p + PG, "parent, later") == 0 ? 0 : 1);
	}
	strcpy(p + PG, "parent, later");
	if (write(pipefd[1], "x", 1) != 1)
		return 1;
	printf("child sees the parent's later write: %s\n",
	    wait_child(pid) == 0 ? "yes" : "no");

	/* Fork after fork: a grandchild's write reaches the grandparent. */
	pid = fork();
	if (pid == 0) {
		pid_t gc = fork();
		if (gc == 0) {
			strcpy(p + 2 * PG, "from the grandchild");
			_exit(0);
		}
		int r = wait_child(gc);
		/* The middle process sees it, and adds its own. */
		strcat(p + 2 * PG, ", seen by the child");
		_exit(r);
	}
	wait_child(pid);
	printf("fork after fork: \"%s\"\n", p + 2 * PG);

	/* Two generations, each touching the memory first in the child. */
	char *q = shared(1);
	pid = fork();
	if (pid == 0) {
		q[0] = 1;
		pid_t gc = fork();
		if (gc == 0) {
			q[0]++;
			_exit(0);
		}
		wait_child(gc);
		q[0]++;
		_exit(0);
	}
	wait_child(pid);
	q[0]++;
	printf("counter through three processes: %d\n", q[0]);

	/* mprotect in the child changes only the child's view. */
	pid = fork();
	if (pid == 0) {
		mprotect(p, PG, PROT_READ);
		p[PG] = 'w';		/* another page: still writable */
		p[0] = 'x';		/* SIGSEGV */
		_exit(0);
	}
	int r = wait_child(pid);
	printf("child's write after its mprotect: %s, other page written: %s\n",
	    r == 128 + SIGSEGV ? "SIGSEGV" : "allowed", p[PG] == 'w' ? "yes" :
	    "no");
	p[0] = 'p';
	printf("parent can still write: %s\n", p[0] == 'p' ? "yes" : "no");
	/* A read-only part in the parent, then a fork: shared still. */
	mprotect(p + 3 * PG, PG, PROT_READ);
	pid = fork();
	if (pid == 0) {
		mprotect(p + 3 * PG, PG, PROT_READ | PROT_WRITE);
		strcpy(p + 3 * PG, "made writable by the child");
		_exit(0);
	}
	wait_child(pid);
	printf("parent reads its read-only page: \"%s\"\n", p + 3 * PG);

	/* Threads: the same memory. */
	pthread_t t;
	p[0] = 'M';
	void *ret;
	pthread_create(&t, NULL, thread_main, p);
	pthread_join(t, &ret);
	printf("thread saw the main thread's write: %s, main sees the "
	    "thread's: %s\n", ret ? "yes" : "no", p[PG] == 'T' ? "yes" : "no");

	/* Private memory is not shared, for contrast. */
	char *v = mmap(NULL, PG, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	v[0] = 'a';
	pid = fork();
	if (pid == 0) {
		v[0] = 'b';
		_exit(0);
	}
	wait_child(pid);
	printf("private memory after the child wrote: %c\n", v[0]);
	return 0;
}

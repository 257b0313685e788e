/*
 * prctl: the name, dumpability, the parent-death signal, child
 * subreapers and no_new_privs, with their argument checks and what a
 * child inherits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

static volatile sig_atomic_t got;

static void
on_usr1(int sig)
{
	got = sig;
}

/*
 * A child that forks a grandchild and exits: the grandchild, which set
 * PR_SET_PDEATHSIG, gets SIGUSR1 and is reparented to us (a subreaper).
 */
static void
orphan(void)
{
	int p[2];
	pipe(p);
	pid_t me = getpid();
	pid_t c = fork();
	if (c == 0) {
		pid_t g = fork();
		if (g == 0) {
			signal(SIGUSR1, on_usr1);
			prctl(PR_SET_PDEATHSIG, SIGUSR1);
			write(p[1], "r", 1);	/* ready: the parent may go */
			for (int i = 0; i < 500 && !got; i++)
				usleep(10000);
			printf("grandchild: signal %d, adopted by the subreaper %d\n",
			    (int)got, getppid() == me);
			_exit(7);
		}
		char ch;
		read(p[0], &ch, 1);
		_exit(0);
	}
	int st;
	waitpid(c, &st, 0);
	pid_t w = wait(&st);
	printf("reaped the grandchild: %d, status %d\n", w > 0 && w != c,
	    WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

int
main(void)
{
	char name[32];
	int v;

	setvbuf(stdout, NULL, _IONBF, 0);
	report("set name", prctl(PR_SET_NAME, "a-very-long-process-name"));
	memset(name, 0, sizeof(name));
	report("get name", prctl(PR_GET_NAME, name));
	printf("name: %s\n", name);
	report("set name bad pointer", prctl(PR_SET_NAME, (char *)8));

	report("get dumpable", prctl(PR_GET_DUMPABLE));
	report("set dumpable 2", prctl(PR_SET_DUMPABLE, 2));
	report("set dumpable 0", prctl(PR_SET_DUMPABLE, 0));
	report("get dumpable", prctl(PR_GET_DUMPABLE));
	if (fork() == 0) {
		report("child: get dumpable", prctl(PR_GET_DUMPABLE));
		_exit(0);
	}
	wait(NULL);
	report("set dumpable 1", prctl(PR_SET_DUMPABLE, 1));

	report("set pdeathsig 65", prctl(PR_SET_PDEATHSIG, 65));
	report("set pdeathsig 64", prctl(PR_SET_PDEATHSIG, 64));
	report("set pdeathsig SIGTERM", prctl(PR_SET_PDEATHSIG, SIGTERM));
	v = -1;
	report("get pdeathsig", prctl(PR_GET_PDEATHSIG, &v));
	printf("pdeathsig %d\n", v);
	report("get pdeathsig bad pointer", prctl(PR_GET_PDEATHSIG, (int *)8));
	if (fork() == 0) {
		v = -1;
		prctl(PR_GET_PDEATHSIG, &v);
		printf("child: pdeathsig %d\n", v);
		_exit(0);
	}
	wait(NULL);
	prctl(PR_SET_PDEATHSIG, 0);

	v = -1;
	report("get subreaper", prctl(PR_GET_CHILD_SUBREAPER, &v));
	printf("subreaper %d\n", v);
	report("set subreaper", prctl(PR_SET_CHILD_SUBREAPER, 1));
	prctl(PR_GET_CHILD_SUBREAPER, &v);
	printf("subreaper %d\n", v);
	orphan();

	if (fork() == 0) {
		report("get no_new_privs", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
		report("get no_new_privs arg", prctl(PR_GET_NO_NEW_PRIVS, 1, 0, 0, 0));
		report("set no_new_privs 0", prctl(PR_SET_NO_NEW_PRIVS, 0, 0, 0, 0));
		report("set no_new_privs extra", prctl(PR_SET_NO_NEW_PRIVS, 1, 1, 0, 0));
		report("set no_new_privs", prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
		report("get no_new_privs", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
		if (fork() == 0) {
			report("grandchild: get no_new_privs",
			    prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
			_exit(0);
		}
		wait(NULL);
		_exit(0);
	}
	wait(NULL);
	report("unknown option", prctl(9999, 0, 0, 0, 0));
	return 0;
}

/*
 * fuzzinit SECONDS PROGRAM [ARG...]: PID 1 of a fuzzing run (make fuzz).
 *
 * Reads the kernel's free memory, runs PROGRAM (trinity) as nobody
 * (uid and gid 65534, no groups) in a fresh scratch directory, in a
 * session of its own, and reaps everything.  After SECONDS it sends the
 * program SIGINT (trinity then stops its children and prints its
 * summary), and 20 s later SIGKILLs everything left.  When the program
 * is gone it kills and reaps every process it left, removes the scratch
 * directory, reads free memory again and prints both figures:
 *
 *	fuzz: MemFree before N kB after N kB
 *	fuzz: PROGRAM exited with status N (or: killed by signal N)
 *
 * Exits with the program's status (128 + signal if killed), or 125 if it
 * could not run it.
 */
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SCRATCH	"/tmp/fuzz"
#define GRACE	20		/* seconds between SIGINT and SIGKILL */

static long
memfree_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "MemFree: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
onalarm(int sig)
{
	(void)sig;	/* only to interrupt wait */
}

/* Runs argv, as root, to its end; its status. */
static int
run(char *const argv[])
{
	pid_t pid = fork();
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	int st = -1;
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return st;
}

/* Kills every process but this one and reaps them all. */
static void
reap_all(void)
{
	kill(-1, SIGKILL);
	while (wait(NULL) > 0 || errno == EINTR)
		;
}

int
main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: fuzzinit SECONDS PROGRAM [ARG...]\n");
		return 125;
	}
	double limit = atof(argv[1]);
	struct sigaction sa = { .sa_handler = onalarm };
	sigaction(SIGALRM, &sa, NULL);		/* no SA_RESTART */
	char *rm[] = { "/bin/rm", "-rf", SCRATCH, NULL };

	/* One run of the tools first, so that the figure before is warm. */
	run(rm);
	long before = memfree_kb();
	if (mkdir(SCRATCH, 0777) < 0 || chmod(SCRATCH, 0777) < 0) {
		perror("fuzzinit: " SCRATCH);
		return 125;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fuzzinit: fork");
		return 125;
	}
	if (pid == 0) {
		setsid();
		if (chdir(SCRATCH) < 0 || setgroups(0, NULL) < 0 ||
		    setgid(65534) < 0 || setuid(65534) < 0) {
			perror("fuzzinit: dropping privileges");
			_exit(125);
		}
		execv(argv[2], argv + 2);
		perror(argv[2]);
		_exit(125);
	}

	double start = now();
	int st = 0, stage = 0;
	for (;;) {
		double left = (stage == 0 ? limit : limit + GRACE) - (now() - start);
		if (left <= 0) {
			if (stage++ == 0) {
				printf("fuzz: %.0f s are up: SIGINT to %s\n", limit,
				    argv[2]);
				fflush(stdout);
				kill(pid, SIGINT);
			} else {
				printf("fuzz: %s did not stop: SIGKILL\n", argv[2]);
				fflush(stdout);
				kill(-1, SIGKILL);
			}
			continue;
		}
		alarm((unsigned)left + 1);
		int s;
		pid_t w = wait(&s);
		if (w == pid) {
			st = s;
			break;
		}
		if (w < 0 && errno == ECHILD)
			break;
	}
	alarm(0);
	reap_all();
	printf("fuzz: ran for %.0f s\n", now() - start);
	run(rm);
	long after = memfree_kb();
	printf("fuzz: MemFree before %ld kB after %ld kB\n", before, after);
	if (WIFSIGNALED(st)) {
		printf("fuzz: %s killed by signal %d\n", argv[2], WTERMSIG(st));
		return 128 + WTERMSIG(st);
	}
	printf("fuzz: %s exited with status %d\n", argv[2], WEXITSTATUS(st));
	return WEXITSTATUS(st);
}

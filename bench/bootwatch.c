/*
 * bootwatch: boot-to-init timing.
 *
 *   bootwatch [-n runs] [-t seconds] MARKER command [args...]
 *
 * Runs the command `runs` times with its standard output on a pipe and
 * its standard input on /dev/null. For each run, the time from just
 * before the child's execve to the first output line containing MARKER,
 * and to the command's exit (its output closed and the child reaped).
 * Prints the medians in milliseconds:
 *
 *   first-line MS exit MS
 *
 * and each run's figures on standard error. A run that does not print the
 * marker, or does not finish within the time limit (default 30 s), has
 * its process group killed and makes bootwatch fail (status 1).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#define MAXRUNS 51

static double
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/*
 * One run. The child writes its own clock reading into `start` just
 * before execve, so the fork is not counted. Returns 0 or -1.
 */
static int
one_run(const char *marker, char **argv, double limit_ms,
    volatile double *start, double *first, double *done)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0) {
		perror("bootwatch: pipe");
		return -1;
	}
	*start = 0;
	pid_t pid = fork();
	if (pid < 0) {
		perror("bootwatch: fork");
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		int null = open("/dev/null", O_RDONLY);
		if (null < 0 || dup2(null, 0) < 0 || dup2(p[1], 1) < 0)
			_exit(126);
		*start = now_ms();
		execvp(argv[0], argv);
		fprintf(stderr, "bootwatch: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	close(p[1]);

	double forked = now_ms();
	char line[4096];
	size_t used = 0;
	int found = 0, eof = 0, rc = 0;
	*first = -1;
	while (!eof) {
		double left = limit_ms - (now_ms() - forked);
		if (left <= 0) {
			fprintf(stderr, "bootwatch: %s: no end after %.0f ms: killed\n",
			    argv[0], limit_ms);
			rc = -1;
			break;
		}
		struct pollfd pfd = { .fd = p[0], .events = POLLIN };
		int n = poll(&pfd, 1, (int)left + 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			continue;
		char buf[4096];
		ssize_t got = read(p[0], buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			eof = 1;
			break;
		}
		double t = now_ms();
		for (ssize_t i = 0; i < got; i++) {
			if (!found && used < sizeof(line) - 1)
				line[used++] = buf[i];
			if (buf[i] != '\n')
				continue;
			line[used] = '\0';
			if (!found && strstr(line, marker)) {
				found = 1;
				*first = t;
			}
			used = 0;
		}
	}
	close(p[0]);
	if (rc < 0)
		kill(-pid, SIGKILL);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	*done = now_ms();
	/* Anything the command left behind in its group goes too. */
	kill(-pid, SIGKILL);
	if (rc < 0)
		return -1;
	if (!found) {
		fprintf(stderr, "bootwatch: %s: never printed \"%s\"\n", argv[0],
		    marker);
		return -1;
	}
	if (*start == 0)
		*start = forked;
	*first -= *start;
	*done -= *start;
	return 0;
}

int
main(int argc, char **argv)
{
	int runs = 5, opt;
	double limit_s = 30;
	while ((opt = getopt(argc, argv, "+n:t:")) != -1) {
		switch (opt) {
		case 'n':
			runs = atoi(optarg);
			break;
		case 't':
			limit_s = atof(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind < 2 || runs < 1 || runs > MAXRUNS || limit_s <= 0) {
usage:
		fprintf(stderr, "usage: bootwatch [-n runs] [-t seconds] MARKER "
		    "command [args...]\n");
		return 2;
	}
	const char *marker = argv[optind];
	char **cmd = argv + optind + 1;

	volatile double *start = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (start == MAP_FAILED) {
		perror("bootwatch: mmap");
		return 1;
	}
	double first[MAXRUNS], done[MAXRUNS];
	for (int r = 0; r < runs; r++) {
		if (one_run(marker, cmd, limit_s * 1e3, start, &first[r],
		    &done[r]) < 0)
			return 1;
		fprintf(stderr, "bootwatch: %s: run %d: first line %.2f ms, "
		    "exit %.2f ms\n", cmd[0], r + 1, first[r], done[r]);
	}
	qsort(first, (size_t)runs, sizeof(double), cmp);
	qsort(done, (size_t)runs, sizeof(double), cmp);
	printf("first-line %.2f exit %.2f\n", first[runs / 2], done[runs / 2]);
	return 0;
}

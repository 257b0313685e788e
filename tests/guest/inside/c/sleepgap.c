/*
 * A sleeper stays responsive under a fork bomb.  Root sleeps 20 ms at a
 * time and records how late each wake-up is, while a child that became
 * nobody (uid and gid 65534) with RLIMIT_NPROC NPROC runs a fork bomb
 * (every process forks forever; once the limit is met, fork spins on
 * EAGAIN).  After SECONDS the bomb is killed and the worst lateness is
 * printed; the program fails if it reached BOUND_MS, a generous bound
 * (a round-robin scheduler that queues the sleeper behind every bomb
 * process for a full tick gives seconds).  Inside vkernel only: a
 * native figure is the host's and says nothing about vkernel.
 *
 * Usage: sleepgap [seconds [nproc]]; prints the figures and ok or FAIL.
 */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SLEEP_NS	20000000LL	/* each sleep asks for 20 ms */
#define BOUND_MS	1000		/* worst lateness allowed (main: 2.6 s) */

static int64_t
now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Processes of group pgid that are not zombies, from /proc: orphaned
 * zombies wait for init, which may not be waiting, and still answer kill.
 */
static int
alive_in_group(pid_t pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;
	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		char path[300], buf[512], *p;
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		FILE *f = fopen(path, "r");
		if (f == NULL)
			continue;
		size_t len = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[len] = '\0';
		char state;
		int ppid, pg;
		/* pid (comm) state ppid pgrp ...; comm may hold anything. */
		if ((p = strrchr(buf, ')')) != NULL &&
		    sscanf(p + 1, " %c %d %d", &state, &ppid, &pg) == 3 &&
		    pg == pgid && state != 'Z')
			n++;
	}
	closedir(d);
	return n;
}

/* The bomb: as nobody, with RLIMIT_NPROC nproc, forks forever. */
static void
bomb(rlim_t nproc)
{
	struct rlimit rl = { nproc, nproc };
	if (setpgid(0, 0) < 0 || setrlimit(RLIMIT_NPROC, &rl) < 0 ||
	    setgid(65534) < 0 || setuid(65534) < 0)
		_exit(1);
	for (;;)
		(void)fork();
}

int
main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 4;
	rlim_t nproc = argc > 2 ? (rlim_t)atoi(argv[2]) : 256;

	setvbuf(stdout, NULL, _IOLBF, 0);
	pid_t boss = fork();
	if (boss < 0) {
		perror("fork");
		return 1;
	}
	if (boss == 0)
		bomb(nproc);
	setpgid(boss, boss);	/* also done by the child: no race on kill */

	int64_t start = now_ns(), end = start + seconds * 1000000000LL;
	int64_t worst = 0, t = start;
	long wakeups = 0;
	while (t < end) {
		struct timespec req = { 0, SLEEP_NS };
		nanosleep(&req, NULL);
		int64_t woke = now_ns();
		if (woke - t - SLEEP_NS > worst)
			worst = woke - t - SLEEP_NS;
		t = woke;
		wakeups++;
	}

	/*
	 * Kill the bomb until none of it runs (a child forked as the signal
	 * came may have missed it), reaping what is ours as we go.
	 */
	int64_t killed = now_ns(), give_up = killed + 30 * 1000000000LL;
	while (kill(-boss, SIGKILL) == 0 && alive_in_group(boss) != 0 &&
	    now_ns() < give_up) {
		struct timespec req = { 0, 10000000 };
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		nanosleep(&req, NULL);
	}
	waitpid(boss, NULL, 0);

	printf("sleeper: %ld wake-ups in %d s, worst %lld ms late; "
	    "bomb gone in %lld ms\n", wakeups, seconds,
	    (long long)(worst / 1000000), (long long)((now_ns() - killed) / 1000000));
	if (worst >= BOUND_MS * 1000000LL) {
		printf("FAIL sleeper late by %d ms or more under a fork bomb\n",
		    BOUND_MS);
		return 1;
	}
	printf("ok   sleeper on time under a fork bomb\n");
	return 0;
}

/*
 * The timeouts of select and ppoll: select writes back the time left
 * (glibc shows it; musl's wrapper keeps its own copy), ppoll waits for
 * its timeout, returns at once for 0, and checks the timespec.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "report.h"

static long
ms_since(struct timespec a)
{
	struct timespec b;
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
}

int
main(void)
{
	char buf[16];
	setvbuf(stdout, NULL, _IONBF, 0);
	int p[2];
	pipe(p);
	write(p[1], "x", 1);
	fd_set rs;
	FD_ZERO(&rs);
	FD_SET(p[0], &rs);
	struct timeval tv = { 5, 0 };
	report("select, ready", select(p[0] + 1, &rs, NULL, NULL, &tv));
	printf("select left: %d s, some us: %d\n", (int)tv.tv_sec, tv.tv_usec > 0);
	read(p[0], buf, 1);
	FD_SET(p[0], &rs);
	tv.tv_sec = 0;
	tv.tv_usec = 100000;
	report("select, timeout", select(p[0] + 1, &rs, NULL, NULL, &tv));
	printf("select left: %d %d\n", (int)tv.tv_sec, (int)tv.tv_usec);

	/* The raw calls, as every libc sees them. */
	tv.tv_sec = 0;
	tv.tv_usec = 100000;
	FD_SET(p[0], &rs);
	report("raw select, timeout", syscall(SYS_select, p[0] + 1, &rs, NULL, NULL, &tv));
	printf("raw select left: %d %d\n", (int)tv.tv_sec, (int)tv.tv_usec);
	write(p[1], "x", 1);
	tv.tv_sec = 5;
	tv.tv_usec = 0;
	FD_SET(p[0], &rs);
	report("raw select, ready", syscall(SYS_select, p[0] + 1, &rs, NULL, NULL, &tv));
	printf("raw select left: %d s, some us: %d\n", (int)tv.tv_sec, tv.tv_usec > 0);
	struct pollfd rpf = { p[0], POLLIN, 0 };
	struct timespec rts = { 5, 0 };
	report("raw ppoll, ready", syscall(SYS_ppoll, &rpf, 1, &rts, NULL, 8));
	printf("raw ppoll left: %d s, some ns: %d\n", (int)rts.tv_sec, rts.tv_nsec > 0);
	read(p[0], buf, 1);
	rts.tv_sec = 0;
	rts.tv_nsec = 50000000;
	report("raw ppoll, timeout", syscall(SYS_ppoll, &rpf, 1, &rts, NULL, 8));
	printf("raw ppoll left: %d %ld\n", (int)rts.tv_sec, rts.tv_nsec);
	report("raw ppoll, sigsetsize 4", syscall(SYS_ppoll, &rpf, 1, &rts, &rts, 4));
	sigset_t mask;
	sigemptyset(&mask);
	rts.tv_nsec = 1000000;
	report("ppoll with a mask", ppoll(&rpf, 1, &rts, &mask));

	struct pollfd pf = { p[0], POLLIN, 0 };
	struct timespec ts = { 0, 100000000 }, t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	report("ppoll 100 ms", ppoll(&pf, 1, &ts, NULL));
	long ms = ms_since(t0);
	printf("ppoll waited 100 ms..2 s: %d\n", ms >= 100 && ms < 2000);
	ts.tv_sec = 0; ts.tv_nsec = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	report("ppoll 0", ppoll(&pf, 1, &ts, NULL));
	printf("ppoll 0 returned at once: %d\n", ms_since(t0) < 50);
	ts.tv_sec = 0; ts.tv_nsec = 1000000000;
	report("ppoll bad timespec", ppoll(&pf, 1, &ts, NULL));

	return 0;
}

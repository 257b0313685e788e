/*
 * SO_LINGER with a time on a TCP socket over the loopback, against
 * Linux: close waits until what was written is acknowledged, the linger
 * time runs out, or (l_linger 0) resets the connection; without it,
 * close returns at once.  A reader that does not read keeps its window
 * shut, so the writer's data stays unsent; the reader still receives
 * every byte and the end once it reads, since a lingering close that
 * timed out leaves the connection to end as any closed one.  Times are
 * bounded loosely and printed as yes/no.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "inetaddr.h"
#include "report.h"

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A connected pair over 127.0.0.1: *w the writer, *r the reader. */
static int
tcp_pair(int *w, int *r)
{
	struct sockaddr_storage ss;
	socklen_t len = mkaddr(&ss, AF_INET, 0, 0);
	int l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&ss, len) < 0 || listen(l, 1) < 0)
		return -1;
	getsockname(l, (struct sockaddr *)&ss, &len);
	*w = socket(AF_INET, SOCK_STREAM, 0);
	if (*w < 0 || connect(*w, (struct sockaddr *)&ss, len) < 0)
		return -1;
	*r = accept(l, NULL, NULL);
	close(l);
	return *r < 0 ? -1 : 0;
}

/* Writes without blocking until the peer's window and the send buffer
 * are full; returns the bytes written. */
static long
fill(int w)
{
	static char buf[65536];
	long total = 0;
	fcntl(w, F_SETFL, O_NONBLOCK);
	for (;;) {
		ssize_t n = write(w, buf, sizeof(buf));
		if (n <= 0) {
			/* a full window may open a little: wait once more */
			struct pollfd p = { w, POLLOUT, 0 };
			if (poll(&p, 1, 100) == 1)
				continue;
			break;
		}
		total += n;
	}
	fcntl(w, F_SETFL, 0);
	return total;
}

/* Reads r to its end; returns the bytes, or -1 with errno. */
static long
drain(int r)
{
	static char buf[65536];
	long total = 0;
	for (;;) {
		ssize_t n = read(r, buf, sizeof(buf));
		if (n < 0)
			return -1;
		if (n == 0)
			return total;
		total += n;
	}
}

static void
set_linger(int s, int on, int secs)
{
	struct linger lg = { on, secs };
	report("SO_LINGER", setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
}

/* The reader never reads before the close: it waits out the linger time. */
static void
linger_timeout(void)
{
	int w, r;
	printf("linger 1 s, reader asleep\n");
	if (tcp_pair(&w, &r) < 0) {
		report("pair", -1);
		return;
	}
	long sent = fill(w);
	printf("filled: %d\n", sent > 0);
	set_linger(w, 1, 1);
	double t0 = now();
	report("close", close(w));
	double took = now() - t0;
	printf("close waited the linger time: %s\n",
	    took >= 0.8 && took < 5 ? "yes" : "no");
	long got = drain(r);
	printf("reader got every byte and the end: %s\n",
	    got == sent ? "yes" : "no");
	close(r);
}

/* The reader reads after 300 ms: close returns once all is acknowledged. */
static void
linger_drained(void)
{
	int w, r;
	printf("linger 10 s, reader reads after 300 ms\n");
	if (tcp_pair(&w, &r) < 0) {
		report("pair", -1);
		return;
	}
	long sent = fill(w);
	int sync[2];
	if (pipe(sync) < 0) {
		report("pipe", -1);
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		/* the parent's close must be the last of w */
		close(w);
		close(sync[0]);
		close(sync[1]);
		usleep(300000);
		long got = drain(r);
		printf("reader got every byte and the end: %s\n",
		    got == sent ? "yes" : "no");
		fflush(stdout);
		_exit(0);
	}
	close(r);
	close(sync[1]);
	char c;
	read(sync[0], &c, 1);	/* the end: the child has closed its copies */
	close(sync[0]);
	set_linger(w, 1, 10);
	double t0 = now();
	int rc = close(w);
	double took = now() - t0;
	waitpid(pid, NULL, 0);	/* its line first, whichever ends first */
	report("close", rc);
	printf("close waited for the reader, not the linger time: %s\n",
	    took >= 0.2 && took < 8 ? "yes" : "no");
}

/* No linger: close returns at once and the data still arrives. */
static void
no_linger(void)
{
	int w, r;
	printf("no linger, reader asleep\n");
	if (tcp_pair(&w, &r) < 0) {
		report("pair", -1);
		return;
	}
	long sent = fill(w);
	set_linger(w, 0, 5);
	double t0 = now();
	report("close", close(w));
	printf("close at once: %s\n", now() - t0 < 0.5 ? "yes" : "no");
	long got = drain(r);
	printf("reader got every byte and the end: %s\n",
	    got == sent ? "yes" : "no");
	close(r);
}

/* l_linger 0: a reset, whatever was unsent is lost. */
static void
linger_zero(void)
{
	int w, r;
	printf("linger 0\n");
	if (tcp_pair(&w, &r) < 0) {
		report("pair", -1);
		return;
	}
	fill(w);
	set_linger(w, 1, 0);
	double t0 = now();
	report("close", close(w));
	printf("close at once: %s\n", now() - t0 < 0.5 ? "yes" : "no");
	usleep(100000);
	long got = drain(r);
	report("reader's read after the reset", got < 0 ? -1 : 0);
	close(r);
}

/* A process's exit closes without lingering, as Linux's. */
static void
linger_exit(void)
{
	int w, r;
	printf("linger 10 s, the writer exits\n");
	if (tcp_pair(&w, &r) < 0) {
		report("pair", -1);
		return;
	}
	long sent = fill(w);
	set_linger(w, 1, 10);
	int sync[2];
	if (pipe(sync) < 0) {
		report("pipe", -1);
		return;
	}
	double t0 = now();
	pid_t pid = fork();
	if (pid == 0) {
		/* exits with the last copy of w, once the parent's is closed */
		char c;
		close(sync[1]);
		read(sync[0], &c, 1);
		_exit(0);
	}
	close(w);
	close(sync[0]);
	close(sync[1]);
	waitpid(pid, NULL, 0);
	printf("exit at once: %s\n", now() - t0 < 5 ? "yes" : "no");
	long got = drain(r);
	printf("reader got every byte and the end: %s\n",
	    got == sent ? "yes" : "no");
	close(r);
}

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	linger_timeout();
	linger_drained();
	no_linger();
	linger_zero();
	linger_exit();
	return 0;
}

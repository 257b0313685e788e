/*
 * TCP over the loopback, measured from inside one machine (a guest, or
 * the host natively): bulk throughput through one connection, and the
 * round trip of a one-byte request and its one-byte answer.
 *
 *   tcpbench [-6] [-m MB] [-r ROUNDS]
 *
 * prints "throughput MB/s" (the receiver's time from its first byte to
 * end of file) and "rtt median us" over ROUNDS round trips (TCP_NODELAY
 * on both ends).  Used by bench/inetbench.sh; it reuses nothing of the
 * test suite, so other network benchmarks may run it too.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int family = AF_INET;

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static socklen_t
loopback(struct sockaddr_storage *ss, int port)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return sizeof(*sin);
	}
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(port);
	sin6->sin6_addr = in6addr_loopback;
	return sizeof(*sin6);
}

/* A listener on an ephemeral port; *port set. */
static int
listener(int *port)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback(&ss, 0);
	int l = socket(family, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&ss, len) < 0 || listen(l, 4) < 0 ||
	    getsockname(l, (struct sockaddr *)&ss, &len) < 0) {
		perror("tcpbench: listen");
		exit(1);
	}
	*port = ntohs(family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port :
	    ((struct sockaddr_in6 *)&ss)->sin6_port);
	return l;
}

static int
connect_to(int port)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback(&ss, port);
	int c = socket(family, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&ss, len) < 0) {
		perror("tcpbench: connect");
		exit(1);
	}
	return c;
}

static void
nodelay(int fd)
{
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static double
throughput(long mb)
{
	static char buf[65536];
	int port, l = listener(&port);
	pid_t pid = fork();
	if (pid == 0) {
		int c = connect_to(port);
		for (long left = mb << 20; left > 0; ) {
			ssize_t n = write(c, buf, left < (long)sizeof(buf) ? left : sizeof(buf));
			if (n <= 0)
				_exit(1);
			left -= n;
		}
		close(c);
		_exit(0);
	}
	int a = accept(l, NULL, NULL);
	long total = 0;
	double t0 = 0;
	ssize_t n;
	while ((n = read(a, buf, sizeof(buf))) > 0) {
		if (total == 0)
			t0 = now();
		total += n;
	}
	double t = now() - t0;
	waitpid(pid, NULL, 0);
	close(a);
	close(l);
	if (total != mb << 20) {
		fprintf(stderr, "tcpbench: %ld bytes of %ld\n", total, mb << 20);
		exit(1);
	}
	return total / t / 1e6;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double
rtt(int rounds)
{
	char c = 'x';
	int port, l = listener(&port);
	pid_t pid = fork();
	if (pid == 0) {
		int s = connect_to(port);
		nodelay(s);
		while (read(s, &c, 1) == 1)
			if (write(s, &c, 1) != 1)
				break;
		_exit(0);
	}
	int a = accept(l, NULL, NULL);
	nodelay(a);
	double *t = calloc(rounds, sizeof(*t));
	for (int i = 0; i < rounds; i++) {
		double t0 = now();
		if (write(a, &c, 1) != 1 || read(a, &c, 1) != 1) {
			fprintf(stderr, "tcpbench: round trip %d failed\n", i);
			exit(1);
		}
		t[i] = now() - t0;
	}
	close(a);
	waitpid(pid, NULL, 0);
	close(l);
	qsort(t, rounds, sizeof(*t), cmp);
	double m = t[rounds / 2] * 1e6;
	free(t);
	return m;
}

int
main(int argc, char **argv)
{
	long mb = 256;
	int rounds = 2000, opt;
	while ((opt = getopt(argc, argv, "6m:r:")) != -1) {
		switch (opt) {
		case '6': family = AF_INET6; break;
		case 'm': mb = atol(optarg); break;
		case 'r': rounds = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: tcpbench [-6] [-m MB] [-r ROUNDS]\n");
			return 2;
		}
	}
	if (mb > 0)
		printf("throughput %.1f MB/s\n", throughput(mb));
	if (rounds > 0)
		printf("rtt median %.1f us\n", rtt(rounds));
	return 0;
}

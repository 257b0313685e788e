/*
 * udprr: UDP round trips for tests/system/net_udp.t; the same static
 * binary runs on the host (the echo, in the test's namespace) and inside
 * (the client).
 *
 *   udprr echo PORT SECS     echo each datagram to its sender; exit after
 *                            SECS with nothing received
 *   udprr rr ADDR PORT N     N round trips of a datagram of 1 byte, each
 *                            numbered; a reply not back within 1 s is a
 *                            loss, the round trip then sent again
 *
 * rr prints "rr N lost L stale S mean M median D max X" (times in us):
 * lost counts the 1 s waits that ended with nothing, stale the replies
 * to a round trip already given up; exits 1 if a reply is wrong.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static double
now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int
echo(int port, int secs)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
	    .sin_port = htons((unsigned short)port) };
	struct timeval tv = { secs, 0 };
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	char buf[2048];

	if (s < 0 || bind(s, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		perror("udprr echo");
		return 1;
	}
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	printf("listening\n");
	fflush(stdout);
	for (;;) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(s, buf, sizeof(buf), 0,
		    (struct sockaddr *)&from, &fl);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n > 0)
			sendto(s, buf, (size_t)n, 0, (struct sockaddr *)&from, fl);
	}
}

static int
rr(const char *addr, int port, int n)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
	    .sin_port = htons((unsigned short)port) };
	struct timeval tv = { 1, 0 };
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	double *t = malloc((size_t)n * sizeof(*t));
	int lost = 0, stale = 0;

	if (t == NULL || s < 0 || inet_pton(AF_INET, addr, &sin.sin_addr) != 1 ||
	    connect(s, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		perror("udprr rr");
		return 1;
	}
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	/* Round trip 0, untimed: ARP, and the echo's first wake-up. */
	for (int i = 0; i <= n; i++) {
		unsigned char c = (unsigned char)i, r;
		double t0 = now_us();
		for (;;) {
			if (send(s, &c, 1, 0) != 1) {
				perror("udprr send");
				return 1;
			}
			ssize_t k;
			while ((k = recv(s, &r, 1, 0)) == 1 && r != c)
				stale++;
			if (k == 1)
				break;
			if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
				perror("udprr recv");
				return 1;
			}
			lost++;
			if (lost > 10) {
				printf("rr %d lost %d: giving up\n", i, lost);
				return 1;
			}
		}
		if (i > 0)
			t[i - 1] = now_us() - t0;
	}
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += t[i];
	qsort(t, (size_t)n, sizeof(*t), cmp_double);
	printf("rr %d lost %d stale %d mean %.1f median %.1f max %.1f\n", n,
	    lost, stale, sum / n, t[n / 2], t[n - 1]);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "echo") == 0)
		return echo(atoi(argv[2]), atoi(argv[3]));
	if (argc == 5 && strcmp(argv[1], "rr") == 0 && atoi(argv[4]) > 0)
		return rr(argv[2], atoi(argv[3]), atoi(argv[4]));
	fprintf(stderr, "usage: udprr echo PORT SECS | rr ADDR PORT N\n");
	return 2;
}

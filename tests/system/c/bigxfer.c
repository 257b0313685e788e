/*
 * bigxfer: large transfers through one write and one datagram each way
 * (tests/system/net_slirp.t), built static, so the host side runs the
 * same binary.
 *
 *   bigxfer serve PORT          host: echo one TCP connection (read to
 *                               EOF, then all back in one write) and one
 *                               UDP datagram (back as one datagram)
 *   bigxfer tcp ADDR PORT N     guest: N bytes in one write, then the
 *                               echo read back and compared
 *   bigxfer udp ADDR PORT N     guest: one datagram of N bytes, its echo
 *                               compared (sent again after 1 s of silence)
 *
 * The clients print "tcp N ok" / "udp N ok", or "FAIL ..." with why.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAXN	(1 << 20)

static unsigned char out[MAXN], in[MAXN];

static void
fill(size_t n)
{
	unsigned x = 12345;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245 + 12345;
		out[i] = (unsigned char)(x >> 16);
	}
}

static struct sockaddr_in
sin_of(const char *host, const char *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
	    .sin_port = htons((unsigned short)atoi(port)) };
	if (host != NULL)
		inet_pton(AF_INET, host, &sin.sin_addr);
	else
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sin;
}

static int
fail(const char *what)
{
	printf("FAIL %s: %s\n", what, strerror(errno));
	return 1;
}

static int
serve(const char *port)
{
	struct sockaddr_in sin = sin_of(NULL, port);
	int one = 1;
	int l = socket(AF_INET, SOCK_STREAM, 0), u = socket(AF_INET, SOCK_DGRAM, 0);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l, (struct sockaddr *)&sin, sizeof(sin)) < 0 || listen(l, 1) < 0 ||
	    bind(u, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		return fail("serve: bind");
	printf("serving\n");
	fflush(stdout);
	if (fork() == 0) {
		alarm(60);	/* the test ends it sooner */
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		for (;;) {
			ssize_t n = recvfrom(u, in, sizeof(in), 0, (struct sockaddr *)&from, &fl);
			if (n >= 0)
				sendto(u, in, (size_t)n, 0, (struct sockaddr *)&from, fl);
		}
	}
	int s = accept(l, NULL, NULL);
	size_t got = 0;
	ssize_t n;
	while ((n = read(s, in + got, sizeof(in) - got)) > 0)
		got += (size_t)n;
	if (write(s, in, got) != (ssize_t)got)
		return fail("serve: write");
	close(s);
	return 0;
}

static int
tcp(const char *host, const char *port, size_t n)
{
	struct sockaddr_in sin = sin_of(host, port);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(s, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		return fail("tcp: connect");
	if (write(s, out, n) != (ssize_t)n)
		return fail("tcp: one write");
	shutdown(s, SHUT_WR);
	size_t got = 0;
	ssize_t r;
	while (got < sizeof(in) && (r = read(s, in + got, sizeof(in) - got)) > 0)
		got += (size_t)r;
	if (got != n || memcmp(in, out, n) != 0) {
		printf("FAIL tcp: %zu bytes back of %zu, %s\n", got, n,
		    got == n ? "different" : "short");
		return 1;
	}
	printf("tcp %zu ok\n", n);
	return 0;
}

static int
udp(const char *host, const char *port, size_t n)
{
	struct sockaddr_in sin = sin_of(host, port);
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	if (connect(s, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		return fail("udp: connect");
	for (int tries = 0; tries < 10; tries++) {
		if (send(s, out, n, 0) != (ssize_t)n)
			return fail("udp: send");
		struct pollfd p = { s, POLLIN, 0 };
		if (poll(&p, 1, 1000) != 1)
			continue;
		ssize_t r = recv(s, in, sizeof(in), 0);
		if (r != (ssize_t)n || memcmp(in, out, n) != 0) {
			printf("FAIL udp: a datagram of %zd bytes back for %zu, %s\n", r, n,
			    r == (ssize_t)n ? "different" : "not the size");
			return 1;
		}
		printf("udp %zu ok\n", n);
		return 0;
	}
	printf("FAIL udp: no echo of %zu bytes in 10 s\n", n);
	return 1;
}

int
main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "serve") == 0)
		return serve(argv[2]);
	if (argc == 5) {
		size_t n = (size_t)atol(argv[4]);
		if (n == 0 || n > MAXN)
			return 2;
		fill(n);
		if (strcmp(argv[1], "tcp") == 0)
			return tcp(argv[2], argv[3], n);
		if (strcmp(argv[1], "udp") == 0)
			return udp(argv[2], argv[3], n);
	}
	fprintf(stderr, "usage: see tests/system/c/bigxfer.c\n");
	return 2;
}

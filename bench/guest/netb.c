/*
 * netb: the network benchmark's two ends (bench/netbench.sh), the same
 * program natively, inside vkernel and on the host side of a tap or a
 * slirp forward.  Each client prints one line "RESULT name value unit".
 *
 *   netb sink PORT                 accept one TCP connection, read to EOF
 *   netb send ADDR PORT SECONDS    send 64 KiB writes for SECONDS: MB/s
 *   netb source PORT SECONDS       accept one, send for SECONDS
 *   netb recv ADDR PORT            connect, read to EOF: MB/s
 *   netb echo PORT                 TCP and UDP echo of 1-byte messages
 *   netb tcprr ADDR PORT N         N 1-byte TCP round trips: us each
 *   netb udprr ADDR PORT N         N 1-byte UDP round trips: us each
 *   netb unixpp N                  N AF_UNIX stream round trips: us each
 *
 * The round trips also print "STATS name median M us max X us".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char buf[65536];

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
die(const char *what)
{
	fprintf(stderr, "netb: %s: %s\n", what, strerror(errno));
	exit(1);
}

static struct sockaddr_in
addr(const char *host, const char *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
	    .sin_port = htons((unsigned short)atoi(port)) };
	if (host == NULL)
		sin.sin_addr.s_addr = htonl(INADDR_ANY);
	else if (inet_pton(AF_INET, host, &sin.sin_addr) != 1) {
		fprintf(stderr, "netb: %s: not an address\n", host);
		exit(2);
	}
	return sin;
}

static int
listen_on(const char *port, int type)
{
	struct sockaddr_in sin = addr(NULL, port);
	int one = 1, s = socket(AF_INET, type, 0);
	if (s < 0)
		die("socket");
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		die("bind");
	if (type == SOCK_STREAM && listen(s, 8) < 0)
		die("listen");
	return s;
}

static int
accept_one(const char *port)
{
	int l = listen_on(port, SOCK_STREAM);
	int s = accept(l, NULL, NULL);
	if (s < 0)
		die("accept");
	close(l);
	return s;
}

static int
connect_to(const char *host, const char *port, int type)
{
	struct sockaddr_in sin = addr(host, port);
	struct timeval tv = { 1, 0 }, none = { 0, 0 };
	int s = -1;
	/*
	 * The server may still be starting (a kernel booting on a loaded
	 * host): try for 30 s, 1 s a try.
	 */
	for (double t0 = now(); now() - t0 < 30; ) {
		s = socket(AF_INET, type, 0);
		if (s < 0)
			die("socket");
		setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (connect(s, (struct sockaddr *)&sin, sizeof(sin)) == 0) {
			setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &none, sizeof(none));
			break;
		}
		close(s);
		s = -1;
		usleep(100000);
	}
	if (s < 0)
		die("connect");
	int one = 1;
	if (type == SOCK_STREAM)
		setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return s;
}

/*
 * Sends for SECS and prints the rate.  Returns false, having printed
 * nothing, when the peer resets the connection within the first second:
 * a forward (slirp's) accepts the connection before the server behind
 * it listens, then resets it; the caller connects again.
 */
static bool
send_for(int s, double secs, const char *name)
{
	double t0 = now(), t;
	long long total = 0;
	while ((t = now()) - t0 < secs) {
		ssize_t n = write(s, buf, sizeof(buf));
		if (n < 0 && (errno == ECONNRESET || errno == EPIPE) && t - t0 < 1)
			return false;
		if (n < 0)
			die("write");
		total += n;
	}
	shutdown(s, SHUT_WR);
	/* Wait for the reader to close: the bytes are then all across. */
	while (read(s, buf, sizeof(buf)) > 0)
		;
	t = now() - t0;
	printf("RESULT %s %.1f MB/s\n", name, total / t / 1e6);
	return true;
}

static void
read_all(int s, const char *name)
{
	double t0 = 0;
	long long total = 0;
	ssize_t n;
	while ((n = read(s, buf, sizeof(buf))) > 0) {
		if (total == 0)
			t0 = now();
		total += n;
	}
	if (name != NULL && total > 0)
		printf("RESULT %s %.1f MB/s\n", name, total / (now() - t0) / 1e6);
	close(s);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/*
 * N 1-byte round trips on s, after one untimed: a UDP socket's first
 * datagram waits for ARP and wakes the echo for the first time, where a
 * TCP connect has done both before the clock starts.  Prints the mean
 * (RESULT), then the median and the slowest (STATS): one stall of
 * 150 ms moves the mean of 2,000 round trips of 30 us by 75 us, and
 * only the median tells such a stall from a slow path.
 */
static void
rr(int s, int n, const char *name, bool udp)
{
	char c = 'x';
	double *t = malloc((size_t)(n > 0 ? n : 1) * sizeof(*t));
	if (t == NULL)
		die("malloc");
	if (write(s, &c, 1) != 1 || read(s, &c, 1) != 1)
		die(udp ? "udp round trip" : "tcp round trip");
	double t0 = now(), prev = t0;
	for (int i = 0; i < n; i++) {
		if (write(s, &c, 1) != 1 || read(s, &c, 1) != 1)
			die(udp ? "udp round trip" : "tcp round trip");
		double at = now();
		t[i] = at - prev;
		prev = at;
	}
	printf("RESULT %s %.1f us\n", name, (prev - t0) / n * 1e6);
	qsort(t, (size_t)n, sizeof(*t), cmp_double);
	if (n > 0)
		printf("STATS %s median %.1f us max %.1f us\n", name,
		    t[n / 2] * 1e6, t[n - 1] * 1e6);
	free(t);
}

static void
echo(const char *port)
{
	int u = listen_on(port, SOCK_DGRAM);
	/* The UDP half dies with the TCP half (the script kills the group). */
	if (fork() == 0) {
		for (;;) {
			struct sockaddr_in from;
			socklen_t fl = sizeof(from);
			ssize_t n = recvfrom(u, buf, sizeof(buf), 0,
			    (struct sockaddr *)&from, &fl);
			if (n > 0)
				sendto(u, buf, (size_t)n, 0, (struct sockaddr *)&from, fl);
		}
	}
	int l = listen_on(port, SOCK_STREAM);
	for (;;) {
		int s = accept(l, NULL, NULL);
		if (s < 0)
			continue;
		int one = 1;
		setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		ssize_t n;
		while ((n = read(s, buf, sizeof(buf))) > 0)
			if (write(s, buf, (size_t)n) != n)
				break;
		close(s);
	}
}

static void
unixpp(int n)
{
	int sv[2];
	char c = 'x';
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		die("socketpair");
	pid_t pid = fork();
	if (pid == 0) {
		close(sv[0]);
		while (read(sv[1], &c, 1) == 1 && write(sv[1], &c, 1) == 1)
			;
		_exit(0);
	}
	close(sv[1]);
	rr(sv[0], n, "unix-stream-round-trip", false);
	close(sv[0]);
	waitpid(pid, NULL, 0);
}

int
main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	memset(buf, 'v', sizeof(buf));
	if (argc == 3 && strcmp(argv[1], "sink") == 0)
		read_all(accept_one(argv[2]), "tcp-sink");
	else if (argc == 5 && strcmp(argv[1], "send") == 0) {
		for (double t0 = now(); ; usleep(100000)) {
			int s = connect_to(argv[2], argv[3], SOCK_STREAM);
			if (send_for(s, atof(argv[4]), "tcp-send"))
				break;
			if (now() - t0 > 10)
				die("send: reset at every try");
			close(s);
		}
	} else if (argc == 4 && strcmp(argv[1], "source") == 0) {
		if (!send_for(accept_one(argv[2]), atof(argv[3]), "tcp-source"))
			die("source: reset");
	}
	else if (argc == 4 && strcmp(argv[1], "recv") == 0)
		read_all(connect_to(argv[2], argv[3], SOCK_STREAM), "tcp-recv");
	else if (argc == 3 && strcmp(argv[1], "echo") == 0)
		echo(argv[2]);
	else if (argc == 5 && strcmp(argv[1], "tcprr") == 0)
		rr(connect_to(argv[2], argv[3], SOCK_STREAM), atoi(argv[4]),
		    "tcp-round-trip", false);
	else if (argc == 5 && strcmp(argv[1], "udprr") == 0)
		rr(connect_to(argv[2], argv[3], SOCK_DGRAM), atoi(argv[4]),
		    "udp-round-trip", true);
	else if (argc == 3 && strcmp(argv[1], "unixpp") == 0)
		unixpp(atoi(argv[2]));
	else {
		fprintf(stderr, "usage: see bench/guest/netb.c\n");
		return 2;
	}
	return 0;
}

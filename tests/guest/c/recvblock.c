/*
 * A reader blocked on an empty socket holds up no other reader: while a
 * thread waits in recv, a MSG_DONTWAIT recv on the same socket says
 * EAGAIN at once, and the datagram or bytes sent next go to exactly one
 * of them.  AF_UNIX datagram and stream socketpairs, UDP and TCP on
 * the loopback.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int rfd;
static char got[16];

static void *
blocked_reader(void *arg)
{
	(void)arg;
	ssize_t n = recv(rfd, got, sizeof(got) - 1, 0);
	if (n >= 0)
		got[n] = '\0';
	else
		snprintf(got, sizeof(got), "errno %d", errno);
	return NULL;
}

static double
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* One case: reader r, writer w (sending with send, or to 'to'). */
static void
run(const char *name, int r, int w, const struct sockaddr_in *to)
{
	pthread_t t;
	char buf[16];

	rfd = r;
	got[0] = '\0';
	pthread_create(&t, NULL, blocked_reader, NULL);
	usleep(100000);	/* let it block */
	double t0 = now_ms();
	ssize_t n = recv(r, buf, sizeof(buf), MSG_DONTWAIT);
	double waited = now_ms() - t0;
	printf("%s: non-blocking recv beside a blocked one: %zd %s, %s\n", name, n,
	    n < 0 ? strerror(errno) : "", waited < 1000 ? "at once" : "held up");
	if (to != NULL)
		n = sendto(w, "ping", 4, 0, (const struct sockaddr *)to, sizeof(*to));
	else
		n = send(w, "ping", 4, 0);
	pthread_join(t, NULL);
	printf("%s: sent %zd, the blocked reader got \"%s\"\n", name, n, got);
	n = recv(r, buf, sizeof(buf), MSG_DONTWAIT);
	printf("%s: left over: %zd %s\n", name, n, n < 0 ? strerror(errno) : "");
}

int
main(void)
{
	int sv[2];
	socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
	run("unix dgram", sv[0], sv[1], NULL);
	close(sv[0]);
	close(sv[1]);
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	run("unix stream", sv[0], sv[1], NULL);
	close(sv[0]);
	close(sv[1]);

	struct sockaddr_in a = { .sin_family = AF_INET,
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	if (bind(u, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    getsockname(u, (struct sockaddr *)&a, &len) != 0) {
		printf("udp: bind: %s\n", strerror(errno));
		return 1;
	}
	run("udp", u, s, &a);

	int l = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_port = 0;
	len = sizeof(a);
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(l, 1) != 0 ||
	    getsockname(l, (struct sockaddr *)&a, &len) != 0) {
		printf("tcp: listen: %s\n", strerror(errno));
		return 1;
	}
	int c = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(c, (struct sockaddr *)&a, sizeof(a)) != 0) {
		printf("tcp: connect: %s\n", strerror(errno));
		return 1;
	}
	run("tcp", accept(l, NULL, NULL), c, NULL);
	return 0;
}

/*
 * AF_UNIX data flow: shutdown both ways and what the peer sees, EPIPE
 * with SIGPIPE and MSG_NOSIGNAL, MSG_PEEK, MSG_WAITALL, MSG_DONTWAIT,
 * MSG_TRUNC on seqpacket, SO_RCVTIMEO, socket option errors, FIONREAD, readv/writev, poll
 * readiness (POLLIN, POLLOUT, POLLHUP, POLLRDHUP, POLLERR) and select,
 * a blocked reader woken by a writer, and a few MiB through a stream
 * to a reader process with a checksum.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

static volatile sig_atomic_t sigpipes;

static void
on_sigpipe(int sig)
{
	(void)sig;
	sigpipes++;
}

static void
show_poll(const char *what, int fd, short events)
{
	struct pollfd p = { fd, events, 0 };
	int r = poll(&p, 1, 0);
	printf("%s: %d", what, r);
	static const struct { short bit; const char *name; } names[] = {
		{ POLLIN, "IN" }, { POLLPRI, "PRI" }, { POLLOUT, "OUT" },
		{ POLLERR, "ERR" }, { POLLHUP, "HUP" }, { POLLNVAL, "NVAL" },
		{ POLLRDNORM, "RDNORM" }, { POLLRDBAND, "RDBAND" },
		{ POLLWRNORM, "WRNORM" }, { POLLWRBAND, "WRBAND" },
		{ POLLRDHUP, "RDHUP" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (p.revents & names[i].bit)
			printf(" %s", names[i].name);
	printf("\n");
}

#define ALL	(POLLIN | POLLOUT | POLLRDHUP | POLLPRI | POLLRDNORM | POLLWRNORM | POLLWRBAND)

static void
shutdowns(int type)
{
	int sv[2];
	char buf[16];
	printf("-- shutdown, type %d\n", type);
	socketpair(AF_UNIX, type, 0, sv);
	show_poll("fresh pair", sv[0], ALL);
	report("write", write(sv[0], "abc", 3));
	show_poll("peer with data", sv[1], ALL);
	report("shutdown SHUT_WR", shutdown(sv[0], SHUT_WR));
	show_poll("after SHUT_WR, own end", sv[0], ALL);
	show_poll("after SHUT_WR, peer", sv[1], ALL);
	report("peer reads the data", recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT));
	report("peer reads EOF", recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT));
	report("write after SHUT_WR (NOSIGNAL)", send(sv[0], "x", 1, MSG_NOSIGNAL));
	report("peer may still write", write(sv[1], "back", 4));
	report("and we read it", recv(sv[0], buf, sizeof(buf), MSG_DONTWAIT));
	report("shutdown SHUT_RD", shutdown(sv[0], SHUT_RD));
	show_poll("after both, own end", sv[0], ALL);
	show_poll("after both, peer", sv[1], ALL);
	report("read after SHUT_RD", recv(sv[0], buf, sizeof(buf), MSG_DONTWAIT));
	report("peer write after our SHUT_RD (NOSIGNAL)", send(sv[1], "x", 1, MSG_NOSIGNAL));
	close(sv[0]);
	close(sv[1]);

	/* The peer closes: EOF, POLLHUP, EPIPE and SIGPIPE. */
	socketpair(AF_UNIX, type, 0, sv);
	close(sv[1]);
	show_poll("peer closed", sv[0], ALL);
	report("read", recv(sv[0], buf, sizeof(buf), MSG_DONTWAIT));
	sigpipes = 0;
	report("write (SIGPIPE)", write(sv[0], "x", 1));
	printf("  SIGPIPEs %d\n", (int)sigpipes);
	report("send MSG_NOSIGNAL", send(sv[0], "x", 1, MSG_NOSIGNAL));
	printf("  SIGPIPEs %d\n", (int)sigpipes);
	report("sendto (SIGPIPE)", sendto(sv[0], "x", 1, 0, NULL, 0));
	printf("  SIGPIPEs %d\n", (int)sigpipes);
	close(sv[0]);

	/* Closing with unread data resets the peer. */
	socketpair(AF_UNIX, type, 0, sv);
	write(sv[0], "unread", 6);
	close(sv[1]);
	show_poll("peer closed with data unread", sv[0], ALL);
	int err = 0;
	socklen_t el = sizeof(err);
	getsockopt(sv[0], SOL_SOCKET, SO_ERROR, &err, &el);
	printf("SO_ERROR %s\n", err ? strerror(err) : "0");
	show_poll("after SO_ERROR", sv[0], ALL);
	close(sv[0]);
}

static void
flags(void)
{
	int sv[2];
	char buf[64];
	printf("-- flags\n");
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	write(sv[0], "hello ", 6);
	write(sv[0], "world", 5);
	int n = -1;
	ioctl(sv[1], FIONREAD, &n);
	printf("FIONREAD %d\n", n);
	memset(buf, 0, sizeof(buf));
	report("MSG_PEEK", recv(sv[1], buf, sizeof(buf), MSG_PEEK));
	printf("  \"%s\"\n", buf);
	memset(buf, 0, sizeof(buf));
	report("MSG_PEEK 3", recv(sv[1], buf, 3, MSG_PEEK));
	report("read", read(sv[1], buf, sizeof(buf)));
	report("MSG_DONTWAIT empty", recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT));
	struct iovec wv[3] = { { "ab", 2 }, { "", 0 }, { "cdef", 4 } };
	report("writev", writev(sv[0], wv, 3));
	char r1[3] = { 0 }, r2[8] = { 0 };
	struct iovec rv[2] = { { r1, 2 }, { r2, 7 } };
	report("readv", readv(sv[1], rv, 2));
	printf("  \"%s\" \"%s\"\n", r1, r2);

	/* MSG_WAITALL gathers the writes of a slower child. */
	pid_t c = fork();
	if (c == 0) {
		for (int i = 0; i < 4; i++) {
			usleep(20000);
			write(sv[0], "0123456789", 10);
		}
		_exit(0);
	}
	report("MSG_WAITALL 40", recv(sv[1], buf, 40, MSG_WAITALL));
	waitpid(c, NULL, 0);

	/* A blocked reader is woken by a writer. */
	c = fork();
	if (c == 0) {
		usleep(50000);
		write(sv[0], "late", 4);
		_exit(0);
	}
	report("blocking read", read(sv[1], buf, sizeof(buf)));
	waitpid(c, NULL, 0);

	/* SO_RCVTIMEO. */
	struct timeval tv = { 0, 100000 };	/* whole jiffies at any HZ */
	report("SO_RCVTIMEO", setsockopt(sv[1], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	memset(&tv, 0, sizeof(tv));
	socklen_t tl = sizeof(tv);
	getsockopt(sv[1], SOL_SOCKET, SO_RCVTIMEO, &tv, &tl);
	printf("  reads %ld.%06ld len %u\n", (long)tv.tv_sec, (long)tv.tv_usec, (unsigned)tl);
	report("read times out", read(sv[1], buf, sizeof(buf)));
	tv.tv_usec = 2000000;
	report("SO_RCVTIMEO bad usec", setsockopt(sv[1], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	report("SO_RCVTIMEO short", setsockopt(sv[1], SOL_SOCKET, SO_RCVTIMEO, &tv, 4));
	int v = 0;
	report("SO_SNDBUF short", setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &v, 2));
	report("SO_TYPE set", setsockopt(sv[1], SOL_SOCKET, SO_TYPE, &v, sizeof(v)));
	report("level 999", setsockopt(sv[1], 999, 1, &v, sizeof(v)));
	int snd = 0;
	socklen_t sl = sizeof(snd);
	v = 65536;
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
	getsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &snd, &sl);
	printf("SO_SNDBUF 65536 doubled: %d\n", snd == 131072);
	close(sv[0]);
	close(sv[1]);

	/* Seqpacket: MSG_TRUNC and boundaries. */
	socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv);
	send(sv[0], "packet-one", 10, 0);
	send(sv[0], "two", 3, 0);
	report("seqpacket short read", recv(sv[1], buf, 4, 0));
	report("seqpacket next", recv(sv[1], buf, sizeof(buf), 0));
	send(sv[0], "packet-three", 12, 0);
	report("seqpacket MSG_TRUNC", recv(sv[1], buf, 2, MSG_TRUNC));
	close(sv[0]);
	report("seqpacket EOF", recv(sv[1], buf, sizeof(buf), 0));
	close(sv[1]);

	/* A datagram receiver's queue fills: EAGAIN for the sender. */
	int a = socket(AF_UNIX, SOCK_DGRAM, 0), b = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	struct sockaddr_un { sa_family_t f; char p[108]; } sa = { AF_UNIX, "" };
	bind(a, (struct sockaddr *)&sa, sizeof(sa_family_t));
	socklen_t al = sizeof(sa);
	getsockname(a, (struct sockaddr *)&sa, &al);
	int sent = 0;
	while (sendto(b, "q", 1, 0, (struct sockaddr *)&sa, al) == 1 && sent < 100000)
		sent++;
	printf("dgram queue fills: %s\n", errno == EAGAIN && sent > 0 ? "EAGAIN" : strerror(errno));
	show_poll("full receiver", a, POLLIN);
	close(a);
	close(b);
}

static void
pollwait(void)
{
	int sv[2];
	char buf[8];
	printf("-- poll and select wait\n");
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	pid_t c = fork();
	if (c == 0) {
		usleep(30000);
		write(sv[0], "x", 1);
		usleep(30000);
		close(sv[0]);
		_exit(0);
	}
	close(sv[0]);
	struct pollfd p = { sv[1], POLLIN | POLLRDHUP, 0 };
	report("poll waits for data", poll(&p, 1, 5000));
	printf("  revents IN %d RDHUP %d\n", !!(p.revents & POLLIN), !!(p.revents & POLLRDHUP));
	read(sv[1], buf, 1);
	fd_set rs;
	FD_ZERO(&rs);
	FD_SET(sv[1], &rs);
	struct timeval tv = { 5, 0 };
	report("select waits for the close", select(sv[1] + 1, &rs, NULL, NULL, &tv));
	p.revents = 0;
	poll(&p, 1, 0);
	printf("  revents IN %d RDHUP %d HUP %d\n", !!(p.revents & POLLIN),
	    !!(p.revents & POLLRDHUP), !!(p.revents & POLLHUP));
	waitpid(c, NULL, 0);
	close(sv[1]);

	/* A listener polls readable when a connection waits. */
	int l = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un { sa_family_t f; char p[108]; } sa = { AF_UNIX, "" };
	bind(l, (struct sockaddr *)&sa, sizeof(sa_family_t));
	socklen_t al = sizeof(sa);
	getsockname(l, (struct sockaddr *)&sa, &al);
	listen(l, 4);
	show_poll("listener, nobody", l, ALL);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	show_poll("unconnected stream", s, ALL);
	connect(s, (struct sockaddr *)&sa, al);
	show_poll("listener, one waiting", l, ALL);
	show_poll("connected client", s, ALL);
	close(s);
	int a = accept(l, NULL, NULL);
	show_poll("accepted, client gone", a, ALL);
	close(a);
	close(l);
}

static void
bulk(void)
{
	int sv[2];
	enum { TOTAL = 4 << 20 };
	static unsigned char buf[100000];
	printf("-- bulk\n");
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	pid_t c = fork();
	if (c == 0) {
		close(sv[0]);
		uint32_t sum = 0;
		long got = 0, n;
		while ((n = read(sv[1], buf, sizeof(buf))) > 0) {
			for (long i = 0; i < n; i++)
				sum = sum * 31 + buf[i];
			got += n;
		}
		char msg[64];
		int len = snprintf(msg, sizeof(msg), "%ld %08x", got, sum);
		write(sv[1], msg, len);
		_exit(0);
	}
	close(sv[1]);
	uint32_t sum = 0, x = 1;
	long sent = 0;
	while (sent < TOTAL) {
		size_t chunk = sizeof(buf) - (size_t)(sent % 7777);
		if (chunk > (size_t)(TOTAL - sent))
			chunk = TOTAL - sent;
		for (size_t i = 0; i < chunk; i++) {
			x = x * 1103515245 + 12345;
			buf[i] = (unsigned char)(x >> 16);
			sum = sum * 31 + buf[i];
		}
		size_t off = 0;
		while (off < chunk) {
			ssize_t w = write(sv[0], buf + off, chunk - off);
			if (w <= 0) {
				perror("write");
				return;
			}
			off += (size_t)w;
		}
		sent += (long)chunk;
	}
	shutdown(sv[0], SHUT_WR);
	char msg[64] = { 0 };
	read(sv[0], msg, sizeof(msg) - 1);
	char want[64];
	snprintf(want, sizeof(want), "%ld %08x", sent, sum);
	printf("reader got %s: %s\n", strcmp(msg, want) == 0 ? "everything" : msg,
	    strcmp(msg, want) == 0 ? "checksum ok" : want);
	waitpid(c, NULL, 0);
	close(sv[0]);
}

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	signal(SIGPIPE, on_sigpipe);
	shutdowns(SOCK_STREAM);
	shutdowns(SOCK_SEQPACKET);
	shutdowns(SOCK_DGRAM);
	flags();
	pollwait();
	bulk();
	return 0;
}

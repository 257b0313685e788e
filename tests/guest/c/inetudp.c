/*
 * UDP over the loopback, IPv4 and IPv6, as Linux answers: bind and
 * getsockname, sendto/recvfrom with the sender's address, datagram
 * boundaries, MSG_PEEK, MSG_TRUNC (flag and real length), FIONREAD,
 * connected sockets (send, getpeername, AF_UNSPEC to dissolve), poll
 * bits, SO_RCVTIMEO, shutdown, EDESTADDRREQ, EMSGSIZE, sending to port 0,
 * a v4 datagram to a dual IPv6 socket, and hostile addresses.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "inetaddr.h"
#include "report.h"

static void
show_addr(const char *what, const struct sockaddr_storage *ss, socklen_t len,
    int port)
{
	char buf[64];
	if (ss->ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)ss)->sin_addr, buf,
		    sizeof(buf));
	else
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)ss)->sin6_addr, buf,
		    sizeof(buf));
	printf("%s: len %u family %d addr %s port %s\n", what, (unsigned)len,
	    ss->ss_family, buf, portof(ss) == 0 ? "0" :
	    port != 0 && portof(ss) == port ? "expected" : "set");
}

static void
show_name(const char *what, int fd, int peer, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int r = peer ? getpeername(fd, (struct sockaddr *)&ss, &len) :
	    getsockname(fd, (struct sockaddr *)&ss, &len);
	if (r < 0)
		printf("%s: -1 %s\n", what, strerror(errno));
	else
		show_addr(what, &ss, len, port);
}

static int
bound(int family, int *port)
{
	struct sockaddr_storage ss;
	int fd = socket(family, SOCK_DGRAM, 0);
	socklen_t len = mkaddr(&ss, family, 0, 0);
	if (bind(fd, (struct sockaddr *)&ss, len) < 0) {
		perror("bind");
		exit(1);
	}
	len = sizeof(ss);
	getsockname(fd, (struct sockaddr *)&ss, &len);
	*port = portof(&ss);
	return fd;
}

static void
show_poll(const char *what, int fd)
{
	struct pollfd pfd = { fd, POLLIN | POLLOUT | POLLRDHUP, 0 };
	int r = poll(&pfd, 1, 0);
	printf("%s: poll %d%s%s%s%s%s\n", what, r, pfd.revents & POLLIN ? " IN" : "",
	    pfd.revents & POLLOUT ? " OUT" : "", pfd.revents & POLLERR ? " ERR" : "",
	    pfd.revents & POLLHUP ? " HUP" : "", pfd.revents & POLLRDHUP ? " RDHUP" : "");
}

static void
wait_in(int fd)
{
	struct pollfd pfd = { fd, POLLIN, 0 };
	poll(&pfd, 1, 2000);
}

static void
basics(int family)
{
	int port, cport;
	char buf[64];
	struct sockaddr_storage ss, from;
	socklen_t len, fromlen;
	printf("-- udp %s\n", family == AF_INET ? "inet" : "inet6");
	int s = bound(family, &port);
	show_name("server name", s, 0, port);
	show_name("server peer", s, 1, 0);
	show_poll("idle", s);
	int c = socket(family, SOCK_DGRAM, 0);
	show_name("fresh name", c, 0, 0);
	len = mkaddr(&ss, family, 0, port);
	report("sendto", sendto(c, "first", 5, 0, (struct sockaddr *)&ss, len));
	show_name("client autobound", c, 0, 0);
	len = sizeof(ss);
	getsockname(c, (struct sockaddr *)&ss, &len);
	cport = portof(&ss);
	len = mkaddr(&ss, family, 0, port);
	report("sendto", sendto(c, "second!", 7, 0, (struct sockaddr *)&ss, len));
	report("sendto empty", sendto(c, "", 0, 0, (struct sockaddr *)&ss, len));
	wait_in(s);
	usleep(20000);
	show_poll("readable", s);
	int n = -1;
	report("FIONREAD", ioctl(s, FIONREAD, &n) < 0 ? -1 : n);
	report("peek", recv(s, buf, sizeof(buf), MSG_PEEK));
	fromlen = sizeof(from);
	memset(buf, 0, sizeof(buf));
	report("recvfrom", recvfrom(s, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fromlen));
	printf("got \"%s\"\n", buf);
	show_addr("from", &from, fromlen, cport);
	report("recv truncated", recv(s, buf, 3, 0));
	report("recv empty", recv(s, buf, sizeof(buf), 0));
	report("recv nothing", recv(s, buf, sizeof(buf), MSG_DONTWAIT));
	/* MSG_TRUNC reports the whole length. */
	report("sendto", sendto(c, "0123456789", 10, 0, (struct sockaddr *)&ss, len));
	wait_in(s);
	struct iovec iov = { buf, 4 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	report("recvmsg MSG_TRUNC", recvmsg(s, &mh, MSG_TRUNC));
	printf("msg_flags MSG_TRUNC %d\n", (mh.msg_flags & MSG_TRUNC) != 0);
	/* send without a destination */
	report("send unconnected", send(c, "x", 1, 0));
	len = mkaddr(&ss, family, 0, 0);
	report("sendto port 0", sendto(c, "x", 1, 0, (struct sockaddr *)&ss, len));
	static char big[70000];
	len = mkaddr(&ss, family, 0, port);
	report("sendto 70000", sendto(c, big, sizeof(big), 0, (struct sockaddr *)&ss, len));
	report("sendto 60000", sendto(c, big, 60000, 0, (struct sockaddr *)&ss, len));
	wait_in(s);
	report("recv 60000", recv(s, big, sizeof(big), 0));
	/* connected */
	report("connect", connect(c, (struct sockaddr *)&ss, len));
	show_name("client peer", c, 1, port);
	report("send connected", send(c, "conn", 4, 0));
	wait_in(s);
	fromlen = sizeof(from);
	report("recvfrom", recvfrom(s, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fromlen));
	show_addr("from", &from, fromlen, cport);
	report("reply", sendto(s, "back", 4, 0, (struct sockaddr *)&from, fromlen));
	wait_in(c);
	report("recv reply", recv(c, buf, sizeof(buf), 0));
	struct sockaddr_storage un = { .ss_family = AF_UNSPEC };
	report("connect AF_UNSPEC", connect(c, (struct sockaddr *)&un, sizeof(un)));
	show_name("client peer after", c, 1, 0);
	/* timeouts and shutdown */
	struct timeval tv = { 0, 50000 };
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	report("recv timeout", recv(s, buf, sizeof(buf), 0));
	report("shutdown unconnected", shutdown(s, SHUT_RD));
	show_poll("after shutdown rd", s);
	report("recv after shutdown", recv(s, buf, sizeof(buf), 0));
	close(s);
	close(c);
}

static void
dual(void)
{
	int port;
	char buf[16];
	printf("-- udp dual\n");
	int s = socket(AF_INET6, SOCK_DGRAM, 0);
	struct sockaddr_storage ss, from;
	socklen_t len = mkaddr(&ss, AF_INET6, 1, 0);
	report("bind ::", bind(s, (struct sockaddr *)&ss, len));
	len = sizeof(ss);
	getsockname(s, (struct sockaddr *)&ss, &len);
	port = portof(&ss);
	int c = socket(AF_INET, SOCK_DGRAM, 0);
	len = mkaddr(&ss, AF_INET, 0, port);
	report("v4 sendto", sendto(c, "v4", 2, 0, (struct sockaddr *)&ss, len));
	wait_in(s);
	socklen_t fromlen = sizeof(from);
	report("recvfrom", recvfrom(s, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fromlen));
	show_addr("from", &from, fromlen, 0);
	report("reply to mapped", sendto(s, "ok", 2, 0, (struct sockaddr *)&from, fromlen));
	wait_in(c);
	report("v4 recv", recv(c, buf, sizeof(buf), MSG_DONTWAIT));
	close(c);
	close(s);
}

static void
hostile(void)
{
	printf("-- udp hostile\n");
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(9) };
	report("sendto short", sendto(s, "x", 1, 0, (struct sockaddr *)&sin, 8));
	report("sendto bad pointer", sendto(s, "x", 1, 0, (struct sockaddr *)8, sizeof(sin)));
	report("sendto bad buffer", sendto(s, (void *)8, 1, 0, (struct sockaddr *)&sin, sizeof(sin)));
	sin.sin_family = AF_INET6;
	report("sendto other family", sendto(s, "x", 1, 0, (struct sockaddr *)&sin, sizeof(sin)));
	report("connect short", connect(s, (struct sockaddr *)&sin, 1));
	report("listen", listen(s, 1));
	report("accept", accept(s, NULL, NULL));
	int v6 = socket(AF_INET6, SOCK_DGRAM, 0);
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6, .sin6_port = htons(9) };
	report("v6 sendto short", sendto(v6, "x", 1, 0, (struct sockaddr *)&sin6, 20));
	close(v6);
	close(s);
}

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	basics(AF_INET);
	basics(AF_INET6);
	dual();
	hostile();
	return 0;
}

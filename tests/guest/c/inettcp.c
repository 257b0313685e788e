/*
 * TCP over the loopback, IPv4 and IPv6, as Linux answers: listen on an
 * ephemeral port, connect and accept, each end's getsockname and
 * getpeername, data both ways with MSG_PEEK and MSG_WAITALL, shutdown
 * and end of file, poll bits at each stage, a non-blocking connect
 * (EINPROGRESS, poll/epoll POLLOUT, SO_ERROR), ECONNREFUSED (blocking and
 * not), EADDRINUSE and SO_REUSEADDR, EISCONN, ENOTCONN, EPIPE with
 * SIGPIPE, ECONNRESET from unread data and from SO_LINGER 0,
 * SO_RCVTIMEO, TCP_NODELAY, an IPv4 client of an IPv6 listener
 * (::ffff:127.0.0.1) and IPV6_V6ONLY, a megabyte through, and hostile
 * addresses (EINVAL, EAFNOSUPPORT, EFAULT).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <net/if.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inetaddr.h"
#include "report.h"

static int sigpipes;

static void
onpipe(int sig)
{
	(void)sig;
	sigpipes++;
}

/* The name without the port (ports are ephemeral): family, address, length. */
static void
show_name(const char *what, int fd, int peer, int *port)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char buf[64];
	memset(&ss, 0x55, sizeof(ss));
	int r = peer ? getpeername(fd, (struct sockaddr *)&ss, &len) :
	    getsockname(fd, (struct sockaddr *)&ss, &len);
	if (r < 0) {
		printf("%s: -1 %s\n", what, strerror(errno));
		return;
	}
	if (ss.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, buf,
		    sizeof(buf));
	else
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, buf,
		    sizeof(buf));
	printf("%s: len %u family %d addr %s port %s\n", what, (unsigned)len,
	    ss.ss_family, buf, portof(&ss) ? "set" : "0");
	if (port != NULL)
		*port = portof(&ss);
}

static const char *
pollbits(int ev)
{
	static char buf[128];
	buf[0] = 0;
	if (ev & POLLIN) strcat(buf, "IN ");
	if (ev & POLLOUT) strcat(buf, "OUT ");
	if (ev & POLLERR) strcat(buf, "ERR ");
	if (ev & POLLHUP) strcat(buf, "HUP ");
	if (ev & POLLRDHUP) strcat(buf, "RDHUP ");
	if (ev & POLLNVAL) strcat(buf, "NVAL ");
	if (buf[0] == 0) strcat(buf, "none");
	return buf;
}

static void
show_poll(const char *what, int fd, int timeout)
{
	struct pollfd pfd = { fd, POLLIN | POLLOUT | POLLRDHUP, 0 };
	int r = poll(&pfd, 1, timeout);
	printf("%s: poll %d %s\n", what, r, pollbits(pfd.revents));
}

/* Waits until fd's poll shows want (the loopback is asynchronous inside). */
static void
wait_for(int fd, int want)
{
	for (int i = 0; i < 200; i++) {
		struct pollfd pfd = { fd, want, 0 };
		if (poll(&pfd, 1, 10) > 0 && (pfd.revents & want))
			return;
	}
}

static int
listener(int family, int *port, int backlog)
{
	struct sockaddr_storage ss;
	int fd = socket(family, SOCK_STREAM, 0);
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	socklen_t len = mkaddr(&ss, family, 0, 0);
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, backlog) < 0) {
		perror("listener");
		exit(1);
	}
	len = sizeof(ss);
	getsockname(fd, (struct sockaddr *)&ss, &len);
	*port = portof(&ss);
	return fd;
}

static int
connect_to(int family, int port)
{
	struct sockaddr_storage ss;
	int fd = socket(family, SOCK_STREAM, 0);
	socklen_t len = mkaddr(&ss, family, 0, port);
	if (connect(fd, (struct sockaddr *)&ss, len) < 0) {
		printf("connect: %s\n", strerror(errno));
		return -1;
	}
	return fd;
}

static void
basics(int family)
{
	int port, cport;
	char buf[64];
	printf("-- basics %s\n", family == AF_INET ? "inet" : "inet6");
	int l = listener(family, &port, 5);
	show_name("listener name", l, 0, NULL);
	show_name("listener peer", l, 1, NULL);
	show_poll("listener idle", l, 0);
	int c = socket(family, SOCK_STREAM, 0);
	show_poll("fresh socket", c, 0);
	show_name("fresh name", c, 0, NULL);
	struct sockaddr_storage ss;
	socklen_t len = mkaddr(&ss, family, 0, port);
	report("connect", connect(c, (struct sockaddr *)&ss, len));
	report("connect again", connect(c, (struct sockaddr *)&ss, len));
	show_name("client name", c, 0, &cport);
	show_name("client peer", c, 1, NULL);
	wait_for(l, POLLIN);
	show_poll("listener ready", l, 0);
	struct sockaddr_storage from;
	socklen_t fromlen = sizeof(from);
	int a = accept(l, (struct sockaddr *)&from, &fromlen);
	report("accept", a >= 0 ? 0 : -1);
	printf("accept from: len %u family %d same port %d\n", (unsigned)fromlen,
	    from.ss_family, portof(&from) == cport);
	show_name("server name", a, 0, NULL);
	show_name("server peer", a, 1, NULL);
	show_poll("server idle", a, 0);
	report("send", send(c, "hello, world", 12, 0));
	wait_for(a, POLLIN);
	show_poll("server readable", a, 0);
	int n = 0;
	report("FIONREAD", ioctl(a, FIONREAD, &n) < 0 ? -1 : n);
	report("peek", recv(a, buf, 5, MSG_PEEK));
	printf("peeked \"%.5s\"\n", buf);
	report("recv", recv(a, buf, 5, 0));
	printf("got \"%.5s\"\n", buf);
	report("recv rest", recv(a, buf, sizeof(buf), 0));
	printf("got \"%.7s\"\n", buf);
	report("recv nonblock", recv(a, buf, sizeof(buf), MSG_DONTWAIT));
	report("write back", write(a, "0123456789", 10));
	report("waitall", recv(c, buf, 10, MSG_WAITALL));
	report("shutdown wr", shutdown(c, SHUT_WR));
	wait_for(a, POLLRDHUP);
	show_poll("server after peer's FIN", a, 0);
	report("server read eof", read(a, buf, sizeof(buf)));
	report("server writes after FIN", write(a, "x", 1));
	wait_for(c, POLLIN);
	show_poll("client after shutdown wr", c, 0);
	report("client reads", read(c, buf, 1));
	report("server shutdown wr", shutdown(a, SHUT_WR));
	wait_for(c, POLLRDHUP);
	show_poll("client both shut", c, 0);
	report("client read eof", read(c, buf, sizeof(buf)));
	close(a);
	close(c);
	close(l);
}

static void
errors(void)
{
	int port, one = 1;
	char buf[16];
	struct sockaddr_storage ss;
	socklen_t len;
	printf("-- errors\n");
	/* A port nobody listens on. */
	int l = listener(AF_INET, &port, 5);
	close(l);
	int c = socket(AF_INET, SOCK_STREAM, 0);
	len = mkaddr(&ss, AF_INET, 0, port);
	report("connect refused", connect(c, (struct sockaddr *)&ss, len));
	show_poll("after refused", c, 0);
	close(c);

	c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	int r = connect(c, (struct sockaddr *)&ss, len);
	printf("nonblock connect refused: %s\n", r == 0 ? "0" :
	    errno == EINPROGRESS ? "EINPROGRESS" : errno == ECONNREFUSED ?
	    "EINPROGRESS" : strerror(errno));
	wait_for(c, POLLERR);
	int err = 0;
	socklen_t elen = sizeof(err);
	if (r < 0 && errno == ECONNREFUSED)
		err = ECONNREFUSED;	/* Linux may know at once */
	else
		getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &elen);
	printf("SO_ERROR: %s\n", strerror(err));
	getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &elen);
	printf("SO_ERROR again: %d\n", err);
	close(c);

	/* EADDRINUSE and SO_REUSEADDR. */
	l = listener(AF_INET, &port, 5);
	c = socket(AF_INET, SOCK_STREAM, 0);
	len = mkaddr(&ss, AF_INET, 0, port);
	report("bind in use", bind(c, (struct sockaddr *)&ss, len));
	report("bind twice", bind(l, (struct sockaddr *)&ss, len));
	close(c);
	c = connect_to(AF_INET, port);
	int a = accept(l, NULL, NULL);
	close(a);		/* the server closes first: TIME_WAIT on its port */
	close(c);
	close(l);
	usleep(20000);
	l = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	report("rebind with SO_REUSEADDR", bind(l, (struct sockaddr *)&ss, len));
	report("listen again", listen(l, 5));
	report("listen twice", listen(l, 5));

	/* ENOTCONN and EPIPE. */
	c = socket(AF_INET, SOCK_STREAM, 0);
	report("getpeername unconnected", getpeername(c, (struct sockaddr *)&ss, &len));
	report("recv unconnected", recv(c, buf, 1, 0));
	report("shutdown unconnected", shutdown(c, SHUT_RDWR));
	report("send unconnected", send(c, "x", 1, MSG_NOSIGNAL));
	report("accept on unlistening", accept(c, NULL, NULL));
	close(c);

	c = connect_to(AF_INET, port);
	a = accept(l, NULL, NULL);
	report("connect connected", connect(c, (struct sockaddr *)&ss, len));
	report("listen connected", listen(c, 1));
	close(a);
	wait_for(c, POLLRDHUP);
	report("write to closed peer", write(c, "a", 1));
	usleep(50000);
	signal(SIGPIPE, onpipe);
	r = write(c, "b", 1);
	for (int i = 0; i < 100 && r > 0; i++) {
		usleep(10000);
		r = write(c, "b", 1);
	}
	report("write after reset", r);
	printf("SIGPIPEs: %d\n", sigpipes);
	report("write again", write(c, "c", 1));
	report("send MSG_NOSIGNAL", send(c, "d", 1, MSG_NOSIGNAL));
	printf("SIGPIPEs: %d\n", sigpipes);
	show_poll("after reset", c, 0);
	report("read after reset", read(c, buf, 1));
	close(c);

	/* Unread data at close resets the connection. */
	c = connect_to(AF_INET, port);
	a = accept(l, NULL, NULL);
	write(c, "unread", 6);
	wait_for(a, POLLIN);
	close(a);
	wait_for(c, POLLERR);
	show_poll("peer closed with unread data", c, 0);
	report("read", read(c, buf, 1));
	report("read again", read(c, buf, 1));
	close(c);

	/* SO_LINGER 0: a reset at close. */
	c = connect_to(AF_INET, port);
	a = accept(l, NULL, NULL);
	struct linger lg = { 1, 0 };
	report("SO_LINGER", setsockopt(a, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
	memset(&lg, 0x55, sizeof(lg));
	socklen_t lglen = sizeof(lg);
	getsockopt(a, SOL_SOCKET, SO_LINGER, &lg, &lglen);
	printf("linger %d %d len %u\n", lg.l_onoff, lg.l_linger, (unsigned)lglen);
	close(a);
	wait_for(c, POLLERR);
	report("read after linger reset", read(c, buf, 1));
	close(c);

	/* SO_RCVTIMEO, TCP_NODELAY */
	c = connect_to(AF_INET, port);
	a = accept(l, NULL, NULL);
	struct timeval tv = { 0, 100000 };
	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	report("recv timeout", recv(c, buf, 1, 0));
	int v = 5;
	elen = sizeof(v);
	getsockopt(c, IPPROTO_TCP, TCP_NODELAY, &v, &elen);
	printf("TCP_NODELAY default %d\n", v);
	report("set TCP_NODELAY", setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)));
	getsockopt(c, IPPROTO_TCP, TCP_NODELAY, &v, &elen);
	printf("TCP_NODELAY now %d\n", v != 0);
	getsockopt(c, SOL_SOCKET, SO_TYPE, &v, &elen);
	printf("SO_TYPE %d\n", v);
	getsockopt(c, SOL_SOCKET, SO_PROTOCOL, &v, &elen);
	printf("SO_PROTOCOL %d\n", v);
	getsockopt(l, SOL_SOCKET, SO_ACCEPTCONN, &v, &elen);
	printf("SO_ACCEPTCONN %d\n", v);
	close(a);
	close(c);
	close(l);
}

static void
nonblocking(void)
{
	int port;
	printf("-- nonblocking connect\n");
	int l = listener(AF_INET, &port, 5);
	int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	struct sockaddr_storage ss;
	socklen_t len = mkaddr(&ss, AF_INET, 0, port);
	int r = connect(c, (struct sockaddr *)&ss, len);
	printf("connect: %s\n", r == 0 || errno == EINPROGRESS ? "EINPROGRESS or 0" :
	    strerror(errno));
	int ep = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLOUT, .data.fd = c };
	epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev);
	memset(&ev, 0, sizeof(ev));
	r = epoll_wait(ep, &ev, 1, 2000);
	printf("epoll_wait: %d events %#x\n", r, ev.events);
	int err = -1;
	socklen_t elen = sizeof(err);
	getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &elen);
	printf("SO_ERROR %d\n", err);
	r = connect(c, (struct sockaddr *)&ss, len);
	report("connect again", r);
	int a = accept(l, NULL, NULL);
	char buf[8];
	report("recv would block", recv(c, buf, 1, 0));
	ev.events = EPOLLIN | EPOLLRDHUP;
	epoll_ctl(ep, EPOLL_CTL_MOD, c, &ev);
	write(a, "z", 1);
	r = epoll_wait(ep, &ev, 1, 2000);
	printf("epoll_wait in: %d events %#x\n", r, ev.events);
	close(a);
	r = epoll_wait(ep, &ev, 1, 2000);
	read(c, buf, 1);
	r = epoll_wait(ep, &ev, 1, 2000);
	printf("epoll_wait after close: %d events %#x\n", r, ev.events);
	/* Fill the pipe: a non-blocking writer stops at EAGAIN. */
	close(c);
	c = connect_to(AF_INET, port);
	a = accept(l, NULL, NULL);
	fcntl(c, F_SETFL, O_NONBLOCK);
	static char big[65536];
	long total = 0, n;
	/* Until a write after a pause finds no room: acknowledgements may
	 * still be on their way when the first EAGAIN comes. */
	for (int round = 0; round < 100; round++) {
		long wrote = 0;
		while ((n = write(c, big, sizeof(big))) > 0)
			wrote += n;
		total += wrote;
		if (round > 0 && wrote == 0)
			break;
		usleep(20000);
	}
	printf("filled: %s, some written %d\n", strerror(errno), total > 0);
	show_poll("full", c, 0);
	close(ep);
	close(a);
	close(c);
	close(l);
}

static void
dual(void)
{
	int port, off = 0, on = 1;
	printf("-- dual stack\n");
	int l = socket(AF_INET6, SOCK_STREAM, 0);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	socklen_t elen = sizeof(off);
	getsockopt(l, IPPROTO_IPV6, IPV6_V6ONLY, &off, &elen);
	printf("IPV6_V6ONLY default %d\n", off);
	struct sockaddr_storage ss;
	socklen_t len = mkaddr(&ss, AF_INET6, 1, 0);
	report("bind ::", bind(l, (struct sockaddr *)&ss, len));
	report("listen", listen(l, 5));
	show_name("listener", l, 0, &port);
	int c = connect_to(AF_INET, port);
	int a = accept(l, NULL, NULL);
	show_name("v4 client seen", a, 1, NULL);
	show_name("server side", a, 0, NULL);
	close(a);
	close(c);
	close(l);
	l = socket(AF_INET6, SOCK_STREAM, 0);
	report("IPV6_V6ONLY", setsockopt(l, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on)));
	len = mkaddr(&ss, AF_INET6, 1, 0);
	bind(l, (struct sockaddr *)&ss, len);
	listen(l, 5);
	show_name("v6only listener", l, 0, &port);
	c = socket(AF_INET, SOCK_STREAM, 0);
	len = mkaddr(&ss, AF_INET, 0, port);
	report("v4 connect to v6only", connect(c, (struct sockaddr *)&ss, len));
	close(c);
	close(l);
}

static void
hostile(void)
{
	printf("-- hostile\n");
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sin = { .sin_family = AF_INET };
	report("bind short", bind(s, (struct sockaddr *)&sin, sizeof(sin) - 1));
	sin.sin_family = AF_INET6;
	report("bind other family", bind(s, (struct sockaddr *)&sin, sizeof(sin)));
	report("connect other family", connect(s, (struct sockaddr *)&sin, sizeof(sin)));
	report("bind NULL", bind(s, NULL, sizeof(sin)));
	report("bind bad pointer", bind(s, (struct sockaddr *)8, sizeof(sin)));
	report("bind huge length", bind(s, (struct sockaddr *)&sin, 4096));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(0x0a0b0c0d);
	report("bind foreign address", bind(s, (struct sockaddr *)&sin, sizeof(sin)));
	report("getsockname bad pointer", getsockname(s, (struct sockaddr *)8, (socklen_t *)16));
	socklen_t neg = (socklen_t)-1;
	report("getsockname negative length", getsockname(s, (struct sockaddr *)&sin, &neg));
	int v6 = socket(AF_INET6, SOCK_STREAM, 0);
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	report("bind6 short", bind(v6, (struct sockaddr *)&sin6, 23));
	report("socket bad protocol", socket(AF_INET, SOCK_STREAM, IPPROTO_UDP));
	report("socket seqpacket", socket(AF_INET, SOCK_SEQPACKET, 0));
	report("socketpair inet", socketpair(AF_INET, SOCK_STREAM, 0, (int[2]){ 0 }));
	int big = 1 << 30;
	report("setsockopt short", setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &big, 2));
	report("setsockopt bad pointer", setsockopt(s, IPPROTO_TCP, TCP_NODELAY, (void *)8, 4));
	close(s);
	close(v6);
}

/* The loopback interface through the SIOC ioctls of any socket. */
static void
interfaces(void)
{
	struct ifreq ifr;
	printf("-- interfaces\n");
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	int u = socket(AF_UNIX, SOCK_STREAM, 0);
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	report("SIOCGIFFLAGS", ioctl(s, SIOCGIFFLAGS, &ifr));
	printf("flags %#x\n", ifr.ifr_flags & (IFF_UP | IFF_LOOPBACK | IFF_RUNNING |
	    IFF_BROADCAST));
	report("SIOCGIFFLAGS on AF_UNIX", ioctl(u, SIOCGIFFLAGS, &ifr));
	report("SIOCGIFINDEX", ioctl(s, SIOCGIFINDEX, &ifr));
	printf("index %d\n", ifr.ifr_ifindex);
	memset(ifr.ifr_name, 0, sizeof(ifr.ifr_name));
	report("SIOCGIFNAME", ioctl(s, SIOCGIFNAME, &ifr));
	printf("name %s\n", ifr.ifr_name);
	report("SIOCGIFADDR", ioctl(s, SIOCGIFADDR, &ifr));
	printf("addr %s\n", inet_ntoa(((struct sockaddr_in *)&ifr.ifr_addr)->sin_addr));
	report("SIOCGIFNETMASK", ioctl(s, SIOCGIFNETMASK, &ifr));
	printf("mask %s\n", inet_ntoa(((struct sockaddr_in *)&ifr.ifr_netmask)->sin_addr));
	report("SIOCGIFMTU", ioctl(s, SIOCGIFMTU, &ifr));
	printf("mtu %d\n", ifr.ifr_mtu);
	report("SIOCGIFHWADDR", ioctl(s, SIOCGIFHWADDR, &ifr));
	printf("hw family %d\n", ifr.ifr_hwaddr.sa_family);
	struct ifreq reqs[64];
	struct ifconf ifc = { .ifc_len = sizeof(reqs), .ifc_req = reqs };
	report("SIOCGIFCONF", ioctl(s, SIOCGIFCONF, &ifc));
	int lo = 0;
	for (size_t i = 0; i < ifc.ifc_len / sizeof(struct ifreq); i++)
		lo += strcmp(reqs[i].ifr_name, "lo") == 0;
	printf("lo listed %d\n", lo);
	ifc.ifc_buf = NULL;
	report("SIOCGIFCONF sizing", ioctl(s, SIOCGIFCONF, &ifc));
	printf("multiple of ifreq %d\n", ifc.ifc_len % (int)sizeof(struct ifreq) == 0);
	ifc.ifc_len = sizeof(reqs);
	ifc.ifc_buf = (char *)8;
	report("SIOCGIFCONF bad buffer", ioctl(s, SIOCGIFCONF, &ifc));
	strcpy(ifr.ifr_name, "nosuch0");
	report("SIOCGIFFLAGS no such", ioctl(s, SIOCGIFFLAGS, &ifr));
	ifr.ifr_ifindex = 999;
	report("SIOCGIFNAME no such", ioctl(s, SIOCGIFNAME, &ifr));
	report("SIOCGIFFLAGS bad pointer", ioctl(s, SIOCGIFFLAGS, (void *)8));
	pid_t pid = fork();
	if (pid == 0) {
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(1);
		strcpy(ifr.ifr_name, "lo");
		ioctl(s, SIOCGIFFLAGS, &ifr);
		report("SIOCSIFFLAGS unprivileged", ioctl(s, SIOCSIFFLAGS, &ifr));
		report("SIOCSIFMTU unprivileged", ioctl(s, SIOCSIFMTU, &ifr));
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	close(u);
	close(s);
}

/* A megabyte through one connection, summed on both sides. */
static void
bulk(int family)
{
	int port;
	printf("-- bulk %s\n", family == AF_INET ? "inet" : "inet6");
	int l = listener(family, &port, 5);
	pid_t pid = fork();
	if (pid == 0) {
		int c = connect_to(family, port);
		static unsigned char buf[100000];
		unsigned sum = 0;
		for (int i = 0; i < 1 << 20; i++) {
			buf[i % sizeof(buf)] = (unsigned char)(i * 7 + (i >> 9));
			sum += buf[i % sizeof(buf)];
			if (i % sizeof(buf) == sizeof(buf) - 1 || i == (1 << 20) - 1) {
				size_t n = i % sizeof(buf) + 1;
				if (write(c, buf, n) != (ssize_t)n)
					_exit(2);
			}
		}
		close(c);
		_exit(sum & 0x7f);
	}
	int a = accept(l, NULL, NULL);
	static unsigned char buf[70000];
	unsigned sum = 0;
	long total = 0, n;
	while ((n = read(a, buf, sizeof(buf))) > 0) {
		for (long i = 0; i < n; i++)
			sum += buf[i];
		total += n;
	}
	int st;
	waitpid(pid, &st, 0);
	printf("received %ld bytes, sums agree %d\n", total,
	    WIFEXITED(st) && WEXITSTATUS(st) == (int)(sum & 0x7f));
	close(a);
	close(l);
}

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	basics(AF_INET);
	basics(AF_INET6);
	errors();
	nonblocking();
	dual();
	hostile();
	interfaces();
	bulk(AF_INET);
	bulk(AF_INET6);
	return 0;
}

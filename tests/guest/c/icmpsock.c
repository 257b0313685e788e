/*
 * ICMP sockets over the loopback, IPv4 and IPv6, as Linux answers (run as
 * root): ping sockets (SOCK_DGRAM IPPROTO_ICMP/ICMPV6: the kernel's echo
 * identifier, bind, connect, the reply without the IP header, IP_RECVTTL
 * and IPV6_RECVHOPLIMIT, poll, what may be sent and how much), raw
 * sockets (the IPv4 header, both the request and the reply seen,
 * ICMP_FILTER, ICMP6_FILTER, the kernel's ICMPv6 checksum, IPV6_CHECKSUM
 * and an offset past any datagram, an IPv4 packet past 65535 bytes), the
 * protocol numbers each type takes, EPERM for raw sockets without
 * CAP_NET_RAW, ECONNREFUSED on a connected UDP socket after a port
 * unreachable, and bad pointers.
 *
 * Natively the program first enters a network namespace of its own (lo
 * up, ping_group_range opened to every group, as vkernel's default), so
 * the host's settings do not count; inside vkernel unshare fails and the
 * kernel's own defaults hold.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <net/if.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inetaddr.h"
#include "report.h"

#ifndef ICMP_FILTER
#define ICMP_FILTER 1		/* linux/icmp.h */
#endif
#ifndef IPV6_2292HOPLIMIT
#define IPV6_2292HOPLIMIT 8
#endif

/* Natively: a network namespace of our own, lo up, ping for all. */
static void
own_netns(void)
{
	if (unshare(CLONE_NEWNET) < 0)
		return;		/* inside vkernel (or not root) */
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	struct ifreq ifr = { 0 };
	strcpy(ifr.ifr_name, "lo");
	ioctl(s, SIOCGIFFLAGS, &ifr);
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		perror("SIOCSIFFLAGS");
	close(s);
	int fd = open("/proc/sys/net/ipv4/ping_group_range", O_WRONLY);
	if (fd < 0 || write(fd, "0 2147483647", 12) != 12)
		perror("ping_group_range");
	close(fd);
}

/* IPv4: a message one byte past what fits a packet with its header. */
static void
send_too_big(int s, int type, const struct sockaddr_storage *to,
    socklen_t tolen)
{
	static uint8_t big[65535 - 20 + 1];

	big[0] = (uint8_t)type;
	report(" send 65516 bytes", sendto(s, big, sizeof(big), 0,
	    (const struct sockaddr *)to, tolen));
}

static void
show_from(const struct sockaddr_storage *ss, socklen_t len)
{
	char buf[64];
	const void *a = ss->ss_family == AF_INET ?
	    (const void *)&((const struct sockaddr_in *)ss)->sin_addr :
	    (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr;
	inet_ntop(ss->ss_family, a, buf, sizeof(buf));
	printf("  from %s port %d len %u\n", buf, portof(ss), (unsigned)len);
}

static uint16_t
cksum(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint32_t sum = 0;
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (n & 1)
		sum += (uint32_t)b[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((uint16_t)~sum);
}

/* An echo request: type, id, seq, "ping!" (13 bytes), checksummed. */
static size_t
echo(uint8_t *pkt, int type, uint16_t id, uint16_t seq)
{
	memset(pkt, 0, 13);
	pkt[0] = (uint8_t)type;
	memcpy(pkt + 4, &(uint16_t){ htons(id) }, 2);
	memcpy(pkt + 6, &(uint16_t){ htons(seq) }, 2);
	memcpy(pkt + 8, "ping!", 5);
	uint16_t c = cksum(pkt, 13);
	memcpy(pkt + 2, &c, 2);
	return 13;
}

/* Waits up to 2 s for s to be readable: 1, or 0 (prints the timeout). */
static int
wait_in(int s)
{
	struct pollfd pfd = { s, POLLIN, 0 };
	if (poll(&pfd, 1, 2000) == 1)
		return 1;
	printf("  (nothing within 2 s)\n");
	return 0;
}

/* recvmsg with room for control messages: the bytes, and the hop limit
 * control message if one came (Linux answers echoes with 64). */
static long
recv_ctl(int s, uint8_t *buf, size_t len, struct sockaddr_storage *from,
    socklen_t *fromlen, int flags)
{
	char ctl[256];
	struct iovec iov = { buf, len };
	struct msghdr mh = { .msg_name = from, .msg_namelen = sizeof(*from),
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
	    .msg_controllen = sizeof(ctl) };
	long r = recvmsg(s, &mh, flags);
	if (r < 0)
		return r;
	*fromlen = mh.msg_namelen;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		int v;
		memcpy(&v, CMSG_DATA(c), sizeof(v));
		printf("  cmsg level %d type %d len %lu value %d\n",
		    c->cmsg_level, c->cmsg_type, (unsigned long)c->cmsg_len, v);
	}
	if (mh.msg_flags & MSG_TRUNC)
		printf("  MSG_TRUNC\n");
	return r;
}

static void
ping_socket(int family)
{
	int proto = family == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6;
	int req = family == AF_INET ? ICMP_ECHO : ICMP6_ECHO_REQUEST;
	int rep = family == AF_INET ? ICMP_ECHOREPLY : ICMP6_ECHO_REPLY;
	struct sockaddr_storage to, me, from;
	socklen_t tolen = mkaddr(&to, family, 0, 0), len;
	uint8_t pkt[64], buf[256];

	printf("ping socket, %s\n", family == AF_INET ? "IPv4" : "IPv6");
	int s = socket(family, SOCK_DGRAM, proto);
	report(" socket", s);
	if (s < 0)
		return;
	int one = 1, v = 0;
	len = sizeof(v);
	report(" SO_PROTOCOL", getsockopt(s, SOL_SOCKET, SO_PROTOCOL, &v, &len));
	printf("  = %d\n", v);
	len = sizeof(me);
	report(" getsockname", getsockname(s, (struct sockaddr *)&me, &len));
	printf("  port %d\n", portof(&me));
	if (family == AF_INET)
		report(" IP_RECVTTL", setsockopt(s, IPPROTO_IP, IP_RECVTTL, &one,
		    sizeof(one)));
	else
		report(" IPV6_RECVHOPLIMIT", setsockopt(s, IPPROTO_IPV6,
		    IPV6_RECVHOPLIMIT, &one, sizeof(one)));
	struct pollfd pfd = { s, POLLIN | POLLOUT, 0 };
	report(" poll before", poll(&pfd, 1, 0));
	printf("  revents %#x\n", pfd.revents);
	report(" recv empty", recv(s, buf, sizeof(buf), MSG_DONTWAIT));

	size_t n = echo(pkt, req, 0x1234, 7);
	report(" sendto echo", sendto(s, pkt, n, 0, (struct sockaddr *)&to, tolen));
	len = sizeof(me);
	getsockname(s, (struct sockaddr *)&me, &len);
	int ident = portof(&me);
	printf("  an identifier now: %d\n", ident != 0);
	if (wait_in(s)) {
		pfd.revents = 0;
		report(" poll after", poll(&pfd, 1, 0));
		printf("  revents %#x\n", pfd.revents);
		report(" FIONREAD", ioctl(s, FIONREAD, &v));
		long r = recv_ctl(s, buf, sizeof(buf), &from, &len, 0);
		report(" recvmsg reply", r);
		show_from(&from, len);
		uint16_t id, seq;
		memcpy(&id, buf + 4, 2);
		memcpy(&seq, buf + 6, 2);
		printf("  type %d (reply %d) code %d id is the identifier %d "
		    "seq %d data %.5s\n", buf[0], buf[0] == rep, buf[1],
		    ntohs(id) == ident, ntohs(seq), (char *)buf + 8);
		if (family == AF_INET)
			printf("  checksum good %d\n", cksum(buf, (size_t)r) == 0);
	}

	/* What a ping socket refuses to send. */
	echo(pkt, 13, 1, 1);
	report(" send a timestamp request", sendto(s, pkt, n, 0,
	    (struct sockaddr *)&to, tolen));
	echo(pkt, req, 1, 1);
	pkt[1] = 1;
	report(" send code 1", sendto(s, pkt, n, 0, (struct sockaddr *)&to, tolen));
	echo(pkt, req, 1, 1);
	report(" send 4 bytes", sendto(s, pkt, 4, 0, (struct sockaddr *)&to, tolen));
	report(" send short address", sendto(s, pkt, n, 0,
	    (struct sockaddr *)&to, 4));
	report(" send unconnected", send(s, pkt, n, 0));
	report(" send bad buffer", sendto(s, (void *)8, n, 0,
	    (struct sockaddr *)&to, tolen));
	if (family == AF_INET)
		send_too_big(s, req, &to, tolen);
	if (family == AF_INET6) {
		struct sockaddr_in6 m = { .sin6_family = AF_INET6 };
		inet_pton(AF_INET6, "::ffff:127.0.0.1", &m.sin6_addr);
		report(" send to a mapped address", sendto(s, pkt, n, 0,
		    (struct sockaddr *)&m, sizeof(m)));
	} else {
		struct sockaddr_in6 m = { .sin6_family = AF_INET6 };
		report(" send to an IPv6 address", sendto(s, pkt, n, 0,
		    (struct sockaddr *)&m, sizeof(m)));
	}

	/* Identifiers: bind's port (Linux lets a second socket bind the
	 * same one, and its replies then go to one of them: not tried);
	 * a second socket does not hear the first one's replies. */
	int b = socket(family, SOCK_DGRAM, proto);
	struct sockaddr_storage ba;
	socklen_t balen = mkaddr(&ba, family, 0, 4242);
	report(" bind 4242", bind(b, (struct sockaddr *)&ba, balen));
	len = sizeof(me);
	getsockname(b, (struct sockaddr *)&me, &len);
	printf("  port %d\n", portof(&me));
	report(" bind again", bind(b, (struct sockaddr *)&ba, balen));
	int c = socket(family, SOCK_DGRAM, proto);
	if (family == AF_INET) {
		struct sockaddr_in far = { AF_INET, 0, { htonl(0x0a010203) } };
		report(" bind 10.1.2.3", bind(c, (struct sockaddr *)&far,
		    sizeof(far)));
	}
	report(" connect", connect(b, (struct sockaddr *)&to, tolen));
	n = echo(pkt, req, 99, 8);
	report(" send connected", send(b, pkt, n, 0));
	if (wait_in(b)) {
		long r = recv(b, buf, sizeof(buf), 0);
		uint16_t id;
		memcpy(&id, buf + 4, 2);
		printf(" recv: %ld, id %d\n", r, ntohs(id));
	}
	report(" first socket hears nothing", recv(s, buf, sizeof(buf),
	    MSG_DONTWAIT));
	report(" recv bad buffer", (send(b, pkt, n, 0), wait_in(b),
	    recv(b, (void *)8, sizeof(buf), MSG_DONTWAIT)));
	close(c);
	close(b);
	close(s);
}

static void
raw_socket(int family)
{
	int proto = family == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6;
	int req = family == AF_INET ? ICMP_ECHO : ICMP6_ECHO_REQUEST;
	struct sockaddr_storage to, me, from;
	socklen_t tolen = mkaddr(&to, family, 0, 0), len;
	uint8_t pkt[64], buf[256];

	printf("raw socket, %s\n", family == AF_INET ? "IPv4" : "IPv6");
	int s = socket(family, SOCK_RAW, proto);
	report(" socket", s);
	if (s < 0)
		return;
	len = sizeof(me);
	report(" getsockname", getsockname(s, (struct sockaddr *)&me, &len));
	printf("  port %d\n", portof(&me));
	if (family == AF_INET6) {
		struct icmp6_filter f;
		ICMP6_FILTER_SETBLOCKALL(&f);
		ICMP6_FILTER_SETPASS(ICMP6_ECHO_REPLY, &f);
		report(" ICMP6_FILTER", setsockopt(s, IPPROTO_ICMPV6,
		    ICMP6_FILTER, &f, sizeof(f)));
		int v = 0;
		len = sizeof(v);
		report(" get IPV6_CHECKSUM", getsockopt(s, SOL_RAW,
		    IPV6_CHECKSUM, &v, &len));
		printf("  = %d\n", v);
		len = sizeof(v);
		report(" get IPV6_CHECKSUM at IPPROTO_IPV6", getsockopt(s,
		    IPPROTO_IPV6, IPV6_CHECKSUM, &v, &len));
		printf("  = %d\n", v);
		v = -1;
		report(" IPV6_CHECKSUM off", setsockopt(s, SOL_RAW,
		    IPV6_CHECKSUM, &v, sizeof(v)));
		len = sizeof(v);
		getsockopt(s, SOL_RAW, IPV6_CHECKSUM, &v, &len);
		printf("  = %d\n", v);
		v = 2;
		report(" IPV6_CHECKSUM 2", setsockopt(s, SOL_RAW,
		    IPV6_CHECKSUM, &v, sizeof(v)));
		report(" IPV6_CHECKSUM at IPPROTO_IPV6", setsockopt(s,
		    IPPROTO_IPV6, IPV6_CHECKSUM, &v, sizeof(v)));
		v = 3;
		report(" IPV6_CHECKSUM odd", setsockopt(s, SOL_RAW,
		    IPV6_CHECKSUM, &v, sizeof(v)));
		/* An offset no datagram reaches: kept whole, sends refused. */
		v = 65538;
		report(" IPV6_CHECKSUM 65538", setsockopt(s, SOL_RAW,
		    IPV6_CHECKSUM, &v, sizeof(v)));
		len = sizeof(v);
		getsockopt(s, SOL_RAW, IPV6_CHECKSUM, &v, &len);
		printf("  = %d\n", v);
		uint8_t e[ICMP_MINLEN] = { ICMP6_ECHO_REQUEST };
		report(" sendto, the checksum past it", sendto(s, e, sizeof(e),
		    0, (struct sockaddr *)&to, tolen));
		v = 2;
		setsockopt(s, SOL_RAW, IPV6_CHECKSUM, &v, sizeof(v));
		int one = 1;
		report(" IPV6_2292HOPLIMIT", setsockopt(s, IPPROTO_IPV6,
		    IPV6_2292HOPLIMIT, &one, sizeof(one)));
	}
	size_t n = echo(pkt, req, 0x4321, 1);
	if (family == AF_INET6)
		memset(pkt + 2, 0, 2);	/* the kernel's to compute */
	report(" sendto echo", sendto(s, pkt, n, 0, (struct sockaddr *)&to, tolen));
	/* IPv4: the request comes by too, then the reply; IPv6: the filter
	 * lets the reply alone through. */
	for (int i = 0; i < (family == AF_INET ? 2 : 1) && wait_in(s); i++) {
		long r = recv_ctl(s, buf, sizeof(buf), &from, &len, 0);
		report(" recvfrom", r);
		show_from(&from, len);
		const uint8_t *icmp = buf;
		if (family == AF_INET) {
			struct iphdr ih;
			memcpy(&ih, buf, sizeof(ih));
			printf("  IP version %d ihl %d tot_len %d protocol %d "
			    "saddr %#x daddr %#x\n", ih.version, ih.ihl,
			    ntohs(ih.tot_len), ih.protocol, ntohl(ih.saddr),
			    ntohl(ih.daddr));
			icmp = buf + ih.ihl * 4;
		}
		uint16_t id;
		memcpy(&id, icmp + 4, 2);
		printf("  type %d code %d id %#x data %.5s\n", icmp[0], icmp[1],
		    ntohs(id), (const char *)icmp + 8);
	}
	if (family == AF_INET) {
		uint32_t mask = 1u << ICMP_ECHO, got = 0;
		report(" ICMP_FILTER", setsockopt(s, SOL_RAW, ICMP_FILTER, &mask,
		    sizeof(mask)));
		len = sizeof(got);
		report(" get ICMP_FILTER", getsockopt(s, SOL_RAW, ICMP_FILTER,
		    &got, &len));
		printf("  = %#x len %u\n", got, (unsigned)len);
		n = echo(pkt, req, 0x4321, 2);
		report(" sendto echo", sendto(s, pkt, n, 0,
		    (struct sockaddr *)&to, tolen));
		if (wait_in(s)) {
			long r = recv(s, buf, sizeof(buf), 0);
			printf(" recv: %ld, type %d\n", r, buf[20]);
		}
		report(" nothing more", recv(s, buf, sizeof(buf), MSG_DONTWAIT));
	}
	report(" send bad buffer", sendto(s, (void *)8, n, 0,
	    (struct sockaddr *)&to, tolen));
	report(" send unconnected", send(s, pkt, n, 0));
	if (family == AF_INET)
		send_too_big(s, req, &to, tolen);
	close(s);
}

static void
protocols(void)
{
	printf("protocols\n");
	static const struct { int f, t, p; } tab[] = {
		{ AF_INET, SOCK_DGRAM, IPPROTO_TCP },
		{ AF_INET, SOCK_DGRAM, IPPROTO_ICMPV6 },
		{ AF_INET6, SOCK_DGRAM, IPPROTO_ICMP },
		{ AF_INET, SOCK_RAW, 0 },
		{ AF_INET6, SOCK_RAW, 0 },
		{ AF_INET, SOCK_RAW, -1 },
		{ AF_INET, SOCK_DGRAM, 263 },
	};
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		int s = socket(tab[i].f, tab[i].t, tab[i].p);
		printf(" socket(%d, %d, %d): %s\n", tab[i].f, tab[i].t, tab[i].p,
		    s >= 0 ? "ok" : strerror(errno));
		if (s >= 0)
			close(s);
	}
}

/* As nobody: no raw sockets, ping sockets by ping_group_range. */
static void
unprivileged(void)
{
	printf("as nobody\n");
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setgid(65534) < 0 ||
		    setuid(65534) < 0)
			perror("setuid");
		int s = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
		report(" raw ICMP", s);
		report(" raw ICMPv6", socket(AF_INET6, SOCK_RAW, IPPROTO_ICMPV6));
		report(" raw TCP", socket(AF_INET, SOCK_RAW, IPPROTO_TCP));
		report(" raw 0", socket(AF_INET, SOCK_RAW, 0));
		s = socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
		printf(" ping socket: %s\n", s >= 0 ? "ok" : strerror(errno));
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}

/* A connected UDP socket hears of the port unreachable its datagram drew. */
static void
udp_refused(int family)
{
	struct sockaddr_storage to;
	socklen_t tolen = mkaddr(&to, family, 0, 9);	/* discard: closed */
	char c = 'x';

	printf("udp to a closed port, %s\n", family == AF_INET ? "IPv4" : "IPv6");
	int s = socket(family, SOCK_DGRAM, 0);
	report(" connect", connect(s, (struct sockaddr *)&to, tolen));
	report(" send", send(s, &c, 1, 0));
	struct pollfd pfd = { s, POLLIN, 0 };
	report(" poll", poll(&pfd, 1, 2000));
	printf("  revents %#x\n", pfd.revents);
	report(" recv", recv(s, &c, 1, MSG_DONTWAIT));
	report(" recv again", recv(s, &c, 1, MSG_DONTWAIT));
	close(s);
}

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	own_netns();
	ping_socket(AF_INET);
	ping_socket(AF_INET6);
	raw_socket(AF_INET);
	raw_socket(AF_INET6);
	protocols();
	unprivileged();
	udp_refused(AF_INET);
	udp_refused(AF_INET6);
	return 0;
}

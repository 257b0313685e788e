/*
 * AF_NETLINK NETLINK_ROUTE at the socket level, on lo only (what every
 * machine has): port ids, a link dump peeked for its size with
 * MSG_PEEK|MSG_TRUNC and ending in NLMSG_DONE, lo found with index 1
 * and IFF_LOOPBACK, acks with NLM_F_ACK, errors for a bad type, a short
 * header, a bad attribute and a missing interface, malformed lengths
 * dropped, poll, buffer sizes.  Prints what Linux does; compared with
 * the native run.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/socket.h>
#include <sys/wait.h>

/* <linux/netlink.h> and <linux/rtnetlink.h>: musl-gcc has no kernel headers. */
#ifndef AF_NETLINK
#define AF_NETLINK	16
#endif
#define NETLINK_ROUTE	0
#define SOL_NETLINK	270
#define NETLINK_ADD_MEMBERSHIP 1
#define NETLINK_CAP_ACK	10
#define NETLINK_EXT_ACK	11
#define NLM_F_REQUEST	0x01
#define NLM_F_MULTI	0x02
#define NLM_F_ACK	0x04
#define NLM_F_DUMP	0x300
#define NLMSG_NOOP	1
#define NLMSG_ERROR	2
#define NLMSG_DONE	3
#define RTM_NEWLINK	16
#define RTM_GETLINK	18
#define IFLA_IFNAME	3
#define RTMGRP_LINK	1
#define RTMGRP_IPV4_IFADDR 0x10
#define RTNLGRP_IPV6_IFADDR 9

struct sockaddr_nl { unsigned short nl_family, nl_pad; uint32_t nl_pid, nl_groups; };
struct nlmsghdr { uint32_t nlmsg_len; uint16_t nlmsg_type, nlmsg_flags; uint32_t nlmsg_seq, nlmsg_pid; };
struct nlmsgerr { int error; struct nlmsghdr msg; };
struct ifinfomsg { unsigned char ifi_family, pad; unsigned short ifi_type; int ifi_index; unsigned ifi_flags, ifi_change; };
struct rtattr { unsigned short rta_len, rta_type; };

#define NLMSG_ALIGN(len)	(((len) + 3) & ~3)
#define NLMSG_HDRLEN		((int)NLMSG_ALIGN(sizeof(struct nlmsghdr)))
#define NLMSG_LENGTH(len)	((len) + NLMSG_HDRLEN)
#define NLMSG_DATA(h)		((void *)((char *)(h) + NLMSG_HDRLEN))
#define NLMSG_NEXT(h, len)	((len) -= NLMSG_ALIGN((h)->nlmsg_len), \
    (struct nlmsghdr *)((char *)(h) + NLMSG_ALIGN((h)->nlmsg_len)))
#define NLMSG_OK(h, len)	((len) >= (int)sizeof(struct nlmsghdr) && \
    (h)->nlmsg_len >= sizeof(struct nlmsghdr) && (h)->nlmsg_len <= (unsigned)(len))
#define RTA_ALIGN(len)		(((len) + 3) & ~3)
#define RTA_LENGTH(len)		(RTA_ALIGN(sizeof(struct rtattr)) + (len))
#define RTA_DATA(a)		((void *)((char *)(a) + RTA_LENGTH(0)))
#define RTA_OK(a, len)		((len) >= (int)sizeof(struct rtattr) && \
    (a)->rta_len >= sizeof(struct rtattr) && (a)->rta_len <= (len))
#define RTA_NEXT(a, len)	((len) -= RTA_ALIGN((a)->rta_len), \
    (struct rtattr *)((char *)(a) + RTA_ALIGN((a)->rta_len)))
#define IFLA_RTA(m)		((struct rtattr *)((char *)(m) + NLMSG_ALIGN(sizeof(struct ifinfomsg))))
#define IFLA_PAYLOAD(h)		((int)(h)->nlmsg_len - NLMSG_LENGTH(NLMSG_ALIGN((int)sizeof(struct ifinfomsg))))

static int seq = 100;

static const char *
err(int e)
{
	switch (e) {
	case 0: return "0";
	case EINVAL: return "EINVAL";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENODEV: return "ENODEV";
	case EADDRINUSE: return "EADDRINUSE";
	case EAGAIN: return "EAGAIN";
	case EMSGSIZE: return "EMSGSIZE";
	case EPERM: return "EPERM";
	case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
	case ESOCKTNOSUPPORT: return "ESOCKTNOSUPPORT";
	default: return strerror(e);
	}
}

static int
nlsocket(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0) {
		printf("socket: %s\n", err(errno));
		exit(1);
	}
	return fd;
}

static struct sockaddr_nl
name_of(int fd)
{
	struct sockaddr_nl sa;
	socklen_t len = sizeof(sa) + 4;
	memset(&sa, 0xff, sizeof(sa));
	if (getsockname(fd, (struct sockaddr *)&sa, &len) < 0 || len != sizeof(sa))
		printf("getsockname: %s len %u\n", err(errno), len);
	return sa;
}

/* Sends a request of type and flags with a payload. */
static void
request(int fd, int type, int flags, const void *pl, size_t len)
{
	char buf[512];
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };

	memset(buf, 0, sizeof(buf));
	h->nlmsg_len = NLMSG_LENGTH(len);
	h->nlmsg_type = type;
	h->nlmsg_flags = flags;
	h->nlmsg_seq = ++seq;
	memcpy(NLMSG_DATA(h), pl, len);
	ssize_t n = sendto(fd, buf, h->nlmsg_len, 0, (struct sockaddr *)&to,
	    sizeof(to));
	if (n != (ssize_t)h->nlmsg_len)
		printf("sendto: %zd %s\n", n, err(errno));
}

/* Receives one datagram (non-blocking): its length, or -errno. */
static ssize_t
receive(int fd, char *buf, size_t len, int flags, struct sockaddr_nl *from)
{
	struct iovec iov = { buf, len };
	struct msghdr msg = { .msg_name = from, .msg_namelen = sizeof(*from),
	    .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n = recvmsg(fd, &msg, flags | MSG_DONTWAIT);
	if (n < 0)
		return -errno;
	if (msg.msg_namelen != sizeof(*from) || from->nl_family != AF_NETLINK ||
	    from->nl_pid != 0)
		printf("sender: len %u family %d pid %u\n", msg.msg_namelen,
		    from->nl_family, from->nl_pid);
	if ((flags & MSG_TRUNC) && (size_t)n > len && !(msg.msg_flags & MSG_TRUNC))
		printf("no MSG_TRUNC in msg_flags\n");
	return n;
}

/* Waits for what is queued (the answer is there when sendto returns on
 * Linux too, for rtnetlink; poll only to be safe). */
static void
wait_in(int fd)
{
	struct pollfd p = { fd, POLLIN, 0 };
	poll(&p, 1, 2000);
}

/* The next answer must be an NLMSG_ERROR: prints its error. */
static void
expect_error(int fd, const char *what, uint32_t reqlen)
{
	char buf[8192];
	struct sockaddr_nl from;

	wait_in(fd);
	ssize_t n = receive(fd, buf, sizeof(buf), 0, &from);
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	if (n < (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)) ||
	    h->nlmsg_type != NLMSG_ERROR) {
		printf("%s: no error message (%zd, type %d)\n", what, n,
		    n > 0 ? h->nlmsg_type : -1);
		return;
	}
	struct nlmsgerr *e = NLMSG_DATA(h);
	printf("%s: error %s, seq ok %d, request echoed %d, length %s\n", what,
	    err(-e->error), h->nlmsg_seq == (uint32_t)seq &&
	    e->msg.nlmsg_seq == (uint32_t)seq, e->msg.nlmsg_len == reqlen,
	    e->error == 0 ? (h->nlmsg_len == 36 ? "header only" : "?") :
	    h->nlmsg_len == NLMSG_ALIGN(20 + reqlen) ? "whole request" : "?");
}

static void
nothing_queued(int fd, const char *what)
{
	char buf[64];
	struct sockaddr_nl from;
	printf("%s: %s\n", what, err(-(int)receive(fd, buf, sizeof(buf), 0, &from)));
}

/* The link dump: sizes peeked, every message checked, lo found. */
static void
dump_links(int fd, uint32_t pid)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	char *buf = NULL;
	struct sockaddr_nl from;
	int datagrams = 0, links = 0, done = 0, bad = 0, lo_index = -1, lo_flags = 0;

	request(fd, RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP, &ifi, sizeof(ifi));
	while (!done) {
		wait_in(fd);
		ssize_t size = receive(fd, NULL, 0, MSG_PEEK | MSG_TRUNC, &from);
		if (size <= 0) {
			printf("peek: %zd\n", size);
			break;
		}
		buf = realloc(buf, size);
		ssize_t n = receive(fd, buf, size, 0, &from);
		if (n != size)
			printf("read %zd after a peek of %zd\n", n, size);
		datagrams++;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, n);
		    h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != (uint32_t)seq || h->nlmsg_pid != pid ||
			    !(h->nlmsg_flags & NLM_F_MULTI))
				bad++;
			if (h->nlmsg_type == NLMSG_DONE) {
				done = 1;
				printf("done: length %u, value %d\n", h->nlmsg_len,
				    *(int *)NLMSG_DATA(h));
				break;
			}
			if (h->nlmsg_type != RTM_NEWLINK) {
				bad++;
				continue;
			}
			links++;
			struct ifinfomsg *m = NLMSG_DATA(h);
			int alen = IFLA_PAYLOAD(h);
			for (struct rtattr *a = IFLA_RTA(m); RTA_OK(a, alen);
			    a = RTA_NEXT(a, alen))
				if (a->rta_type == IFLA_IFNAME &&
				    strcmp(RTA_DATA(a), "lo") == 0) {
					lo_index = m->ifi_index;
					lo_flags = m->ifi_flags;
				}
		}
	}
	free(buf);
	printf("dump: %s datagram(s), links %s, bad messages %d\n",
	    datagrams > 0 ? "some" : "no", links > 0 ? "some" : "none", bad);
	printf("lo: index %d, LOOPBACK %d, UP %d\n", lo_index,
	    (lo_flags & IFF_LOOPBACK) != 0, (lo_flags & IFF_UP) != 0);
}

/* RTM_GETLINK of one interface with an ack: the link, then the ack. */
static void
get_link(int fd, int index, const char *name)
{
	char req[64], buf[8192];
	struct ifinfomsg *ifi = (struct ifinfomsg *)req;
	struct sockaddr_nl from;
	size_t len = sizeof(*ifi);

	memset(req, 0, sizeof(req));
	ifi->ifi_index = index;
	if (name != NULL) {
		struct rtattr *a = (struct rtattr *)(req + NLMSG_ALIGN(sizeof(*ifi)));
		a->rta_type = IFLA_IFNAME;
		a->rta_len = RTA_LENGTH(strlen(name) + 1);
		strcpy(RTA_DATA(a), name);
		len = NLMSG_ALIGN(sizeof(*ifi)) + RTA_ALIGN(a->rta_len);
	}
	request(fd, RTM_GETLINK, NLM_F_REQUEST | NLM_F_ACK, req, len);
	wait_in(fd);
	ssize_t n = receive(fd, buf, sizeof(buf), 0, &from);
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	if (n > 0 && h->nlmsg_type == RTM_NEWLINK) {
		ifi = NLMSG_DATA(h);
		printf("get %s: index %d, flags 0x%x, seq ok %d\n",
		    name != NULL ? name : "by index", ifi->ifi_index,
		    h->nlmsg_flags, h->nlmsg_seq == (uint32_t)seq);
		/* The ack may share the datagram or come alone. */
		int rest = n;
		h = NLMSG_NEXT(h, rest);
		if (!NLMSG_OK(h, rest)) {
			expect_error(fd, "its ack", NLMSG_LENGTH(len));
			return;
		}
		printf("its ack: in the same datagram\n");
		return;
	}
	if (n > 0 && h->nlmsg_type == NLMSG_ERROR)
		printf("get: error %s\n", err(-((struct nlmsgerr *)NLMSG_DATA(h))->error));
	else
		printf("get: %zd, type %d\n", n, n > 0 ? h->nlmsg_type : -1);
}

int
main(void)
{
	struct sockaddr_nl sa;
	int v;
	socklen_t vlen;

	int fd = socket(AF_NETLINK, SOCK_STREAM, NETLINK_ROUTE);
	printf("stream: %s\n", fd < 0 ? err(errno) : "made");
	fd = socket(AF_NETLINK, SOCK_RAW, 32);
	printf("protocol 32: %s\n", fd < 0 ? err(errno) : "made");
	fd = socket(AF_NETLINK, SOCK_DGRAM, NETLINK_ROUTE);
	printf("dgram: %s\n", fd < 0 ? err(errno) : "made");
	close(fd);

	fd = nlsocket();
	sa = name_of(fd);
	printf("unbound: family %d pid %u groups %u\n", sa.nl_family, sa.nl_pid,
	    sa.nl_groups);
	memset(&sa, 0, sizeof(sa));
	sa.nl_family = AF_INET;
	printf("bind AF_INET: %s\n", bind(fd, (struct sockaddr *)&sa,
	    sizeof(sa)) < 0 ? err(errno) : "0");
	sa.nl_family = AF_NETLINK;
	printf("bind short: %s\n", bind(fd, (struct sockaddr *)&sa, 8) < 0 ?
	    err(errno) : "0");
	sa.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR;
	printf("bind: %s\n", bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ?
	    err(errno) : "0");
	struct sockaddr_nl me = name_of(fd);
	printf("bound: pid is getpid %d, groups 0x%x\n",
	    me.nl_pid == (uint32_t)getpid(), me.nl_groups);

	int fd2 = nlsocket();
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	/* A send binds too. */
	request(fd2, NLMSG_NOOP, NLM_F_REQUEST, &ifi, sizeof(ifi));
	struct sockaddr_nl other = name_of(fd2);
	printf("second: pid differs %d, negative %d\n", other.nl_pid != me.nl_pid,
	    (int32_t)other.nl_pid < 0);
	nothing_queued(fd2, "noop without ack");
	int fd3 = nlsocket();
	sa.nl_pid = me.nl_pid;
	sa.nl_groups = 0;
	printf("bind a used pid: %s\n", bind(fd3, (struct sockaddr *)&sa,
	    sizeof(sa)) < 0 ? err(errno) : "0");
	close(fd3);
	close(fd2);

	struct pollfd p = { fd, POLLIN | POLLOUT, 0 };
	int ready = poll(&p, 1, 0);
	printf("poll idle: %d revents 0x%x\n", ready, p.revents);
	request(fd, NLMSG_NOOP, NLM_F_REQUEST | NLM_F_ACK, &ifi, sizeof(ifi));
	p.revents = 0;
	ready = poll(&p, 1, 1000);
	printf("poll answered: %d revents 0x%x\n", ready, p.revents);
	expect_error(fd, "noop ack", NLMSG_LENGTH(sizeof(ifi)));

	dump_links(fd, me.nl_pid);
	get_link(fd, 1, NULL);
	get_link(fd, 0, "lo");

	request(fd, 0x400, NLM_F_REQUEST, &ifi, sizeof(ifi));
	expect_error(fd, "type 0x400", NLMSG_LENGTH(sizeof(ifi)));
	request(fd, RTM_GETLINK, NLM_F_REQUEST, &ifi, 2);
	expect_error(fd, "short ifinfomsg", NLMSG_LENGTH(2));
	ifi.ifi_index = 99999;
	request(fd, RTM_GETLINK, NLM_F_REQUEST, &ifi, sizeof(ifi));
	expect_error(fd, "no such index", NLMSG_LENGTH(sizeof(ifi)));
	ifi.ifi_index = 0;
	{
		char req[64] = { 0 };
		struct rtattr *a = (struct rtattr *)(req + sizeof(ifi));
		a->rta_type = IFLA_IFNAME;
		a->rta_len = 200;	/* past the message */
		request(fd, RTM_GETLINK, NLM_F_REQUEST, req, sizeof(req));
		expect_error(fd, "attribute past the end", NLMSG_LENGTH(sizeof(req)));
	}
	/* Not requests: acknowledged only. */
	request(fd, RTM_GETLINK, NLM_F_ACK, &ifi, sizeof(ifi));
	expect_error(fd, "no NLM_F_REQUEST", NLMSG_LENGTH(sizeof(ifi)));

	/* Malformed lengths end the datagram silently, as on Linux. */
	{
		struct nlmsghdr h = { 8, RTM_GETLINK, NLM_F_REQUEST | NLM_F_ACK, 1, 0 };
		struct sockaddr_nl to = { .nl_family = AF_NETLINK };
		printf("header length 8: sent %zd\n", sendto(fd, &h, sizeof(h), 0,
		    (struct sockaddr *)&to, sizeof(to)));
		h.nlmsg_len = 4000;
		printf("header length 4000: sent %zd\n", sendto(fd, &h, sizeof(h),
		    0, (struct sockaddr *)&to, sizeof(to)));
		printf("short datagram: sent %zd\n", sendto(fd, &h, 10, 0,
		    (struct sockaddr *)&to, sizeof(to)));
		nothing_queued(fd, "after malformed lengths");
	}

	v = 4096;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	vlen = sizeof(v);
	getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, &vlen);
	printf("SO_RCVBUF 4096: %d\n", v);
	v = 2048;
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
	vlen = sizeof(v);
	getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, &vlen);
	printf("SO_SNDBUF 2048: %d\n", v);
	{
		static char big[8192];
		struct sockaddr_nl to = { .nl_family = AF_NETLINK };
		printf("8 KiB request: %s\n", sendto(fd, big, sizeof(big), 0,
		    (struct sockaddr *)&to, sizeof(to)) < 0 ? err(errno) : "sent");
	}
	v = 1;
	printf("NETLINK_EXT_ACK: %d\n", setsockopt(fd, SOL_NETLINK,
	    NETLINK_EXT_ACK, &v, sizeof(v)));
	printf("NETLINK_CAP_ACK: %d\n", setsockopt(fd, SOL_NETLINK,
	    NETLINK_CAP_ACK, &v, sizeof(v)));
	request(fd, 0x400, NLM_F_REQUEST, &ifi, sizeof(ifi));
	{
		char buf[256];
		struct sockaddr_nl from;
		wait_in(fd);
		ssize_t n = receive(fd, buf, sizeof(buf), 0, &from);
		struct nlmsghdr *h = (struct nlmsghdr *)buf;
		printf("capped error: length %zd, flags 0x%x\n", n, h->nlmsg_flags);
	}
	/* A change needs CAP_NET_ADMIN; a user may still read. */
	fflush(stdout);
	pid_t child = fork();
	if (child == 0) {
		if (setuid(65534) < 0) {
			/* Not root to begin with: a user already. */
		}
		int ufd = nlsocket();
		struct ifinfomsg up = { .ifi_family = AF_UNSPEC, .ifi_index = 1,
		    .ifi_flags = IFF_UP, .ifi_change = IFF_UP };
		request(ufd, RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, &up, sizeof(up));
		expect_error(ufd, "as a user: set lo up", NLMSG_LENGTH(sizeof(up)));
		get_link(ufd, 1, NULL);
		fflush(stdout);
		_exit(0);
	}
	waitpid(child, NULL, 0);
	v = RTNLGRP_IPV6_IFADDR;
	printf("add membership: %d\n", setsockopt(fd, SOL_NETLINK,
	    NETLINK_ADD_MEMBERSHIP, &v, sizeof(v)));
	me = name_of(fd);
	printf("groups now 0x%x\n", me.nl_groups);
	close(fd);
	return 0;
}

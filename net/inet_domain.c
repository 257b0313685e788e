/*
 * The AF_INET and AF_INET6 domains: their protocol switches, the control
 * blocks both protocols share, and the IP-level options.
 */
#include <errno.h>
#include <string.h>

#include "lwip/mem.h"
#include "lwip/tcpip.h"

#include "kern/kernel.h"
#include "kern/proc.h"
#include "kern/thread.h"
#include "kern/ucred.h"
#include "net/inet_lwip.h"
#include "net/inet_pcb.h"

#define CAP_NET_BIND_SERVICE 10

uint64_t inet_rcvtotal;

struct inpcb *
inp_alloc(int family, int proto)
{
	struct inpcb *inp = mem_calloc(1, sizeof(*inp));
	if (inp == NULL)
		return NULL;
	inp->inp_family = family;
	inp->inp_proto = proto;
	inp->inp_dgtail = &inp->inp_dgq;
	inp->inp_accepttail = &inp->inp_acceptq;
	ip_addr_copy(inp->inp_laddr, *inp_any(inp));
	return inp;
}

void
inp_free(struct inpcb *inp)
{
	mem_free(inp);
}

const ip_addr_t *
inp_any(const struct inpcb *inp)
{
	if (inp->inp_family == AF_INET)
		return IP4_ADDR_ANY;
	return inp->inp_v6only ? IP6_ADDR_ANY : IP_ANY_TYPE;
}

void
inp_any_dual(const struct inpcb *inp, ip_addr_t *ip)
{
	if (inp->inp_family == AF_INET6 && !inp->inp_v6only && IP_IS_V6(ip) &&
	    ip6_addr_isany(ip_2_ip6(ip)))
		ip_addr_copy(*ip, *IP_ANY_TYPE);
}

int
inp_bind_addr(struct socket *so, const char *addr, socklen_t len,
    struct proc *p, ip_addr_t *ip, uint16_t *port)
{
	struct inpcb *inp = sotoinpcb(so);

	int error = inet_addr_in(so->so_family, inp->inp_v6only, addr, len, ip,
	    port, false);
	if (error < 0)
		return error;
	if (*port != 0 && *port < 1024 &&
	    !(p->p_ucred->cr_capeff & (1ULL << CAP_NET_BIND_SERVICE)))
		return -EACCES;
	inp_any_dual(inp, ip);
	return 0;
}

void
inp_loopback_any(ip_addr_t *ip)
{
	if (IP_IS_V4(ip) && ip4_addr_isany(ip_2_ip4(ip)))
		ip_addr_set_loopback(0, ip);
	else if (IP_IS_V6(ip) && ip6_addr_isany(ip_2_ip6(ip)))
		ip_addr_set_loopback(1, ip);
}

int
sockopt_int(bool set, void *val, socklen_t *len, int *v)
{
	if (set) {
		if (*len < sizeof(int))
			return -EINVAL;
		memcpy(v, val, sizeof(int));
		return 0;
	}
	*len = MIN(*len, (socklen_t)sizeof(int));
	memcpy(val, v, *len);
	return 0;
}

/* A boolean int option kept as bit flag of *flags. */
static int
sockopt_flag(bool set, void *val, socklen_t *len, int *flags, int flag)
{
	int v = (*flags & flag) != 0;
	int error = sockopt_int(set, val, len, &v);
	if (error < 0 || !set)
		return error;
	*flags = v ? *flags | flag : *flags & ~flag;
	return 0;
}

/* IPPROTO_IP and IPPROTO_IPV6 options, of every protocol. */
int
inet_ctloutput_ip(struct socket *so, bool set, int level, int name,
    void *val, socklen_t *len)
{
	struct inpcb *inp = sotoinpcb(so);
	int v = 0, error;

	if (level == IPPROTO_IPV6 && so->so_family != AF_INET6)
		return -ENOPROTOOPT;
	switch (level == IPPROTO_IP ? name : -name) {
	case IP_TTL:
	case -IPV6_UNICAST_HOPS:
		v = inp->inp_ttl != 0 ? inp->inp_ttl : IP_DEFAULT_TTL;
		if ((error = sockopt_int(set, val, len, &v)) < 0 || !set)
			return error;
		if (v < -1 || v == 0 || v > 255)
			return -EINVAL;
		inp->inp_ttl = v == -1 ? 0 : v;
		LOCK_TCPIP_CORE();
		if (inp->inp_pcb.ip != NULL)
			inp->inp_pcb.ip->ttl = (u8_t)(inp->inp_ttl ? inp->inp_ttl :
			    IP_DEFAULT_TTL);
		UNLOCK_TCPIP_CORE();
		return 0;
	case IP_TOS:
		v = inp->inp_tos;
		if ((error = sockopt_int(set, val, len, &v)) < 0 || !set)
			return error;
		inp->inp_tos = v & 0xfc;
		LOCK_TCPIP_CORE();
		if (inp->inp_pcb.ip != NULL)
			inp->inp_pcb.ip->tos = (u8_t)inp->inp_tos;
		UNLOCK_TCPIP_CORE();
		return 0;
	case IP_RECVTTL:
		return sockopt_flag(set, val, len, &inp->inp_recvttl,
		    INP_RECVTTL);
	case -IPV6_RECVHOPLIMIT:
		return sockopt_flag(set, val, len, &inp->inp_recvttl,
		    INP_RECVHOPS);
	case -IPV6_2292HOPLIMIT:
		return sockopt_flag(set, val, len, &inp->inp_recvttl,
		    INP_RECVHOPS2292);
	case IP_MTU_DISCOVER:
	case IP_RECVERR:
		/* Accepted; lwIP neither discovers path MTUs nor queues errors. */
		v = 0;
		return sockopt_int(set, val, len, &v);
	case -IPV6_V6ONLY:
		v = inp->inp_v6only;
		if ((error = sockopt_int(set, val, len, &v)) < 0 || !set)
			return error;
		if (inp->inp_pcb.any != NULL)
			return -EINVAL;	/* bound or connected: too late */
		inp->inp_v6only = v != 0;
		return 0;
	default:
		kprintf("inet: %ssockopt level %d option %d not implemented\n",
		    set ? "set" : "get", level, name);
		return -ENOPROTOOPT;
	}
}

#define CAP_NET_RAW	13
#define IPPROTO_MAX	263	/* Linux's, IPPROTO_MPTCP + 1 */

/*
 * socket(family, type, protocol): the protocols a type takes, as Linux
 * answers: a raw socket of any protocol but 0 needs CAP_NET_RAW (EPERM)
 * before the protocol is looked at, and takes any IP protocol number
 * (an IPv6 one but IPPROTO_RAW, whose header-included sends lwIP's IPv6
 * does not do); ICMP datagrams are ping sockets.
 */
static int
inet_protocol_of(int type, int protocol, int icmp)
{
	if (protocol < 0 || protocol >= IPPROTO_MAX)
		return -EINVAL;
	switch (type) {
	case SOCK_STREAM:
		return protocol == 0 || protocol == IPPROTO_TCP ? type :
		    -EPROTONOSUPPORT;
	case SOCK_DGRAM:
		return protocol == 0 || protocol == IPPROTO_UDP ||
		    protocol == icmp ? type : -EPROTONOSUPPORT;
	case SOCK_RAW:
		if (protocol == 0)
			return -EPROTONOSUPPORT;
		if (!(curproc->p_ucred->cr_capeff & (1ULL << CAP_NET_RAW)))
			return -EPERM;
		if (protocol > IPPROTO_RAW || (protocol == IPPROTO_RAW &&
		    icmp == IPPROTO_ICMPV6)) {
			kprintf_ratelimited("inet: raw sockets of protocol %d "
			    "not implemented\n", protocol);
			return -EPROTONOSUPPORT;
		}
		return type;
	default:
		return -ESOCKTNOSUPPORT;
	}
}

static int
inet_protocol(int type, int protocol)
{
	return inet_protocol_of(type, protocol, IPPROTO_ICMP);
}

static int
inet6_protocol(int type, int protocol)
{
	return inet_protocol_of(type, protocol, IPPROTO_ICMPV6);
}

static const struct protosw inetsw[] = {
	{ SOCK_STREAM, AF_INET, IPPROTO_TCP, PR_CONNREQUIRED, &tcp_usrreqs },
	{ SOCK_DGRAM, AF_INET, IPPROTO_UDP, PR_ATOMIC, &udp_usrreqs },
	{ SOCK_DGRAM, AF_INET, IPPROTO_ICMP, PR_ATOMIC, &rip_usrreqs },
	{ SOCK_RAW, AF_INET, 0, PR_ATOMIC, &rip_usrreqs },	/* any */
};

static const struct protosw inet6sw[] = {
	{ SOCK_STREAM, AF_INET6, IPPROTO_TCP, PR_CONNREQUIRED, &tcp_usrreqs },
	{ SOCK_DGRAM, AF_INET6, IPPROTO_UDP, PR_ATOMIC, &udp_usrreqs },
	{ SOCK_DGRAM, AF_INET6, IPPROTO_ICMPV6, PR_ATOMIC, &rip_usrreqs },
	{ SOCK_RAW, AF_INET6, 0, PR_ATOMIC, &rip_usrreqs },	/* any */
};

const struct domain inetdomain = {
	AF_INET, "inet", inetsw, nitems(inetsw), inet_protocol,
};

const struct domain inet6domain = {
	AF_INET6, "inet6", inet6sw, nitems(inet6sw), inet6_protocol,
};

/*
 * AF_INET and AF_INET6: Linux's ABI numbers and address structures, and
 * the two domains (net/inet_*.c, over lwIP; see docs/net.md).  This
 * header is lwIP-free, for the socket layer's table and the tracer.
 */
#ifndef NET_INET_H
#define NET_INET_H

#include <stdint.h>

#include "net/socketvar.h"

#define AF_INET		2
#define AF_INET6	10

#define IPPROTO_IP	0
#define IPPROTO_ICMP	1
#define IPPROTO_TCP	6
#define IPPROTO_UDP	17
#define IPPROTO_IPV6	41
#define IPPROTO_ICMPV6	58
#define IPPROTO_RAW	255

/* SOL_RAW (IPPROTO_RAW) and IPPROTO_ICMPV6 options */
#define ICMP_FILTER	1	/* SOL_RAW, raw IPPROTO_ICMP sockets */
#define ICMP6_FILTER	1	/* IPPROTO_ICMPV6 */

/* IPPROTO_IP options */
#define IP_TOS		1
#define IP_TTL		2
#define IP_HDRINCL	3
#define IP_MTU_DISCOVER	10
#define IP_RECVERR	11
#define IP_RECVTTL	12

/* IPPROTO_IPV6 options */
#define IPV6_CHECKSUM	7
#define IPV6_2292HOPLIMIT 8
#define IPV6_UNICAST_HOPS 16
#define IPV6_RECVHOPLIMIT 51
#define IPV6_V6ONLY	26

/* IPPROTO_TCP options */
#define TCP_NODELAY	1
#define TCP_MAXSEG	2
#define TCP_CORK	3
#define TCP_KEEPIDLE	4
#define TCP_KEEPINTVL	5
#define TCP_KEEPCNT	6
#define TCP_QUICKACK	12

/* struct sockaddr_in and sockaddr_in6 as Linux lays them out. */
struct inet_sockaddr_in {
	uint16_t sin_family;
	uint16_t sin_port;		/* network order */
	uint32_t sin_addr;		/* network order */
	uint8_t sin_zero[8];
};

struct inet_sockaddr_in6 {
	uint16_t sin6_family;
	uint16_t sin6_port;		/* network order */
	uint32_t sin6_flowinfo;
	uint8_t sin6_addr[16];
	uint32_t sin6_scope_id;
};

#define SIN6_LEN_RFC2133 24		/* the shortest AF_INET6 address */

extern const struct domain inetdomain;
extern const struct domain inet6domain;

#endif /* NET_INET_H */

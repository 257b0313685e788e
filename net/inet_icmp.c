/*
 * ICMP errors to the sockets they concern (BSD's icmp_input calling a
 * protocol's pr_ctlinput).  lwIP passes no ICMP error up to its pcbs, so
 * the kernel keeps a raw pcb of its own for ICMP and one for ICMPv6 that
 * look at every destination unreachable the stack takes in (without
 * eating it: raw sockets and lwIP's ICMP still see it), read the
 * datagram it quotes, and tell the UDP socket that sent it.  As on Linux
 * without IP_RECVERR, only a port unreachable counts (ECONNREFUSED), and
 * only for a connected socket (udp_ctlinput).
 */
#include <errno.h>

#include "lwip/icmp.h"
#include "lwip/ip.h"
#include "lwip/prot/icmp.h"
#include "lwip/prot/icmp6.h"
#include "lwip/prot/ip4.h"
#include "lwip/prot/ip6.h"
#include "lwip/raw.h"
#include "lwip/tcpip.h"

#include "kern/kernel.h"
#include "net/inet_pcb.h"

#define ICMP_HLEN		8

/*
 * The datagram a destination unreachable quotes, at off in p: the
 * addresses and ports of a UDP datagram this host sent.  True if it is
 * one.
 */
static bool
icmp_quoted_udp(struct pbuf *p, uint16_t off, bool v6, ip_addr_t *src,
    uint16_t *sport, ip_addr_t *dst, uint16_t *dport)
{
	uint16_t ports[2];

	if (v6) {
		struct ip6_hdr h;
		if (pbuf_copy_partial(p, &h, sizeof(h), off) != sizeof(h) ||
		    IP6H_NEXTH(&h) != IP_PROTO_UDP)
			return false;	/* extension headers are not followed */
		ip_addr_copy_from_ip6_packed(*src, h.src);
		ip_addr_copy_from_ip6_packed(*dst, h.dest);
		off += IP6_HLEN;
	} else {
		struct ip_hdr h;
		if (pbuf_copy_partial(p, &h, sizeof(h), off) != sizeof(h) ||
		    IPH_PROTO(&h) != IP_PROTO_UDP || IPH_HL_BYTES(&h) < IP_HLEN)
			return false;	/* a header shorter than itself: Linux's drop */
		ip_addr_copy_from_ip4(*src, h.src);
		ip_addr_copy_from_ip4(*dst, h.dest);
		off += IPH_HL_BYTES(&h);
	}
	if (pbuf_copy_partial(p, ports, sizeof(ports), off) != sizeof(ports))
		return false;
	*sport = lwip_ntohs(ports[0]);
	*dport = lwip_ntohs(ports[1]);
	return true;
}

/*
 * lwIP's input (tcpip thread or a CPU), core lock held; p->payload at
 * the IP header.
 */
static u8_t
icmp_err_input(void *arg, struct raw_pcb *pcb, struct pbuf *p,
    const ip_addr_t *addr)
{
	bool v6 = ip_current_is_v6();
	uint16_t off = (uint16_t)ip_current_header_tot_len();
	uint8_t h[2];
	ip_addr_t src, dst;
	uint16_t sport, dport;

	(void)arg, (void)pcb, (void)addr;
	if (pbuf_copy_partial(p, h, sizeof(h), off) != sizeof(h))
		return 0;
	bool unreach = v6 ? h[0] == ICMP6_TYPE_DUR && h[1] == ICMP6_DUR_PORT :
	    h[0] == ICMP_DUR && h[1] == ICMP_DUR_PORT;
	if (unreach && icmp_quoted_udp(p, off + ICMP_HLEN, v6, &src, &sport,
	    &dst, &dport))
		udp_ctlinput(&src, sport, &dst, dport, ECONNREFUSED);
	return 0;
}

int
icmp_err_start(void)
{
	struct raw_pcb *p4 = raw_new_ip_type(IPADDR_TYPE_V4, IP_PROTO_ICMP);
	struct raw_pcb *p6 = raw_new_ip_type(IPADDR_TYPE_V6, IP6_NEXTH_ICMP6);
	if (p4 == NULL || p6 == NULL) {
		if (p4 != NULL)
			raw_remove(p4);
		if (p6 != NULL)
			raw_remove(p6);
		return -ENOMEM;
	}
	raw_recv(p4, icmp_err_input, NULL);
	raw_recv(p6, icmp_err_input, NULL);
	return 0;
}

/*
 * Raw and ICMP sockets over lwIP's raw pcbs (see inet_pcb.h for who runs
 * what):
 *
 * - SOCK_RAW of any IP protocol (CAP_NET_RAW; inet_domain.c checks):
 *   every packet of that protocol the stack takes in for the socket's
 *   address, an IPv4 one whole with its IP header, an IPv6 one without
 *   (Linux's answers); of ICMP, less the types ICMP_FILTER or
 *   ICMP6_FILTER block.  What the guest sends is the protocol's message;
 *   lwIP adds the IP header and, for ICMPv6, the checksum (IPV6_CHECKSUM,
 *   offset 2; other protocols' only when that option asks).  IPv4's
 *   IP_HDRINCL has the guest write the header, as IPPROTO_RAW always
 *   does: the kernel fills in what Linux's raw_send_hdrinc does (the
 *   length and checksum, a zero source and identifier).
 * - Linux's ping sockets, SOCK_DGRAM with IPPROTO_ICMP or IPPROTO_ICMPV6,
 *   for members of ping_group_range: the kernel owns the echo
 *   identifier.  A socket's identifier is its "port" (bind's, or a free
 *   one at connect or the first send); a sent echo request gets it and
 *   its checksum, and the socket receives the echo replies that carry
 *   it, without the IP header.
 *
 * - SOCK_RAW, IPPROTO_RAW (IPv4): sends whole IP packets and receives
 *   nothing (busybox udhcpc makes one for its ioctls).
 *
 * Each socket has its own raw pcb from creation, so an unbound raw socket
 * hears everything as on Linux.  The receive callback never eats a
 * packet: lwIP's ICMP goes on to answer echo requests (in place, in the
 * very pbuf), and every other socket hears it too; so each socket queues
 * a copy.
 */
#include <errno.h>
#include <string.h>

#include "lwip/inet_chksum.h"
#include "lwip/ip.h"
#include "lwip/tcpip.h"

#include "kern/kernel.h"
#include "kern/proc.h"
#include "kern/ucred.h"
#include "kern/uio.h"
#include "net/inet_lwip.h"
#include "net/inet_pcb.h"

#define ICMP_HLEN		8	/* type, code, checksum, id, sequence */
#define ICMP_ECHOREPLY		0
#define ICMP_ECHO		8
#define ICMP6_ECHO_REQUEST	128
#define ICMP6_ECHO_REPLY	129
#define IP_MAXPACKET		0xffff	/* an IP packet's 16-bit length */

/*
 * net.ipv4.ping_group_range: the groups that may make ping sockets (both
 * families).  Linux's compiled-in default is "1 0", no one; distributions
 * with systemd set every group, and so do we: a guest's unprivileged
 * busybox ping works.
 */
static const uint32_t ping_group_range[2] = { 0, 2147483647 };

struct inpcb_list rip_all = TAILQ_HEAD_INITIALIZER(rip_all);

/* The ping identifiers in use, of each family (the big lock). */
static uint8_t ping_idused[2][65536 / 8];

static int
echo_request_type(const struct inpcb *inp)
{
	return inp->inp_family == AF_INET ? ICMP_ECHO : ICMP6_ECHO_REQUEST;
}

static bool
is_icmp(const struct inpcb *inp)
{
	return inp->inp_proto == (inp->inp_family == AF_INET ? IPPROTO_ICMP :
	    IPPROTO_ICMPV6);
}

static bool
icmp_filtered(const struct inpcb *inp, int type)
{
	if (!is_icmp(inp))
		return false;
	if (inp->inp_family == AF_INET && type >= 32)
		return false;	/* ICMP_FILTER has 32 bits */
	return (inp->inp_icmpfilt[type >> 5] >> (type & 31)) & 1;
}

/*
 * lwIP's input (tcpip thread or a CPU), core lock held: a packet of the
 * socket's protocol for its address (lwIP matched the pcb's binding and
 * connection), with p->payload at its IP header.  A copy goes on the
 * queue, and the packet on to every other socket and to lwIP's ICMP.
 */
static u8_t
rip_input(void *arg, struct raw_pcb *pcb, struct pbuf *p,
    const ip_addr_t *addr)
{
	struct inpcb *inp = arg;
	uint16_t hlen = (uint16_t)ip_current_header_tot_len();
	uint8_t h[ICMP_HLEN];
	uint16_t n = pbuf_copy_partial(p, h, sizeof(h), hlen);

	(void)pcb;
	if (inp->inp_ident != 0) {
		uint16_t id;
		memcpy(&id, h + 4, sizeof(id));
		int reply = inp->inp_family == AF_INET ? ICMP_ECHOREPLY :
		    ICMP6_ECHO_REPLY;
		if (n < ICMP_HLEN || h[0] != reply ||
		    lwip_ntohs(id) != inp->inp_ident)
			return 0;
	} else if (inp->inp_ping || (n > 0 && icmp_filtered(inp, h[0]))) {
		return 0;	/* no identifier yet, or a type filtered out */
	}
	/* An IPv4 raw socket reads the IP header too. */
	uint16_t off = !inp->inp_ping && inp->inp_family == AF_INET ? 0 : hlen;
	struct pbuf *q = pbuf_alloc(PBUF_RAW, (u16_t)(p->tot_len - off),
	    PBUF_RAM);
	if (q == NULL)
		return 0;
	pbuf_copy_partial(p, q->payload, q->tot_len, off);
	inp_dgram_enqueue(inp, q, addr, 0, inp_input_ttl());
	return 0;
}

static int
rip_attach(struct socket *so)
{
	bool v6 = so->so_family == AF_INET6;
	int proto = so->so_protocol;

	if (so->so_type == SOCK_DGRAM) {
		/* Linux's ping_init_sock: the effective or a supplementary
		 * group in the range, even for root. */
		const struct ucred *cr = curproc->p_ucred;
		bool ok = cr->cr_gid >= ping_group_range[0] &&
		    cr->cr_gid <= ping_group_range[1];
		for (int i = 0; i < cr->cr_ngroups && !ok; i++)
			ok = cr->cr_groups[i] >= ping_group_range[0] &&
			    cr->cr_groups[i] <= ping_group_range[1];
		if (!ok)
			return -EACCES;
	}
	struct inpcb *inp = inp_alloc(so->so_family, proto);
	if (inp == NULL)
		return -ENOMEM;
	inp->inp_socket = so;
	inp->inp_rcvhiwat = so->so_rcv.sb_hiwat;
	inp->inp_ping = so->so_type == SOCK_DGRAM;
	inp->inp_v6only = v6;	/* IPv6 ICMP never carries IPv4 */
	LOCK_TCPIP_CORE();
	struct raw_pcb *pcb = raw_new_ip_type(v6 ? IPADDR_TYPE_V6 :
	    IPADDR_TYPE_V4, (u8_t)proto);
	if (pcb != NULL) {
		bool icmp6 = v6 && proto == IPPROTO_ICMPV6;
		if (icmp6) {
			/* Linux computes every ICMPv6 checksum. */
			pcb->chksum_reqd = 1;
			pcb->chksum_offset = 2;
		}
		inp->inp_cksumoff = icmp6 ? 2 : -1;
		/* IPPROTO_RAW: the guest writes the IP header, always. */
		if (proto == IPPROTO_RAW) {
			inp->inp_hdrincl = true;
			raw_setflags(pcb, RAW_FLAGS_HDRINCL);
		}
		raw_recv(pcb, rip_input, inp);
		TAILQ_INSERT_TAIL(&rip_all, inp, inp_riplink);
	}
	UNLOCK_TCPIP_CORE();
	if (pcb == NULL) {
		inp_free(inp);
		return -ENOMEM;
	}
	inp->inp_pcb.raw = pcb;
	so->so_pcb = inp;
	return 0;
}

static void
rip_detach(struct socket *so)
{
	struct inpcb *inp = sotoinpcb(so);

	if (inp->inp_ident != 0)
		ping_idused[inp->inp_family == AF_INET6][inp->inp_ident / 8] &=
		    (uint8_t)~(1u << (inp->inp_ident % 8));
	LOCK_TCPIP_CORE();
	TAILQ_REMOVE(&rip_all, inp, inp_riplink);
	UNLOCK_TCPIP_CORE();
	inp_dgram_detach(so);
}

/*
 * A ping socket takes identifier id, or with id 0 the next free one
 * after the last taken (Linux's rover): 0, -EADDRINUSE, -EAGAIN (all
 * taken).  Core lock held (the identifier is what the callback matches).
 */
static int
ping_setident(struct inpcb *inp, uint16_t id)
{
	static uint16_t rover;
	uint8_t *used = ping_idused[inp->inp_family == AF_INET6];

	for (uint32_t i = 0; id == 0 && i < 65536; i++) {
		uint16_t c = (uint16_t)(rover + 1 + i);
		if (c != 0 && !(used[c / 8] & (1u << (c % 8))))
			rover = id = c;
	}
	if (id == 0)
		return -EAGAIN;
	if (used[id / 8] & (1u << (id % 8)))
		return -EADDRINUSE;
	used[id / 8] |= (uint8_t)(1u << (id % 8));
	inp->inp_ident = id;
	return 0;
}

static int
rip_bind(struct socket *so, const char *addr, socklen_t len, struct proc *p)
{
	struct inpcb *inp = sotoinpcb(so);
	ip_addr_t ip;
	uint16_t port;

	(void)p;
	int error = inet_addr_in(so->so_family, true, addr, len, &ip, &port,
	    false);
	if (error < 0)
		return error;
	LOCK_TCPIP_CORE();
	if (!inet_addr_local(&ip))
		error = -EADDRNOTAVAIL;
	else if (inp->inp_ping && inp->inp_ident != 0)
		error = -EINVAL;
	else if (inp->inp_ping)
		error = ping_setident(inp, port);
	if (error == 0)
		raw_bind(inp->inp_pcb.raw, &ip);
	UNLOCK_TCPIP_CORE();
	return error;
}

static int
rip_connect(struct socket *so, const char *addr, socklen_t len,
    struct proc *p, bool nonblock)
{
	struct inpcb *inp = sotoinpcb(so);
	ip_addr_t ip;
	uint16_t port;

	(void)p, (void)nonblock;
	int error = inet_addr_in(so->so_family, true, addr, len, &ip, &port,
	    true);
	if (error < 0)
		return error;
	LOCK_TCPIP_CORE();
	if (error == 1) {
		/* AF_UNSPEC dissolves the association. */
		raw_disconnect(inp->inp_pcb.raw);
		inp_dgram_setconn(so, false);
		error = 0;
	} else if (!inp->inp_ping || inp->inp_ident != 0 ||
	    (error = ping_setident(inp, 0)) == 0) {
		inp_loopback_any(&ip);
		error = -inet_errno(raw_connect(inp->inp_pcb.raw, &ip));
		if (error == 0)
			inp_dgram_setconn(so, true);
	}
	UNLOCK_TCPIP_CORE();
	return error;
}

/*
 * A ping socket's echo request pb (len bytes, contiguous): Linux accepts
 * only an echo request of code 0 (-EINVAL); the identifier becomes the
 * socket's and, for IPv4, the checksum is computed (lwIP does ICMPv6's).
 */
static int
ping_prepare(struct inpcb *inp, struct pbuf *pb, uint64_t len)
{
	uint8_t *h = pb->payload;

	if (len < ICMP_HLEN || h[0] != echo_request_type(inp) || h[1] != 0)
		return -EINVAL;
	uint16_t id = lwip_htons(inp->inp_ident);
	memcpy(h + 4, &id, sizeof(id));
	if (inp->inp_family == AF_INET) {
		memset(h + 2, 0, 2);
		uint16_t sum = inet_chksum(h, (u16_t)len);
		memcpy(h + 2, &sum, sizeof(sum));
	}
	return 0;
}

/*
 * IPv6: lwIP adds the checksum to what is at its place, which Linux
 * ignores: zeroed (-EINVAL if the place is not in the datagram, as
 * Linux's rawv6_push_pending_frames).  Core lock held.
 */
static int
rip_cksum_place(struct inpcb *inp, struct pbuf *pb, uint64_t len)
{
	int off = inp->inp_cksumoff;

	if (inp->inp_family == AF_INET || off < 0)
		return 0;
	if ((uint64_t)off + 2 > len)
		return -EINVAL;
	memset((uint8_t *)pb->payload + off, 0, 2);
	return 0;
}

/*
 * IP_HDRINCL: what Linux's raw_send_hdrinc fills in of the guest's IPv4
 * header, a header of at least 20 bytes within the packet (else
 * -EINVAL; a shorter IHL is sent as it is): the total length, a source
 * from the route to to if 0, an identifier if 0, and the checksum.
 * Core lock held.
 */
static int
rip_hdrincl_fill(struct pbuf *pb, uint64_t len, const ip_addr_t *to)
{
	struct ip_hdr *iph = pb->payload;
	static uint16_t ident;

	if (len < IP_HLEN || (uint64_t)IPH_HL_BYTES(iph) > len)
		return -EINVAL;
	if (IPH_HL_BYTES(iph) < IP_HLEN)
		return 0;
	if (ip4_addr_isany_val(iph->src) && to != NULL) {
		struct netif *nif = ip4_route(ip_2_ip4(to));
		if (nif != NULL)
			ip4_addr_copy(iph->src, *netif_ip4_addr(nif));
	}
	IPH_LEN_SET(iph, lwip_htons((u16_t)len));
	if (IPH_ID(iph) == 0)
		IPH_ID_SET(iph, lwip_htons(++ident != 0 ? ident : ++ident));
	IPH_CHKSUM_SET(iph, 0);
	IPH_CHKSUM_SET(iph, inet_chksum(iph, IPH_HL_BYTES(iph)));
	return 0;
}

/*
 * inp_output_t of raw and ping sockets: a ping socket's echo request
 * takes its identifier (the socket's, bound on the first one) and
 * checksum; an IPv6 checksum's place is zeroed for lwIP.
 */
static int
rip_output(struct socket *so, struct pbuf *pb, uint64_t len,
    const ip_addr_t *to, uint16_t port)
{
	struct inpcb *inp = sotoinpcb(so);
	struct raw_pcb *pcb = inp->inp_pcb.raw;
	int error;

	(void)port;
	if (inp->inp_ping && inp->inp_ident == 0 &&
	    (error = ping_setident(inp, 0)) < 0)
		return error;
	if (inp->inp_ping && (error = ping_prepare(inp, pb, len)) < 0)
		return error;
	if ((error = rip_cksum_place(inp, pb, len)) < 0)
		return error;
	if (inp->inp_hdrincl && (error = rip_hdrincl_fill(pb, len,
	    to != NULL ? to : &pcb->remote_ip)) < 0)
		return error;
	return -inet_errno(to != NULL ? raw_sendto(pcb, pb, to) :
	    raw_send(pcb, pb));
}

/*
 * The most one send may carry.  IPv4: the packet within IP_MAXPACKET
 * with the header the kernel adds (Linux's EMSGSIZE), IPPROTO_RAW's
 * guest writing its own.  IPv6: Linux's payload may take IP_MAXPACKET
 * itself, but lwIP's 16-bit pbuf length counts the header too, so
 * 40 bytes less (logged when it is what refuses).
 */
static uint64_t
rip_maxlen(const struct inpcb *inp)
{
	if (inp->inp_family == AF_INET)
		return inp->inp_hdrincl ? IP_MAXPACKET : IP_MAXPACKET - IP_HLEN;
	return IP_MAXPACKET - IP6_HLEN;
}

static int64_t
rip_send(struct socket *so, struct sockmsg *m, struct proc *p)
{
	struct inpcb *inp = sotoinpcb(so);
	bool to = m->sm_namelen != 0;
	ip_addr_t ip;
	uint16_t port;

	(void)p;
	if (m->sm_flags & MSG_OOB)
		return -EOPNOTSUPP;
	if (to) {
		int error = inet_addr_in(so->so_family, true, m->sm_name,
		    m->sm_namelen, &ip, &port, false);
		if (error < 0)
			return error;
		inp_loopback_any(&ip);
	}
	uint64_t len = m->sm_uio->uio_resid;
	if (len > rip_maxlen(inp)) {
		if (inp->inp_family == AF_INET6 && len <= IP_MAXPACKET)
			kprintf_ratelimited("inet: an IPv6 datagram of %lu bytes "
			    "and its header do not fit lwIP's pbuf\n",
			    (unsigned long)len);
		return -EMSGSIZE;
	}
	if (inp->inp_ping && len < ICMP_HLEN)
		return -EINVAL;
	return inp_dgram_send(so, m->sm_uio, PBUF_IP, to ? &ip : NULL, 0,
	    rip_output);
}

static int
rip_sockaddr(struct socket *so, char *addr, socklen_t *len)
{
	struct inpcb *inp = sotoinpcb(so);
	LOCK_TCPIP_CORE();
	/* Linux's port of a raw socket is its protocol. */
	*len = inet_addr_out(so->so_family, &inp->inp_pcb.raw->local_ip,
	    inp->inp_ping ? inp->inp_ident : (uint16_t)inp->inp_proto, addr);
	UNLOCK_TCPIP_CORE();
	return 0;
}

static int
rip_peeraddr(struct socket *so, char *addr, socklen_t *len)
{
	struct inpcb *inp = sotoinpcb(so);
	int error = 0;
	LOCK_TCPIP_CORE();
	if (inp->inp_state != INP_CONNECTED)
		error = -ENOTCONN;
	else
		*len = inet_addr_out(so->so_family,
		    &inp->inp_pcb.raw->remote_ip, 0, addr);
	UNLOCK_TCPIP_CORE();
	return error;
}

static int
rip_nread(struct socket *so)
{
	/* Linux's ping sockets have no ioctls of their own. */
	return sotoinpcb(so)->inp_ping ? -ENOTTY : inp_dgram_nread(so);
}

/* ICMP_FILTER (SOL_RAW) and ICMP6_FILTER: bits of types to drop. */
static int
rip_filter(struct inpcb *inp, bool set, void *val, socklen_t *len)
{
	socklen_t size = inp->inp_family == AF_INET ? sizeof(uint32_t) :
	    sizeof(inp->inp_icmpfilt);

	/* Linux takes or gives as much as fits, a short set leaving the
	 * rest as it was. */
	socklen_t n = MIN(*len, size);
	LOCK_TCPIP_CORE();
	if (set)
		memcpy(inp->inp_icmpfilt, val, n);
	else
		memcpy(val, inp->inp_icmpfilt, n);
	UNLOCK_TCPIP_CORE();
	*len = n;
	return 0;
}

/* IPV6_CHECKSUM: where the checksum goes; -1: the guest's own. */
static int
rip_checksum(struct inpcb *inp, bool set, void *val, socklen_t *len)
{
	struct raw_pcb *pcb = inp->inp_pcb.raw;
	int v = inp->inp_cksumoff;
	int error = sockopt_int(set, val, len, &v);
	if (error < 0 || !set)
		return error;
	if (v > 0 && (v & 1))
		return -EINVAL;
	LOCK_TCPIP_CORE();
	/* An offset past lwIP's 16 bits is past any datagram too: its
	 * sends fail in rip_cksum_place before lwIP sees them. */
	inp->inp_cksumoff = v >= 0 ? v : -1;
	pcb->chksum_reqd = v >= 0;
	pcb->chksum_offset = (u16_t)(v >= 0 ? MIN(v, 0xffff) : 0);
	UNLOCK_TCPIP_CORE();
	return 0;
}

/* IP_HDRINCL (IPv4 raw sockets): whether the guest writes the header. */
static int
rip_hdrincl(struct inpcb *inp, bool set, void *val, socklen_t *len)
{
	int v = inp->inp_hdrincl;
	int error = sockopt_int(set, val, len, &v);
	if (error < 0 || !set)
		return error;
	struct raw_pcb *pcb = inp->inp_pcb.raw;
	LOCK_TCPIP_CORE();
	inp->inp_hdrincl = v != 0;
	raw_setflags(pcb, v != 0 ? raw_flags(pcb) | RAW_FLAGS_HDRINCL :
	    raw_flags(pcb) & ~RAW_FLAGS_HDRINCL);
	UNLOCK_TCPIP_CORE();
	return 0;
}

static int
rip_ctloutput(struct socket *so, bool set, int level, int name, void *val,
    socklen_t *len)
{
	struct inpcb *inp = sotoinpcb(so);
	bool raw = !inp->inp_ping;

	/* Linux's: a filter is for ICMP sockets, EOPNOTSUPP on the others. */
	if (raw && level == IPPROTO_RAW && name == ICMP_FILTER &&
	    so->so_family == AF_INET)
		return is_icmp(inp) ? rip_filter(inp, set, val, len) :
		    -EOPNOTSUPP;
	if (raw && level == IPPROTO_ICMPV6 && name == ICMP6_FILTER &&
	    so->so_family == AF_INET6)
		return is_icmp(inp) ? rip_filter(inp, set, val, len) :
		    -EOPNOTSUPP;
	if (raw && level == IPPROTO_IP && name == IP_HDRINCL &&
	    so->so_family == AF_INET)
		return rip_hdrincl(inp, set, val, len);
	if (raw && so->so_family == AF_INET6 && name == IPV6_CHECKSUM &&
	    (level == IPPROTO_RAW || level == IPPROTO_IPV6)) {
		/* RFC 3542: not to be set at IPPROTO_IPV6 on ICMPv6 sockets,
		 * Linux's SOL_RAW being the way. */
		if (set && level == IPPROTO_IPV6)
			return -EINVAL;
		return rip_checksum(inp, set, val, len);
	}
	if (level == IPPROTO_IP || level == IPPROTO_IPV6)
		return inet_ctloutput_ip(so, set, level, name, val, len);
	kprintf("inet: %ssockopt raw level %d option %d not implemented\n",
	    set ? "set" : "get", level, name);
	return -ENOPROTOOPT;
}

const struct pr_usrreqs rip_usrreqs = {
	.pru_attach = rip_attach,
	.pru_detach = rip_detach,
	.pru_bind = rip_bind,
	.pru_connect = rip_connect,
	.pru_shutdown = inp_dgram_shutdown,
	.pru_send = rip_send,
	.pru_recv = inp_dgram_recv,
	.pru_sockaddr = rip_sockaddr,
	.pru_peeraddr = rip_peeraddr,
	.pru_poll = inp_dgram_poll,
	.pru_nread = rip_nread,
	.pru_ctloutput = rip_ctloutput,
};

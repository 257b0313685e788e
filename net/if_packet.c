/*
 * AF_PACKET sockets (see if_packet.h), Linux's packet(7) for Ethernet
 * interfaces, as busybox udhcpc uses them to talk DHCP before the
 * interface has an address:
 *
 * - SOCK_RAW reads and writes whole frames; SOCK_DGRAM reads frames
 *   without their Ethernet header and writes payloads to which the
 *   header is added from the destination's sockaddr_ll.
 * - The protocol (socket()'s, or bind's) is a frame type in network
 *   order: ETH_P_ALL takes every frame the interface receives and every
 *   one it sends (PACKET_OUTGOING), another only received frames of that
 *   type, 0 none.  bind to an interface index narrows it to one.
 * - A copy of each frame is taken in the driver's path (packet_tap),
 *   before lwIP sees a received frame, so a frame for an interface
 *   without an address is heard; what a socket sends goes straight to
 *   the driver, without lwIP's IP layer.
 *
 * The socket's control block is an inpcb whose datagram queue
 * (inet_dgram.c) holds the frames, each with its sockaddr_ll, bounded by
 * SO_RCVBUF (a frame beyond it is dropped, as Linux drops it), under
 * lwIP's core lock as every datagram queue.  lo has no Ethernet header
 * in lwIP: binding or sending to it says EOPNOTSUPP, logged.  Socket
 * filters (SO_ATTACH_FILTER) and SOL_PACKET options are not implemented
 * (ENOPROTOOPT, logged); udhcpc does without them, checking each frame
 * itself.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <netpacket/packet.h>

#include "lwip/netif.h"
#include "lwip/pbuf.h"
#include "lwip/tcpip.h"

#include "kern/kernel.h"
#include "kern/proc.h"
#include "kern/ucred.h"
#include "kern/uio.h"
#include "net/if.h"
#include "net/if_packet.h"
#include "net/if_vke.h"
#include "net/inet_pcb.h"

#define CAP_NET_RAW	13
#define ETH_ALEN	6
#define ETH_HLEN	14	/* two addresses and the type */
#define ETH_P_ALL	0x0003
#define SOCK_PACKET_	10	/* Linux's obsolete SOCK_PACKET */

/* Every packet socket (core lock). */
static TAILQ_HEAD(, inpcb) pk_all = TAILQ_HEAD_INITIALIZER(pk_all);

/* The socket sending now, which does not hear its own frame (core lock). */
static struct inpcb *pk_sender;

static uint8_t
pk_pkttype(const struct netif *nif, const uint8_t *h, bool outgoing)
{
	static const uint8_t bcast[ETH_ALEN] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};

	if (outgoing)
		return PACKET_OUTGOING;
	if (memcmp(h, bcast, ETH_ALEN) == 0)
		return PACKET_BROADCAST;
	if (h[0] & 1)
		return PACKET_MULTICAST;
	return memcmp(h, nif->hwaddr, ETH_ALEN) == 0 ? PACKET_HOST :
	    PACKET_OTHERHOST;
}

void
packet_tap(struct netif *nif, struct pbuf *p, bool outgoing)
{
	uint8_t h[ETH_HLEN];
	struct inpcb *inp;

	if (TAILQ_EMPTY(&pk_all) ||
	    pbuf_copy_partial(p, h, ETH_HLEN, 0) != ETH_HLEN)
		return;
	struct indgram_ll ll = {
		.l_ifindex = netif_get_index(nif),
		.l_pkttype = pk_pkttype(nif, h, outgoing),
	};
	memcpy(&ll.l_proto, h + 2 * ETH_ALEN, sizeof(ll.l_proto));
	memcpy(ll.l_addr, h + ETH_ALEN, ETH_ALEN);
	TAILQ_FOREACH(inp, &pk_all, inp_pklink) {
		if (inp == pk_sender || (inp->inp_pkifindex != 0 &&
		    inp->inp_pkifindex != ll.l_ifindex))
			continue;
		if (inp->inp_pkproto != lwip_htons(ETH_P_ALL) &&
		    (outgoing || inp->inp_pkproto != ll.l_proto))
			continue;
		/* SO_RCVBUF as it is now, not as at the last recv: a frame
		 * is dropped the moment the queue is full (an int read
		 * while the kernel may write it: the old or the new bound). */
		inp->inp_rcvhiwat = __atomic_load_n(
		    &inp->inp_socket->so_rcv.sb_hiwat, __ATOMIC_RELAXED);
		uint16_t off = inp->inp_socket->so_type == SOCK_DGRAM ?
		    ETH_HLEN : 0;
		struct pbuf *q = pbuf_alloc(PBUF_RAW, (u16_t)(p->tot_len - off),
		    PBUF_RAM);
		if (q == NULL)
			continue;	/* as a full queue: this one is lost */
		pbuf_copy_partial(p, q->payload, q->tot_len, off);
		struct indgram *d = inp_dgram_queue(inp, q);
		if (d != NULL) {
			d->d_ll = ll;
			inp_notify(inp, INP_EV_READ);
		}
	}
}

socklen_t
packet_addr_out(const struct indgram_ll *ll, char *addr)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = ll->l_proto,
		.sll_ifindex = ll->l_ifindex,
		.sll_hatype = ARPHRD_ETHER,
		.sll_pkttype = ll->l_pkttype,
		.sll_halen = ETH_ALEN,
	};

	memcpy(sll.sll_addr, ll->l_addr, ETH_ALEN);
	memcpy(addr, &sll, sizeof(sll));
	return sizeof(sll);
}

/*
 * The Ethernet interface of index (core lock held): 0, -ENODEV (none),
 * -EOPNOTSUPP (lo, whose frames lwIP does not make).
 */
static int
pk_netif(int index, struct netif **nifp)
{
	struct netif *nif = index > 0 && index <= 255 ?
	    netif_get_by_index((u8_t)index) : NULL;

	if (nif == NULL)
		return -ENODEV;
	if (if_vke_softc(nif) == NULL) {
		kprintf_ratelimited("packet: interface %d is not Ethernet: "
		    "packet sockets on it not implemented\n", index);
		return -EOPNOTSUPP;
	}
	*nifp = nif;
	return 0;
}

static int
pk_attach(struct socket *so)
{
	struct inpcb *inp = inp_alloc(AF_PACKET, 0);

	if (inp == NULL)
		return -ENOMEM;
	inp->inp_socket = so;
	inp->inp_rcvhiwat = so->so_rcv.sb_hiwat;
	inp->inp_pkproto = (uint16_t)so->so_protocol;
	so->so_pcb = inp;
	LOCK_TCPIP_CORE();
	TAILQ_INSERT_TAIL(&pk_all, inp, inp_pklink);
	UNLOCK_TCPIP_CORE();
	return 0;
}

static void
pk_detach(struct socket *so)
{
	LOCK_TCPIP_CORE();
	TAILQ_REMOVE(&pk_all, sotoinpcb(so), inp_pklink);
	UNLOCK_TCPIP_CORE();
	inp_dgram_detach(so);
}

/* Linux's packet_bind: the interface (0: all) and the protocol (0: kept). */
static int
pk_bind(struct socket *so, const char *addr, socklen_t len, struct proc *p)
{
	struct inpcb *inp = sotoinpcb(so);
	struct sockaddr_ll sll;
	struct netif *nif;
	int error = 0;

	(void)p;
	if (len < sizeof(sll))
		return -EINVAL;
	memcpy(&sll, addr, sizeof(sll));
	if (sll.sll_family != AF_PACKET)
		return -EINVAL;
	LOCK_TCPIP_CORE();
	if (sll.sll_ifindex != 0)
		error = pk_netif(sll.sll_ifindex, &nif);
	if (error == 0) {
		inp->inp_pkifindex = sll.sll_ifindex;
		if (sll.sll_protocol != 0)
			inp->inp_pkproto = sll.sll_protocol;
	}
	UNLOCK_TCPIP_CORE();
	return error;
}

static int
pk_connect(struct socket *so, const char *addr, socklen_t len,
    struct proc *p, bool nonblock)
{
	(void)so, (void)addr, (void)len, (void)p, (void)nonblock;
	return -EOPNOTSUPP;
}

static int
pk_shutdown(struct socket *so, int how)
{
	(void)so, (void)how;
	return -EOPNOTSUPP;
}

/*
 * Linux's packet_snd: to the socket's interface and protocol, or those
 * of the sockaddr_ll given; a SOCK_DGRAM payload gets the header to
 * sll_addr from the interface's address.
 */
static int64_t
pk_send(struct socket *so, struct sockmsg *m, struct proc *p)
{
	struct inpcb *inp = sotoinpcb(so);
	bool dgram = so->so_type == SOCK_DGRAM;
	int index = inp->inp_pkifindex;
	uint16_t proto = inp->inp_pkproto;
	uint8_t dst[ETH_ALEN];
	bool havedst = false;
	uint64_t len = m->sm_uio->uio_resid;
	uint32_t hlen = dgram ? ETH_HLEN : 0;
	struct netif *nif;
	int error;

	(void)p;
	if (m->sm_flags & MSG_OOB)
		return -EOPNOTSUPP;
	if (m->sm_namelen != 0) {
		struct sockaddr_ll sll;
		if (m->sm_namelen < sizeof(sll))
			return -EINVAL;
		memcpy(&sll, m->sm_name, sizeof(sll));
		if (m->sm_namelen < offsetof(struct sockaddr_ll, sll_addr) +
		    sll.sll_halen)
			return -EINVAL;
		index = sll.sll_ifindex;
		proto = sll.sll_protocol;
		if (sll.sll_halen != 0 && sll.sll_halen < ETH_ALEN)
			return -EINVAL;
		if ((havedst = sll.sll_halen != 0))
			memcpy(dst, sll.sll_addr, ETH_ALEN);
	}
	if (dgram && !havedst)
		return -EDESTADDRREQ;
	LOCK_TCPIP_CORE();
	error = pk_netif(index, &nif);
	if (error == -ENODEV)
		error = -ENXIO;		/* Linux's word for a send */
	else if (error == 0 && !netif_is_up(nif))
		error = -ENETDOWN;
	else if (error == 0 && (len > nif->mtu + ETH_HLEN - hlen ||
	    len + hlen > 0xffff))
		error = -EMSGSIZE;
	else if (error == 0 && len + hlen < ETH_HLEN)
		error = -EINVAL;	/* a frame without its header */
	UNLOCK_TCPIP_CORE();
	if (error < 0)
		return error;
	struct pbuf *q = pbuf_alloc(PBUF_RAW, (u16_t)(hlen + len), PBUF_RAM);
	if (q == NULL)
		return -ENOBUFS;
	uint8_t *f = q->payload;
	if ((error = uiomove(f + hlen, len, m->sm_uio)) < 0) {
		pbuf_free(q);
		return error;
	}
	LOCK_TCPIP_CORE();
	if (dgram) {
		memcpy(f, dst, ETH_ALEN);
		memcpy(f + ETH_ALEN, nif->hwaddr, ETH_ALEN);
		memcpy(f + 2 * ETH_ALEN, &proto, sizeof(proto));
	}
	/* The driver's output: ETH_P_ALL sockets hear it go, this one not. */
	pk_sender = inp;
	err_t err = nif->linkoutput(nif, q);
	pk_sender = NULL;
	UNLOCK_TCPIP_CORE();
	pbuf_free(q);
	return err == ERR_OK ? (int64_t)len : -ENOBUFS;
}

/* Linux's packet_getname: the interface's hardware address. */
static int
pk_sockaddr(struct socket *so, char *addr, socklen_t *len)
{
	struct inpcb *inp = sotoinpcb(so);
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = inp->inp_pkproto,
		.sll_ifindex = inp->inp_pkifindex,
	};
	struct netif *nif;

	LOCK_TCPIP_CORE();
	if (inp->inp_pkifindex != 0 &&
	    pk_netif(inp->inp_pkifindex, &nif) == 0) {
		sll.sll_hatype = ARPHRD_ETHER;
		sll.sll_halen = ETH_ALEN;
		memcpy(sll.sll_addr, nif->hwaddr, ETH_ALEN);
	}
	UNLOCK_TCPIP_CORE();
	memcpy(addr, &sll, sizeof(sll));
	*len = (socklen_t)(offsetof(struct sockaddr_ll, sll_addr) +
	    sll.sll_halen);
	return 0;
}

static int
pk_peeraddr(struct socket *so, char *addr, socklen_t *len)
{
	(void)so, (void)addr, (void)len;
	return -EOPNOTSUPP;
}

static int
pk_ctloutput(struct socket *so, bool set, int level, int name, void *val,
    socklen_t *len)
{
	(void)so, (void)val, (void)len;
	if (level == SOL_PACKET)
		kprintf_ratelimited("packet: %ssockopt option %d not "
		    "implemented\n", set ? "set" : "get", name);
	return -ENOPROTOOPT;
}

static const struct pr_usrreqs pk_usrreqs = {
	.pru_attach = pk_attach,
	.pru_detach = pk_detach,
	.pru_bind = pk_bind,
	.pru_connect = pk_connect,
	.pru_shutdown = pk_shutdown,
	.pru_send = pk_send,
	.pru_recv = inp_dgram_recv,
	.pru_sockaddr = pk_sockaddr,
	.pru_peeraddr = pk_peeraddr,
	.pru_poll = inp_dgram_poll,
	.pru_nread = inp_dgram_nread,
	.pru_ctloutput = pk_ctloutput,
};

/*
 * socket(AF_PACKET, type, protocol): Linux's packet_create asks for
 * CAP_NET_RAW before it looks at the type; any protocol is a frame type.
 */
static int
pk_protocol(int type, int protocol)
{
	(void)protocol;
	if (!(curproc->p_ucred->cr_capeff & (1ULL << CAP_NET_RAW)))
		return -EPERM;
	if (type == SOCK_PACKET_)
		kprintf_ratelimited("packet: SOCK_PACKET not implemented\n");
	if (type != SOCK_DGRAM && type != SOCK_RAW)
		return -ESOCKTNOSUPPORT;
	return type;
}

static const struct protosw packetsw[] = {
	{ SOCK_DGRAM, AF_PACKET, 0, PR_ATOMIC, &pk_usrreqs },
	{ SOCK_RAW, AF_PACKET, 0, PR_ATOMIC, &pk_usrreqs },
};

const struct domain packetdomain = {
	AF_PACKET, "packet", packetsw, nitems(packetsw), pk_protocol,
};

/*
 * The glue between vke (dev/vke.h) and lwIP's ethernet layer.
 *
 * Transmit: lwIP calls linkoutput with the core lock held, from its
 * tcpip thread, from a kernel thread sending on a socket, or from a
 * CPU's receive batch; the frame (one pbuf, LWIP_NETIF_TX_SINGLE_PBUF,
 * or a chain) goes to vke_transmit as one vector, with no copy here, or,
 * if bulk and made by a CPU's receive batch, waits with a reference for
 * the tcpip thread to send it.
 *
 * Receive: the interrupt handler, on the CPU, drains the small frames
 * the host has, a batch per interrupt, straight into receive buffers
 * and through ethernet_input under the core lock, wakes the sockets they
 * reached, and re-arms the interrupt; from the first bulk frame on, the
 * burst goes to the tcpip thread (a callback message made once at
 * attach, so posting allocates nothing), BSD's netisr shape, which
 * re-arms when done (ifv_rxready says why).  The buffers are
 * lwIP custom pbufs from a pool made at attach: a frame is read into its
 * final buffer, and freeing it (wherever lwIP or a socket lets it go)
 * puts it back, so the hot path neither copies nor allocates.  When the
 * pool is empty (sockets hold many frames unread) it falls back to
 * lwIP's own pbufs.  The buffers hold a frame of the interface's MTU,
 * the host link's (vke_mtu): 1500, or up to 64 KiB on a tap whose MTU
 * the host raised, where one frame carries a 64 KiB TCP segment.
 *
 * Checksums: over a tap that offloads them, TCP's are the host's to
 * make and to vouch for (ifv_csum_rx, ifv_csum_tx), as with a NIC's
 * offload; a frame nobody vouches for is checked as ever.
 */
#include "lwip/etharp.h"
#include "lwip/ethip6.h"
#include "lwip/inet_chksum.h"
#include "lwip/prot/ip.h"
#include "lwip/netif.h"
#include "lwip/pbuf.h"
#include "lwip/tcpip.h"
#include "netif/ethernet.h"

#include "dev/vke.h"
#include "kern/kernel.h"
#include "kern/kmem.h"
#include "kern/thread.h"
#include "net/if.h"
#include "net/if_packet.h"
#include "net/if_vke.h"
#include "net/inet_lwip.h"

#define IFV_NRXBUF	256	/* receive buffers per interface, at most */
#define IFV_POOLMAX	(4 << 20) /* bytes of them, at most */
#define IFV_BUDGET	64	/* frames per batch */
#define IFV_SMALL	512	/* longest frame a CPU sends or takes in itself */
#define IFV_TXQ		32	/* bulk frames a CPU's batch leaves to send */
#define IFV_BULK_NS	20000000 /* bulk flows: one passed this recently */

struct ifv_rxbuf {
	struct pbuf_custom rb_pc;	/* first: lwIP frees through it */
	struct if_vke *rb_ifv;
	struct ifv_rxbuf *rb_next;
	uint8_t rb_data[] __attribute__((aligned(8)));	/* 2 + ifv_framelen */
};

/* A bulk frame the CPU's batch made, for the tcpip thread to send. */
struct ifv_txframe {
	struct pbuf *tf_p;		/* a reference: lwIP leaves it alone */
	int tf_nseg;
	struct hostnet_seg tf_seg[HOSTNET_MAXSEG];
	struct hostnet_csum tf_cs;
};

/* The fields below ifv_bulkat are the core lock's. */
struct if_vke {
	struct netif ifv_netif;
	struct vke_softc *ifv_sc;
	struct tcpip_callback_msg *ifv_rxmsg;
	struct tcpip_callback_msg *ifv_txmsg;
	struct ifv_rxbuf *ifv_free;	/* atomic: the pool's free list */
	uint32_t ifv_framelen;		/* the longest frame received */
	uint64_t ifv_bulkat;		/* atomic: uptime of the last bulk frame */
	bool ifv_offload;		/* vke_csum_offload: see ifv_csum_rx */
	bool ifv_oncpu;			/* a CPU's batch runs */
	bool ifv_txposted;		/* ifv_txmsg is posted */
	struct pbuf *ifv_held;		/* a bulk frame for the tcpip thread */
	struct hostnet_csum ifv_heldcs;	/* its checksum's state */
	int ifv_ntxq;
	struct ifv_txframe ifv_txq[IFV_TXQ];
};

static struct if_vke *ifv_units[VKE_MAXUNITS];

/*
 * The pool is a lock-free stack: any thread may push (a pbuf is freed
 * wherever its last reference goes), only the receive batch pops, under
 * the core lock, one at a time, so a popped head cannot come back under
 * the pop (no ABA).
 */
static void
ifv_rxbuf_put(struct ifv_rxbuf *rb)
{
	struct if_vke *ifv = rb->rb_ifv;
	struct ifv_rxbuf *head = __atomic_load_n(&ifv->ifv_free, __ATOMIC_RELAXED);
	do
		rb->rb_next = head;
	while (!__atomic_compare_exchange_n(&ifv->ifv_free, &head, rb, true,
	    __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

static struct ifv_rxbuf *
ifv_rxbuf_get(struct if_vke *ifv)
{
	struct ifv_rxbuf *head = __atomic_load_n(&ifv->ifv_free, __ATOMIC_ACQUIRE);
	while (head != NULL && !__atomic_compare_exchange_n(&ifv->ifv_free, &head,
	    head->rb_next, true, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
		;
	return head;
}

static void
ifv_rxbuf_free(struct pbuf *p)
{
	ifv_rxbuf_put((struct ifv_rxbuf *)p);
}

/*
 * Reads one frame into a pbuf (one piece), its checksum state into *cs:
 * NULL when the host has none.
 */
static struct pbuf *
ifv_read(struct if_vke *ifv, struct hostnet_csum *cs)
{
	struct ifv_rxbuf *rb = ifv_rxbuf_get(ifv);
	ssize_t n;

	if (rb != NULL) {
		/* Two bytes ahead, so the IP header behind 14 is aligned. */
		n = vke_receive(ifv->ifv_sc, rb->rb_data + 2, ifv->ifv_framelen, cs);
		if (n <= 0) {
			ifv_rxbuf_put(rb);
			return NULL;
		}
		rb->rb_pc.custom_free_function = ifv_rxbuf_free;
		return pbuf_alloced_custom(PBUF_RAW, (u16_t)n, PBUF_REF, &rb->rb_pc,
		    rb->rb_data + 2, (u16_t)ifv->ifv_framelen);
	}
	struct pbuf *p = pbuf_alloc(PBUF_RAW, (u16_t)ifv->ifv_framelen, PBUF_RAM);
	if (p == NULL) {
		/* No memory at all: take the frame off the host (cut) and drop it. */
		uint8_t frame[VKE_FRAME_MAX];
		n = vke_receive(ifv->ifv_sc, frame, sizeof(frame), cs);
		if (n > 0)
			vke_rxdrop(ifv->ifv_sc);
		return n > 0 ? ifv_read(ifv, cs) : NULL;
	}
	n = vke_receive(ifv->ifv_sc, p->payload, ifv->ifv_framelen, cs);
	if (n <= 0) {
		pbuf_free(p);
		return NULL;
	}
	pbuf_realloc(p, (u16_t)n);
	return p;
}

/* A bulk frame passed, either way. */
static void
ifv_sawbulk(struct if_vke *ifv)
{
	__atomic_store_n(&ifv->ifv_bulkat, nanouptime(), __ATOMIC_RELAXED);
}

/*
 * Checksum offload (vke_csum_offload), TCP only, as a NIC's: lwIP leaves
 * a TCP segment's checksum to the host (IFV_CSUM_DEFAULT: no GEN_TCP;
 * ifv_csum_tx marks the frame) and checks none it is handed for itself
 * with the host's word that it is good or needs none (PARTIAL: made by
 * the host's own stack, for us, never on a wire; VALID).  Every other
 * frame is checked as without offload: a frame for us without the
 * host's word (lwIP's CHECK_TCP on for it), a partial one of another
 * protocol or for another host (finished here first).  Segments lwIP
 * sends itself through its loopback need no checksum either way.
 */
#define IFV_CSUM_DEFAULT \
	(NETIF_CHECKSUM_ENABLE_ALL & ~(NETIF_CHECKSUM_GEN_TCP | NETIF_CHECKSUM_CHECK_TCP))
#define IFV_CSUM_CHECK	(NETIF_CHECKSUM_ENABLE_ALL & ~NETIF_CHECKSUM_GEN_TCP)

/*
 * Where the TCP header of an unfragmented IPv4 or IPv6 (no extension
 * header) frame f of len bytes starts, with its source and destination
 * in *src and *dst: 0 if f is not one.
 */
static size_t
ifv_tcp_at(const uint8_t *f, size_t len, ip_addr_t *src, ip_addr_t *dst)
{
	if (len < SIZEOF_ETH_HDR + 20)
		return 0;
	const uint8_t *ip = f + SIZEOF_ETH_HDR;
	uint16_t type = (uint16_t)(f[12] << 8 | f[13]);
	size_t hl;
	if (type == ETHTYPE_IP && (ip[0] >> 4) == 4) {
		hl = (size_t)(ip[0] & 0xf) * 4;
		/* No fragment: MF clear and offset 0. */
		if (hl < 20 || ip[9] != IP_PROTO_TCP || (ip[6] & 0x3f) != 0 || ip[7] != 0)
			return 0;
		ip4_addr_t a4;
		memcpy(&a4, ip + 12, 4);	/* a frame of lwIP's own pbufs may be unaligned */
		ip_addr_copy_from_ip4(*src, a4);
		memcpy(&a4, ip + 16, 4);
		ip_addr_copy_from_ip4(*dst, a4);
	} else if (type == ETHTYPE_IPV6 && (ip[0] >> 4) == 6 && len >= SIZEOF_ETH_HDR + 40) {
		hl = 40;
		if (ip[6] != IP_PROTO_TCP)
			return 0;
		ip_addr_copy_from_ip6_packed(*src, *(const ip6_addr_p_t *)(ip + 8));
		ip_addr_copy_from_ip6_packed(*dst, *(const ip6_addr_p_t *)(ip + 24));
	} else
		return 0;
	return len >= SIZEOF_ETH_HDR + hl + 20 ? SIZEOF_ETH_HDR + hl : 0;
}

/* True if a is one of nif's addresses (any of the stack's, if nif is NULL). */
static bool
ifv_ours(struct netif *nif, const ip_addr_t *a)
{
	struct netif *n;

	NETIF_FOREACH(n) {
		if (nif != NULL && n != nif)
			continue;
		if (IP_IS_V4(a) ? ip4_addr_cmp(netif_ip4_addr(n), ip_2_ip4(a)) :
		    netif_get_ip6_addr_match(n, ip_2_ip6(a)) >= 0)
			return true;
	}
	return false;
}

/*
 * Before a received frame goes in: the checksum flags lwIP takes it
 * with, the frame's partial checksum finished if it must be; -1 if a
 * partial checksum points past the frame (it is dropped).
 */
static int
ifv_csum_rx(struct if_vke *ifv, struct pbuf *p, const struct hostnet_csum *cs)
{
	uint8_t *f = p->payload;
	ip_addr_t src, dst;

	if (cs->hc_flags == 0)
		return IFV_CSUM_CHECK;
	size_t th = ifv_tcp_at(f, p->len, &src, &dst);
	if (th != 0 && ifv_ours(&ifv->ifv_netif, &dst) &&
	    (cs->hc_flags & HOSTNET_CSUM_VALID ||
	    (cs->hc_start == th && cs->hc_offset == 16)))
		return IFV_CSUM_DEFAULT;
	if (!(cs->hc_flags & HOSTNET_CSUM_PARTIAL))
		return IFV_CSUM_CHECK;
	/* Finish it, as the host would have for a wire. */
	size_t start = cs->hc_start, at = start + cs->hc_offset;
	if (p->len != p->tot_len || start >= p->len || at + 2 > p->len)
		return -1;
	uint16_t sum = (uint16_t)~inet_cksum(f + start, (int)(p->len - start));
	if (sum == 0 && cs->hc_offset == 6)
		sum = 0xffff;	/* UDP's: 0 would say "none" */
	memcpy(f + at, &sum, 2);
	return IFV_CSUM_CHECK;
}

/*
 * A frame about to go: a TCP segment lwIP made here for the host, its
 * checksum 0 (lwIP's, no GEN_TCP), gets the pseudo-header's sum and
 * goes partial; anything else (forwarded, another protocol) as it is.
 */
static void
ifv_csum_tx(struct pbuf *p, struct hostnet_csum *cs)
{
	uint8_t *f = p->payload, *ip = f + SIZEOF_ETH_HDR;
	ip_addr_t src, dst;
	uint8_t ph[40];
	uint16_t zero = 0, sum;

	cs->hc_flags = 0;
	size_t th = ifv_tcp_at(f, p->len, &src, &dst);
	if (th == 0 || memcmp(f + th + 16, &zero, 2) != 0 || !ifv_ours(NULL, &src))
		return;
	/* The segment's length as its IP header says it. */
	size_t iplen = IP_IS_V4(&src) ? (size_t)(ip[2] << 8 | ip[3]) :
	    40 + (size_t)(ip[4] << 8 | ip[5]);
	if (SIZEOF_ETH_HDR + iplen < th + 20 || SIZEOF_ETH_HDR + iplen != p->tot_len)
		return;
	size_t tcplen = SIZEOF_ETH_HDR + iplen - th;
	if (IP_IS_V4(&src)) {
		memcpy(ph, ip + 12, 8);
		ph[8] = 0;
		ph[9] = IP_PROTO_TCP;
		ph[10] = (uint8_t)(tcplen >> 8);
		ph[11] = (uint8_t)tcplen;
		sum = inet_cksum(ph, 12);
	} else {
		memcpy(ph, ip + 8, 32);
		sum = inet_cksum(ph, 32);
		uint8_t tail[8] = { (uint8_t)(tcplen >> 24), (uint8_t)(tcplen >> 16),
		    (uint8_t)(tcplen >> 8), (uint8_t)tcplen, 0, 0, 0, IP_PROTO_TCP };
		uint32_t acc = (uint32_t)sum + inet_cksum(tail, 8);
		sum = (uint16_t)((acc & 0xffff) + (acc >> 16));
	}
	memcpy(f + th + 16, &sum, 2);
	cs->hc_flags = HOSTNET_CSUM_PARTIAL;
	cs->hc_start = (uint16_t)th;
	cs->hc_offset = 16;
}

static void
ifv_input(struct if_vke *ifv, struct pbuf *p, const struct hostnet_csum *cs)
{
	struct netif *nif = &ifv->ifv_netif;

	packet_tap(nif, p, false);
	if (ifv->ifv_offload) {
		int flags = ifv_csum_rx(ifv, p, cs);
		if (flags < 0) {
			pbuf_free(p);
			vke_rxdrop(ifv->ifv_sc);
			return;
		}
		NETIF_SET_CHECKSUM_CTRL(nif, (u16_t)flags);
	}
	if (ethernet_input(p, nif) != ERR_OK)
		pbuf_free(p);
	if (ifv->ifv_offload)
		NETIF_SET_CHECKSUM_CTRL(nif, IFV_CSUM_DEFAULT);
}

/*
 * Takes in up to a budget of frames, with the core lock held: true if
 * frames are left for the tcpip thread.  On a CPU (oncpu) only small
 * frames are taken in: the first bulk one is held for the tcpip thread
 * with the rest of the burst.
 */
static bool
ifv_drain(struct if_vke *ifv, bool oncpu)
{
	struct hostnet_csum cs;

	if (ifv->ifv_held != NULL) {
		ifv_input(ifv, ifv->ifv_held, &ifv->ifv_heldcs);
		ifv->ifv_held = NULL;
	}
	for (int i = 0; i < IFV_BUDGET; i++) {
		struct pbuf *p = ifv_read(ifv, &cs);
		if (p == NULL)
			return false;
		if (p->tot_len > IFV_SMALL) {
			ifv_sawbulk(ifv);
			if (oncpu) {
				ifv->ifv_held = p;
				ifv->ifv_heldcs = cs;
				return true;
			}
		}
		ifv_input(ifv, p, &cs);
	}
	return true;
}

/*
 * After a batch: a burst's rest goes to the tcpip thread, which runs
 * beside the CPU (the guest's sockets, lwIP's timers and this CPU's
 * guests are not held up behind it); else the interrupt is re-armed.
 */
static void
ifv_next(struct if_vke *ifv, bool more)
{
	if (more && tcpip_callbackmsg_trycallback(ifv->ifv_rxmsg) == ERR_OK)
		return;
	if (ifv->ifv_held != NULL) {
		/* The stack's mailbox is full: a frame lost, as on a wire. */
		LOCK_TCPIP_CORE();
		pbuf_free(ifv->ifv_held);
		ifv->ifv_held = NULL;
		UNLOCK_TCPIP_CORE();
		vke_rxdrop(ifv->ifv_sc);
	}
	vke_rxdone(ifv->ifv_sc);
}

/*
 * A burst's rest, or a whole batch while bulk flows, on the tcpip thread
 * with the core lock held.
 */
static void
ifv_rx(void *arg)
{
	struct if_vke *ifv = arg;

	ifv_next(ifv, ifv_drain(ifv, false));
}

/* Sends the bulk frames a CPU's batch left (the core lock held). */
static void
ifv_txflush(struct if_vke *ifv)
{
	for (int i = 0; i < ifv->ifv_ntxq; i++) {
		struct ifv_txframe *tf = &ifv->ifv_txq[i];
		(void)vke_transmit(ifv->ifv_sc, tf->tf_seg, tf->tf_nseg, &tf->tf_cs);
		pbuf_free(tf->tf_p);
	}
	ifv->ifv_ntxq = 0;
}

/* ifv_txflush on the tcpip thread, with the core lock held. */
static void
ifv_tx(void *arg)
{
	struct if_vke *ifv = arg;

	ifv->ifv_txposted = false;
	ifv_txflush(ifv);
}

/*
 * The interrupt: frames wait.  On a CPU, with the big lock.  Small
 * frames (a request, an answer, an ACK) are taken in right here under
 * the core lock (held only while lwIP runs, as a system call holds it),
 * and the sockets they made ready are woken before the interrupt
 * returns: such a frame reaches its reader with no hand-off to the
 * tcpip thread and back (each a host wake-up, tens of microseconds on a
 * loaded host).  Bulk work stays on the tcpip thread, beside the CPU
 * that copies to and from the guests: bulk frames received (their read,
 * their checksum) and bulk frames the batch makes lwIP send (an ACK
 * that opens the window makes TCP send its queue: each writev of 64 KiB
 * runs the host's receive path).  While bulk flows (a bulk frame passed
 * either way in the last IFV_BULK_NS), every batch is the tcpip
 * thread's and the CPU only hands it on: a bulk sender's ACKs make
 * lwIP send, and a flow that went back and forth between the two paths
 * would queue the sender's own frames behind the tcpip thread's.  The
 * source is one-shot, so until ifv_next re-arms it no other interrupt or
 * batch runs.
 */
static void
ifv_rxready(void *arg)
{
	struct if_vke *ifv = arg;

	if ((int64_t)(nanouptime() - __atomic_load_n(&ifv->ifv_bulkat,
	    __ATOMIC_RELAXED)) < IFV_BULK_NS) {
		ifv_next(ifv, true);
		return;
	}
	LOCK_TCPIP_CORE();
	ifv->ifv_oncpu = true;
	bool more = ifv_drain(ifv, true);
	ifv->ifv_oncpu = false;
	if (ifv->ifv_ntxq > 0 && !ifv->ifv_txposted) {
		if (tcpip_callbackmsg_trycallback(ifv->ifv_txmsg) == ERR_OK)
			ifv->ifv_txposted = true;
		else
			ifv_txflush(ifv);	/* the mailbox is full: here */
	}
	UNLOCK_TCPIP_CORE();
	ifv_next(ifv, more);
	inet_lwip_deliver();
}

static err_t
ifv_linkoutput(struct netif *nif, struct pbuf *p)
{
	struct if_vke *ifv = nif->state;
	struct hostnet_seg seg[HOSTNET_MAXSEG];
	struct hostnet_csum cs = { .hc_flags = 0 };
	int n = 0;

	if (ifv->ifv_offload)
		ifv_csum_tx(p, &cs);
	for (struct pbuf *q = p; q != NULL && q->len > 0; q = q->next) {
		if (n == HOSTNET_MAXSEG)
			return ERR_MEM;
		seg[n].hs_base = q->payload;
		seg[n++].hs_len = q->len;
	}
	packet_tap(nif, p, true);
	if (p->tot_len > IFV_SMALL)
		ifv_sawbulk(ifv);
	/*
	 * A CPU's receive batch leaves bulk frames to the tcpip thread, and
	 * then every frame after them, in order; so does any sender while
	 * some wait (lwIP sends nothing again that the queue references).
	 */
	if ((ifv->ifv_oncpu && p->tot_len > IFV_SMALL) || ifv->ifv_ntxq > 0) {
		if (ifv->ifv_ntxq == IFV_TXQ)
			ifv_txflush(ifv);
		struct ifv_txframe *tf = &ifv->ifv_txq[ifv->ifv_ntxq++];
		pbuf_ref(p);
		tf->tf_p = p;
		tf->tf_nseg = n;
		memcpy(tf->tf_seg, seg, (size_t)n * sizeof(seg[0]));
		tf->tf_cs = cs;
		return ERR_OK;
	}
	/* A frame the host refuses is counted and lost, as on a wire. */
	(void)vke_transmit(ifv->ifv_sc, seg, n, &cs);
	return ERR_OK;
}

/* /proc/net/dev's figures: the driver's counters. */
static void
ifv_counts(struct netif *nif, uint64_t *rxpackets, uint64_t *rxbytes,
    uint64_t *txpackets, uint64_t *txbytes)
{
	struct vke_stats st;

	vke_getstats(((struct if_vke *)nif->state)->ifv_sc, &st);
	*rxpackets = st.rx_packets;
	*rxbytes = st.rx_bytes;
	*txpackets = st.tx_packets;
	*txbytes = st.tx_bytes;
}

static err_t
ifv_init(struct netif *nif)
{
	struct if_vke *ifv = nif->state;

	nif->name[0] = 'v';
	nif->name[1] = 'e';
	nif->hwaddr_len = ETH_HWADDR_LEN;
	memcpy(nif->hwaddr, vke_macaddr(ifv->ifv_sc), ETH_HWADDR_LEN);
	nif->mtu = (u16_t)vke_mtu(ifv->ifv_sc);
	nif->flags = NETIF_FLAG_BROADCAST | NETIF_FLAG_ETHARP |
	    NETIF_FLAG_ETHERNET | NETIF_FLAG_IGMP | NETIF_FLAG_MLD6;
	nif->output = etharp_output;
	nif->output_ip6 = ethip6_output;
	nif->linkoutput = ifv_linkoutput;
	return ERR_OK;
}

/* One interface: its pool, its netif (with the core lock), its interrupt. */
static int
ifv_attach_unit(struct vke_softc *sc, int unit, bool *have_default)
{
	struct if_vke *ifv = kmalloc(sizeof(*ifv), KM_ZERO);
	if (ifv == NULL)
		return -ENOMEM;
	ifv->ifv_sc = sc;
	ifv->ifv_framelen = VKE_FRAMELEN(vke_mtu(sc));
	size_t rbsize = sizeof(struct ifv_rxbuf) + 2 + ifv->ifv_framelen;
	int nrxbuf = (int)MIN(IFV_NRXBUF, IFV_POOLMAX / rbsize);
	for (int i = 0; i < nrxbuf; i++) {
		struct ifv_rxbuf *rb = kmalloc(rbsize, 0);
		if (rb == NULL)
			break;	/* a smaller pool; lwIP's pbufs make up */
		rb->rb_ifv = ifv;
		ifv_rxbuf_put(rb);
	}
	ifv->ifv_rxmsg = tcpip_callbackmsg_new(ifv_rx, ifv);
	ifv->ifv_txmsg = tcpip_callbackmsg_new(ifv_tx, ifv);
	if (ifv->ifv_rxmsg == NULL || ifv->ifv_txmsg == NULL)
		return -ENOMEM;

	const struct vke_ifconfig *c = vke_ifconfig(sc);
	ip4_addr_t addr, mask, gw;
	ip4_addr_set_u32(&addr, c->addr);
	ip4_addr_set_u32(&mask, c->mask);
	ip4_addr_set_u32(&gw, c->gw);
	LOCK_TCPIP_CORE();
	struct netif *nif = netif_add(&ifv->ifv_netif, &addr, &mask, &gw, ifv,
	    ifv_init, ethernet_input);
	if (nif != NULL) {
		ifv->ifv_offload = vke_csum_offload(sc);
		if (ifv->ifv_offload)
			NETIF_SET_CHECKSUM_CTRL(nif, IFV_CSUM_DEFAULT);
		if_setname(nif, vke_name(sc));
		inet_if_setcounts(nif, ifv_counts);
		netif_create_ip6_linklocal_address(nif, 1);
		netif_set_up(nif);
		netif_set_link_up(nif);
		if (c->gw != 0 && !*have_default) {
			netif_set_default(nif);
			*have_default = true;
		}
	}
	UNLOCK_TCPIP_CORE();
	if (nif == NULL)
		return -ENOMEM;
	ifv_units[unit] = ifv;
	return vke_start(sc, ifv_rxready, ifv);
}

int
if_vke_attach(void)
{
	bool have_default = false;

	if (vke_count() == 0)
		return 0;
	int error = inet_lwip_start();
	for (int i = 0; error == 0 && i < vke_count(); i++) {
		error = ifv_attach_unit(vke_unit(i), i, &have_default);
		if (error < 0)
			kprintf("%s: cannot attach to the stack (%d)\n",
			    vke_name(vke_unit(i)), error);
	}
	return error;
}

struct vke_softc *
if_vke_softc(const struct netif *nif)
{
	for (int i = 0; i < VKE_MAXUNITS; i++)
		if (ifv_units[i] != NULL && &ifv_units[i]->ifv_netif == nif)
			return ifv_units[i]->ifv_sc;
	return NULL;
}

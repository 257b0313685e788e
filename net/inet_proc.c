/*
 * /proc/net's files over lwIP's state (see if.h): the interfaces and
 * their counters, the routes lwIP has (each subnet and the default), the
 * IPv6 addresses, the TCP and UDP pcbs, and the AF_UNIX sockets, in
 * Linux's formats, which netstat, ss's fallback and busybox parse.  Each file is made whole
 * under the core lock into a kernel buffer that procfs serves.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lwip/netif.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/tcpip.h"
#include "lwip/udp.h"

#include "kern/kernel.h"
#include "kern/kmem.h"
#include "net/if.h"
#include "net/inet_lwip.h"
#include "net/inet_pcb.h"
#include "net/un.h"

struct pbuf_text {
	char *buf;
	size_t len, cap;
	bool nomem;
};

static void __attribute__((format(printf, 2, 3)))
text_printf(struct pbuf_text *t, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		size_t room = t->cap - t->len;
		va_start(ap, fmt);
		int n = t->buf != NULL ? vsnprintf(t->buf + t->len, room, fmt, ap) : -1;
		va_end(ap);
		if (n >= 0 && (size_t)n < room) {
			t->len += (size_t)n;
			return;
		}
		size_t cap = t->cap == 0 ? 4096 : t->cap * 2;
		char *nb = kmalloc(cap, 0);
		if (nb == NULL) {
			t->nomem = true;
			return;
		}
		if (t->buf != NULL)
			memcpy(nb, t->buf, t->len);
		kfree(t->buf);
		t->buf = nb;
		t->cap = cap;
	}
}

/* Linux pads these tables' lines to a fixed width. */
static void
text_pad(struct pbuf_text *t, size_t start, size_t width)
{
	size_t n = t->len - start;
	if (n < width)
		text_printf(t, "%*s", (int)(width - n), "");
	text_printf(t, "\n");
}

static void
proc_dev(struct pbuf_text *t)
{
	struct netif *nif;
	char name[IFNAMSIZ];

	text_printf(t, "Inter-|   Receive                            "
	    "                    |  Transmit\n"
	    " face |bytes    packets errs drop fifo frame compressed multicast|"
	    "bytes    packets errs drop fifo colls carrier compressed\n");
	NETIF_FOREACH(nif) {
		uint64_t rxp = 0, rxb = 0, txp = 0, txb = 0;
		if_name(nif, name);
		inet_if_counts(nif, &rxp, &rxb, &txp, &txb);
		text_printf(t, "%6s: %7llu %7llu %4u %4u %4u %5u %10u %9u "
		    "%8llu %7llu %4u %4u %4u %5u %7u %10u\n", name,
		    (unsigned long long)rxb, (unsigned long long)rxp, 0, 0, 0, 0, 0,
		    0, (unsigned long long)txb, (unsigned long long)txp, 0, 0, 0, 0,
		    0, 0);
	}
}

static void
proc_route(struct pbuf_text *t)
{
	struct netif *nif;
	char name[IFNAMSIZ];
	size_t s = t->len;

	text_printf(t, "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\t"
	    "Mask\t\tMTU\tWindow\tIRTT");
	text_pad(t, s, 127);
	NETIF_FOREACH(nif) {
		uint32_t a = ip4_addr_get_u32(netif_ip4_addr(nif));
		uint32_t m = ip4_addr_get_u32(netif_ip4_netmask(nif));
		uint32_t gw = ip4_addr_get_u32(netif_ip4_gw(nif));
		if (nif == inet_lwip_loif() || a == 0 || !netif_is_up(nif))
			continue;
		if_name(nif, name);
		if (nif == netif_default) {
			s = t->len;
			text_printf(t, "%s\t%08X\t%08X\t%04X\t%d\t%u\t%d\t%08X\t%d\t%u\t%u",
			    name, 0u, gw, gw != 0 ? 0x3u : 0x1u, 0, 0u, 0, 0u, 0, 0u, 0u);
			text_pad(t, s, 127);
		}
		s = t->len;
		text_printf(t, "%s\t%08X\t%08X\t%04X\t%d\t%u\t%d\t%08X\t%d\t%u\t%u",
		    name, a & m, 0u, 0x1u, 0, 0u, 0, m, 0, 0u, 0u);
		text_pad(t, s, 127);
	}
}

static void
proc_if_inet6(struct pbuf_text *t)
{
	struct netif *nif;
	char name[IFNAMSIZ];

	NETIF_FOREACH(nif) {
		if_name(nif, name);
		for (int i = 0; i < LWIP_IPV6_NUM_ADDRESSES; i++) {
			if (!ip6_addr_isvalid(netif_ip6_addr_state(nif, i)))
				continue;
			const ip6_addr_t *a = netif_ip6_addr(nif, i);
			int scope = ip6_addr_isloopback(a) ? 0x10 :
			    ip6_addr_islinklocal(a) ? 0x20 : 0;
			for (int w = 0; w < 4; w++)
				text_printf(t, "%08x", lwip_ntohl(a->addr[w]));
			text_printf(t, " %02x %02x %02x %02x %8s\n",
			    netif_get_index(nif), ip6_addr_isloopback(a) ? 128 : 64,
			    scope, 0x80, name);
		}
	}
}

/* The socket behind a pcb's callback argument: its uid and inode. */
static void
pcb_owner(void *arg, unsigned *uid, unsigned long *ino)
{
	struct inpcb *inp = arg;
	*uid = 0;
	*ino = 0;
	if (inp != NULL && inp->inp_socket != NULL) {
		*uid = inp->inp_socket->so_uid;
		*ino = (unsigned long)inp->inp_socket->so_ino;
	}
}

/* Whether a pcb of address ip and owner arg belongs in the IPv6 table. */
static bool
pcb_v6(void *arg, const ip_addr_t *ip)
{
	struct inpcb *inp = arg;
	if (inp != NULL)
		return inp->inp_family == AF_INET6;
	return !IP_IS_V4(ip);
}

static void
addr_hex(struct pbuf_text *t, bool v6, const ip_addr_t *ip, uint16_t port)
{
	if (!v6) {
		text_printf(t, "%08X:%04X", IP_IS_V4(ip) ?
		    ip4_addr_get_u32(ip_2_ip4(ip)) : 0u, port);
		return;
	}
	uint32_t w[4] = { 0, 0, 0, 0 };
	if (IP_IS_V4(ip)) {
		w[2] = lwip_htonl(0xffff);
		w[3] = ip4_addr_get_u32(ip_2_ip4(ip));
	} else if (IP_IS_V6(ip)) {
		memcpy(w, ip_2_ip6(ip)->addr, sizeof(w));
	}
	text_printf(t, "%08X%08X%08X%08X:%04X", w[0], w[1], w[2], w[3], port);
}

/* Linux's TCP_* state numbers of lwIP's. */
static int
tcp_linux_state(enum tcp_state s)
{
	static const int map[] = {
		[CLOSED] = 7, [LISTEN] = 10, [SYN_SENT] = 2, [SYN_RCVD] = 3,
		[ESTABLISHED] = 1, [FIN_WAIT_1] = 4, [FIN_WAIT_2] = 5,
		[CLOSE_WAIT] = 8, [CLOSING] = 11, [LAST_ACK] = 9, [TIME_WAIT] = 6,
	};
	return (unsigned)s < nitems(map) ? map[s] : 7;
}

static void
tcp_line(struct pbuf_text *t, bool v6, int *sl, struct tcp_pcb *pcb,
    bool listen)
{
	unsigned uid;
	unsigned long ino;
	const ip_addr_t *remote = listen ? IP_ANY_TYPE : &pcb->remote_ip;

	if (pcb_v6(pcb->callback_arg, &pcb->local_ip) != v6)
		return;
	pcb_owner(pcb->callback_arg, &uid, &ino);
	/* An accepted connection's callback argument is its own inpcb;
	 * one still in the handshake has its listener's. */
	if (!listen && pcb->state == SYN_RCVD)
		uid = 0, ino = 0;
	size_t s = t->len;
	text_printf(t, "%4d: ", (*sl)++);
	addr_hex(t, v6, &pcb->local_ip, pcb->local_port);
	text_printf(t, " ");
	addr_hex(t, v6, remote, listen ? 0 : pcb->remote_port);
	uint32_t txq = listen ? 0 : (uint32_t)(TCP_SND_BUF - pcb->snd_buf);
	struct inpcb *inp = pcb->callback_arg;
	uint32_t rxq = !listen && inp != NULL && inp->inp_pcb.tcp == pcb ?
	    inp->inp_rcvcc : 0;
	text_printf(t, " %02X %08X:%08X %02X:%08lX %08X %5u %8d %lu %d %016lx "
	    "%lu %lu %u %u %d", tcp_linux_state(pcb->state), txq, rxq, 0, 0ul, 0,
	    uid, 0, ino, 1, 0ul, 20ul, 4ul, 10u, 10u, -1);
	if (!v6)
		text_pad(t, s, 149);
	else
		text_printf(t, "\n");
}

static void
proc_tcp(struct pbuf_text *t, bool v6)
{
	int sl = 0;
	size_t s = t->len;

	if (v6)
		text_printf(t, "  sl  local_address                         "
		    "remote_address                        st tx_queue rx_queue tr "
		    "tm->when retrnsmt   uid  timeout inode\n");
	else {
		text_printf(t, "  sl  local_address rem_address   st tx_queue "
		    "rx_queue tr tm->when retrnsmt   uid  timeout inode");
		text_pad(t, s, 149);
	}
	for (struct tcp_pcb_listen *l = tcp_listen_pcbs.listen_pcbs; l != NULL;
	    l = l->next)
		tcp_line(t, v6, &sl, (struct tcp_pcb *)l, true);
	for (struct tcp_pcb *pcb = tcp_active_pcbs; pcb != NULL; pcb = pcb->next)
		tcp_line(t, v6, &sl, pcb, false);
	for (struct tcp_pcb *pcb = tcp_tw_pcbs; pcb != NULL; pcb = pcb->next)
		tcp_line(t, v6, &sl, pcb, false);
}

static void
dgram_header(struct pbuf_text *t, bool v6)
{
	size_t s = t->len;

	text_printf(t, "   sl  local_address rem_address   st tx_queue rx_queue tr "
	    "tm->when retrnsmt   uid  timeout inode ref pointer drops");
	if (!v6)
		text_pad(t, s, 127);
	else
		text_printf(t, "\n");
}

/* One datagram socket's line of udp, raw or icmp (and their 6). */
static void
dgram_line(struct pbuf_text *t, bool v6, int sl, struct inpcb *inp,
    const ip_addr_t *laddr, uint16_t lport, const ip_addr_t *raddr,
    uint16_t rport)
{
	size_t s = t->len;
	unsigned uid;
	unsigned long ino;

	pcb_owner(inp, &uid, &ino);
	text_printf(t, "%5d: ", sl);
	addr_hex(t, v6, laddr, lport);
	text_printf(t, " ");
	addr_hex(t, v6, raddr != NULL ? raddr : IP_ANY_TYPE, rport);
	text_printf(t, " %02X %08X:%08X %02X:%08lX %08X %5u %8d %lu %d "
	    "%016lx %u", raddr != NULL ? 1 : 7, 0u,
	    inp != NULL ? inp->inp_dgcc : 0u, 0, 0ul, 0, uid, 0, ino, 2, 0ul, 0u);
	if (!v6)
		text_pad(t, s, 127);
	else
		text_printf(t, "\n");
}

static void
proc_udp(struct pbuf_text *t, bool v6)
{
	int sl = 0;

	dgram_header(t, v6);
	for (struct udp_pcb *pcb = udp_pcbs; pcb != NULL; pcb = pcb->next) {
		if (pcb_v6(pcb->recv_arg, &pcb->local_ip) != v6)
			continue;
		bool conn = (pcb->flags & UDP_FLAGS_CONNECTED) != 0;
		dgram_line(t, v6, sl++, pcb->recv_arg, &pcb->local_ip,
		    pcb->local_port, conn ? &pcb->remote_ip : NULL,
		    conn ? pcb->remote_port : 0);
	}
}

/* Raw sockets (port: the protocol) or ping sockets (port: the echo
 * identifier) of one family. */
static void
proc_rip(struct pbuf_text *t, bool v6, bool ping)
{
	struct inpcb *inp;
	int sl = 0;

	dgram_header(t, v6);
	TAILQ_FOREACH(inp, &rip_all, inp_riplink) {
		if ((inp->inp_family == AF_INET6) != v6 || inp->inp_ping != ping)
			continue;
		struct raw_pcb *pcb = inp->inp_pcb.raw;
		bool conn = inp->inp_state == INP_CONNECTED;
		dgram_line(t, v6, sl++, inp, &pcb->local_ip,
		    ping ? inp->inp_ident : (uint16_t)inp->inp_proto,
		    conn ? &pcb->remote_ip : NULL, 0);
	}
}

/* AF_UNIX sockets, as Linux's unix_seq_show (kernel addresses hidden). */
static void
proc_unix(struct pbuf_text *t)
{
	struct unpcb *unp;

	text_printf(t, "Num       RefCount Protocol Flags    Type St Inode Path\n");
	TAILQ_FOREACH(unp, &unp_all, unp_alllink) {
		struct socket *so = unp->unp_socket;
		bool listening = (so->so_state & SS_ISLISTENING) != 0;
		int st = listening ? 1 : unp->unp_listener != NULL ? 2 :
		    (so->so_state & SS_ISCONNECTED) ? 3 : 1;
		text_printf(t, "%016lx: %08X %08X %08X %04X %02X %5lu", 0ul,
		    (unsigned)so->so_refs, 0u, listening ? 0x10000u : 0u,
		    (unsigned)so->so_type, (unsigned)st, (unsigned long)so->so_ino);
		if (unp->unp_addrlen > sizeof(uint16_t)) {
			const char *path = unp->unp_addr + sizeof(uint16_t);
			size_t n = unp->unp_addrlen - sizeof(uint16_t);
			text_printf(t, " ");
			if (path[0] == 0) {
				for (size_t i = 0; i < n; i++)
					text_printf(t, "%c", path[i] != 0 ? path[i] : '@');
			} else {
				text_printf(t, "%.*s", (int)strnlen(path, n), path);
			}
		}
		text_printf(t, "\n");
	}
}

char *
inet_proc_text(enum inet_procfile which, size_t *len)
{
	struct pbuf_text t = { 0 };

	LOCK_TCPIP_CORE();
	switch (which) {
	case INET_PROC_DEV:	proc_dev(&t); break;
	case INET_PROC_ROUTE:	proc_route(&t); break;
	case INET_PROC_IF_INET6: proc_if_inet6(&t); break;
	case INET_PROC_TCP:	proc_tcp(&t, false); break;
	case INET_PROC_TCP6:	proc_tcp(&t, true); break;
	case INET_PROC_UDP:	proc_udp(&t, false); break;
	case INET_PROC_UDP6:	proc_udp(&t, true); break;
	case INET_PROC_UNIX:	proc_unix(&t); break;
	case INET_PROC_RAW:	proc_rip(&t, false, false); break;
	case INET_PROC_RAW6:	proc_rip(&t, true, false); break;
	case INET_PROC_ICMP:	proc_rip(&t, false, true); break;
	case INET_PROC_ICMP6:	proc_rip(&t, true, true); break;
	}
	UNLOCK_TCPIP_CORE();
	if (t.nomem) {
		kfree(t.buf);
		return NULL;
	}
	if (t.buf == NULL)
		t.buf = kmalloc(1, 0);
	*len = t.len;
	return t.buf;
}

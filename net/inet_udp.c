/*
 * UDP sockets over lwIP's raw API (see inet_pcb.h for who runs what).
 * Datagrams received wait on the inpcb's datagram queue (inet_dgram.c);
 * a datagram sent is copied from the guest into one pbuf and given to
 * udp_sendto under the core lock.
 */
#include <errno.h>
#include <string.h>

#include "lwip/mem.h"
#include "lwip/tcpip.h"

#include "kern/kernel.h"
#include "kern/proc.h"
#include "kern/thread.h"
#include "kern/ucred.h"
#include "kern/uio.h"
#include "net/inet_lwip.h"
#include "net/inet_pcb.h"

#define UDP_MAX4	65507		/* 65535 - IPv4 and UDP headers */
#define UDP_MAX6	65527		/* 65535 - UDP header (jumbograms aside) */
#define UDP_LWIP6	65487		/* lwIP's 16-bit pbuf length counts the
					 * IPv6 header too: 65535 - 40 - 8 */

/* lwIP's input (tcpip thread or a CPU), core lock held. */
static void
udp_recv_cb(void *arg, struct udp_pcb *pcb, struct pbuf *p,
    const ip_addr_t *addr, u16_t port)
{
	(void)pcb;
	inp_dgram_enqueue(arg, p, addr, port, inp_input_ttl());
}

void
udp_ctlinput(const ip_addr_t *src, uint16_t sport, const ip_addr_t *dst,
    uint16_t dport, int error)
{
	for (struct udp_pcb *pcb = udp_pcbs; pcb != NULL; pcb = pcb->next) {
		if (pcb->recv != udp_recv_cb ||
		    !(pcb->flags & UDP_FLAGS_CONNECTED) ||
		    pcb->local_port != sport || pcb->remote_port != dport ||
		    !ip_addr_cmp_zoneless(&pcb->remote_ip, dst) ||
		    !(ip_addr_isany(&pcb->local_ip) ||
		    ip_addr_cmp_zoneless(&pcb->local_ip, src)))
			continue;
		struct inpcb *inp = pcb->recv_arg;
		inp->inp_error = error;
		inp_notify(inp, INP_EV_READ | INP_EV_WRITE);
	}
}

/* inp's pcb, made if it has none (core lock): 0 or -ENOMEM. */
static int
udp_ensure(struct inpcb *inp)
{
	if (inp->inp_pcb.udp != NULL)
		return 0;
	struct udp_pcb *pcb = udp_new_ip_type(inp_iptype(inp));
	if (pcb == NULL)
		return -ENOMEM;
	inp->inp_pcb.udp = pcb;
	if (inp->inp_ttl != 0)
		pcb->ttl = (u8_t)inp->inp_ttl;
	pcb->tos = (u8_t)inp->inp_tos;
	udp_recv(pcb, udp_recv_cb, inp);
	return 0;
}

static int
udp_attach(struct socket *so)
{
	struct inpcb *inp = inp_alloc(so->so_family, IPPROTO_UDP);
	if (inp == NULL)
		return -ENOMEM;
	inp->inp_socket = so;
	inp->inp_rcvhiwat = so->so_rcv.sb_hiwat;
	so->so_pcb = inp;
	return 0;
}

static int
udp_bind1(struct socket *so, const char *addr, socklen_t len, struct proc *p)
{
	struct inpcb *inp = sotoinpcb(so);
	ip_addr_t ip;
	uint16_t port;

	int error = inp_bind_addr(so, addr, len, p, &ip, &port);
	if (error < 0)
		return error;
	LOCK_TCPIP_CORE();
	if (!inet_addr_local(&ip))
		error = -EADDRNOTAVAIL;
	else if (inp->inp_pcb.udp != NULL && inp->inp_pcb.udp->local_port != 0)
		error = -EINVAL;
	else if ((error = udp_ensure(inp)) == 0) {
		struct udp_pcb *pcb = inp->inp_pcb.udp;
		if (so->so_options & SOO_REUSEADDR)
			ip_set_option(pcb, SOF_REUSEADDR);
		error = -inet_errno(udp_bind(pcb, &ip, port));
	}
	UNLOCK_TCPIP_CORE();
	return error;
}

static int
udp_connect1(struct socket *so, const char *addr, socklen_t len,
    struct proc *p, bool nonblock)
{
	struct inpcb *inp = sotoinpcb(so);
	ip_addr_t ip;
	uint16_t port;

	(void)p, (void)nonblock;
	int error = inet_addr_in(so->so_family, inp->inp_v6only, addr, len, &ip,
	    &port, true);
	if (error < 0)
		return error;
	LOCK_TCPIP_CORE();
	if (error == 1) {
		/* AF_UNSPEC dissolves the association. */
		if (inp->inp_pcb.udp != NULL)
			udp_disconnect(inp->inp_pcb.udp);
		inp_dgram_setconn(so, false);
		error = 0;
	} else if ((error = udp_ensure(inp)) == 0) {
		inp_loopback_any(&ip);
		error = -inet_errno(udp_connect(inp->inp_pcb.udp, &ip, port));
		if (error == 0)
			inp_dgram_setconn(so, true);
	}
	UNLOCK_TCPIP_CORE();
	return error;
}

/* inp_output_t of UDP: its pcb made on the first datagram. */
static int
udp_output(struct socket *so, struct pbuf *pb, uint64_t len,
    const ip_addr_t *to, uint16_t port)
{
	struct inpcb *inp = sotoinpcb(so);
	int error;

	(void)len;
	if ((error = udp_ensure(inp)) < 0)
		return error;
	return -inet_errno(to != NULL ?
	    udp_sendto(inp->inp_pcb.udp, pb, to, port) :
	    udp_send(inp->inp_pcb.udp, pb));
}

static int64_t
udp_send1(struct socket *so, struct sockmsg *m, struct proc *p)
{
	struct inpcb *inp = sotoinpcb(so);
	ip_addr_t ip;
	uint16_t port = 0;
	bool to = m->sm_namelen != 0;

	(void)p;
	if (m->sm_flags & MSG_OOB)
		return -EOPNOTSUPP;
	if (to) {
		int error = inet_addr_in(so->so_family, inp->inp_v6only,
		    m->sm_name, m->sm_namelen, &ip, &port, false);
		if (error < 0)
			return error;
		if (port == 0)
			return -EINVAL;
		inp_loopback_any(&ip);
	}
	bool v4 = to ? IP_IS_V4(&ip) : so->so_family == AF_INET;
	uint64_t len = m->sm_uio->uio_resid;
	if (len > (v4 ? UDP_MAX4 : UDP_MAX6))
		return -EMSGSIZE;
	if (!v4 && len > UDP_LWIP6) {
		kprintf_ratelimited("inet: a UDP datagram of %lu bytes over "
		    "IPv6 does not fit lwIP's pbuf\n", (unsigned long)len);
		return -EMSGSIZE;
	}
	return inp_dgram_send(so, m->sm_uio, PBUF_TRANSPORT, to ? &ip : NULL,
	    port, udp_output);
}

static int
udp_sockaddr(struct socket *so, char *addr, socklen_t *len)
{
	struct inpcb *inp = sotoinpcb(so);
	LOCK_TCPIP_CORE();
	struct udp_pcb *pcb = inp->inp_pcb.udp;
	*len = inet_addr_out(so->so_family, pcb != NULL ? &pcb->local_ip : NULL,
	    pcb != NULL ? pcb->local_port : 0, addr);
	UNLOCK_TCPIP_CORE();
	return 0;
}

static int
udp_peeraddr(struct socket *so, char *addr, socklen_t *len)
{
	struct inpcb *inp = sotoinpcb(so);
	int error = 0;
	LOCK_TCPIP_CORE();
	struct udp_pcb *pcb = inp->inp_pcb.udp;
	if (pcb == NULL || inp->inp_state != INP_CONNECTED)
		error = -ENOTCONN;
	else
		*len = inet_addr_out(so->so_family, &pcb->remote_ip,
		    pcb->remote_port, addr);
	UNLOCK_TCPIP_CORE();
	return error;
}

static int
udp_ctloutput(struct socket *so, bool set, int level, int name, void *val,
    socklen_t *len)
{
	if (level == IPPROTO_IP || level == IPPROTO_IPV6)
		return inet_ctloutput_ip(so, set, level, name, val, len);
	kprintf("inet: %ssockopt UDP level %d option %d not implemented\n",
	    set ? "set" : "get", level, name);
	return -ENOPROTOOPT;
}

const struct pr_usrreqs udp_usrreqs = {
	.pru_attach = udp_attach,
	.pru_detach = inp_dgram_detach,
	.pru_bind = udp_bind1,
	.pru_connect = udp_connect1,
	.pru_shutdown = inp_dgram_shutdown,
	.pru_send = udp_send1,
	.pru_recv = inp_dgram_recv,
	.pru_sockaddr = udp_sockaddr,
	.pru_peeraddr = udp_peeraddr,
	.pru_poll = inp_dgram_poll,
	.pru_nread = inp_dgram_nread,
	.pru_ctloutput = udp_ctloutput,
};

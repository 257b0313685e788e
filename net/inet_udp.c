/*
 * UDP sockets over lwIP's raw API (see inet_pcb.h for who runs what).
 * Datagrams received wait on the inpcb, each a pbuf with its sender,
 * bounded by SO_RCVBUF (beyond it they are dropped, as Linux drops
 * them); a datagram sent is copied from the guest into one pbuf and given
 * to udp_sendto under the core lock.
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

static bool
nonblocking(const struct sockmsg *m)
{
	return (m->sm_flags & MSG_DONTWAIT) != 0;
}

/* The tcpip thread, core lock held. */
static void
udp_recv_cb(void *arg, struct udp_pcb *pcb, struct pbuf *p,
    const ip_addr_t *addr, u16_t port)
{
	struct inpcb *inp = arg;
	struct indgram *d;

	(void)pcb;
	if (inp == NULL || (inp->inp_shut & INP_RCVSHUT) ||
	    inp->inp_dgcc + p->tot_len + SBREC_OVERHEAD > inp->inp_rcvhiwat ||
	    inet_rcvtotal + p->tot_len + SBREC_OVERHEAD > INET_RCVMAX ||
	    (d = mem_malloc(sizeof(*d))) == NULL) {
		pbuf_free(p);
		return;
	}
	d->d_next = NULL;
	d->d_p = p;
	ip_addr_copy(d->d_addr, *addr);
	d->d_port = port;
	*inp->inp_dgtail = d;
	inp->inp_dgtail = &d->d_next;
	inp->inp_dgcc += p->tot_len + SBREC_OVERHEAD;
	inet_rcvtotal += p->tot_len + SBREC_OVERHEAD;
	inp_notify(inp, INP_EV_READ);
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

/* A datagram taken off inp's queue goes (core lock). */
static void
dgram_free(struct inpcb *inp, struct indgram *d)
{
	inp->inp_dgcc -= d->d_p->tot_len + SBREC_OVERHEAD;
	inet_rcvtotal -= d->d_p->tot_len + SBREC_OVERHEAD;
	pbuf_free(d->d_p);
	mem_free(d);
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

static void
udp_detach(struct socket *so)
{
	struct inpcb *inp = sotoinpcb(so);
	struct indgram *d;

	LOCK_TCPIP_CORE();
	inp_unpend(inp);
	if (inp->inp_pcb.udp != NULL)
		udp_remove(inp->inp_pcb.udp);
	inp->inp_pcb.udp = NULL;
	while ((d = inp->inp_dgq) != NULL) {
		inp->inp_dgq = d->d_next;
		dgram_free(inp, d);
	}
	UNLOCK_TCPIP_CORE();
	inp_free(inp);
	so->so_pcb = NULL;
	so->so_state |= SS_DEAD;
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
		inp->inp_state = INP_CLOSED;
		so->so_state &= ~SS_ISCONNECTED;
		error = 0;
	} else if ((error = udp_ensure(inp)) == 0) {
		inp_loopback_any(&ip);
		error = -inet_errno(udp_connect(inp->inp_pcb.udp, &ip, port));
		if (error == 0) {
			inp->inp_state = INP_CONNECTED;
			so->so_state |= SS_ISCONNECTED;
		}
	}
	UNLOCK_TCPIP_CORE();
	return error;
}

static int
udp_shutdown1(struct socket *so, int how)
{
	struct inpcb *inp = sotoinpcb(so);

	LOCK_TCPIP_CORE();
	/* Linux marks even an unconnected socket, and says ENOTCONN. */
	inp->inp_shut |= how == SHUT_RD ? INP_RCVSHUT :
	    how == SHUT_WR ? INP_SNDSHUT : INP_RCVSHUT | INP_SNDSHUT;
	int error = inp->inp_state == INP_CONNECTED ? 0 : -ENOTCONN;
	UNLOCK_TCPIP_CORE();
	sowakeup(&so->so_rcv);
	sowakeup(&so->so_snd);
	return error;
}

static int64_t
udp_send1(struct socket *so, struct sockmsg *m, struct proc *p)
{
	struct inpcb *inp = sotoinpcb(so);
	struct uio *uio = m->sm_uio;
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
	uint64_t len = uio->uio_resid;
	bool v4 = to ? IP_IS_V4(&ip) : so->so_family == AF_INET;
	if (len > (v4 ? UDP_MAX4 : UDP_MAX6))
		return -EMSGSIZE;
	struct pbuf *pb = pbuf_alloc(PBUF_TRANSPORT, (u16_t)len, PBUF_RAM);
	if (pb == NULL)
		return -ENOBUFS;
	int error = uiomove(pb->payload, len, uio);
	if (error < 0) {
		pbuf_free(pb);
		return error;
	}
	LOCK_TCPIP_CORE();
	inp_sync(inp);
	if (so->so_error != 0) {
		error = -so->so_error;
		so->so_error = 0;
	} else if (inp->inp_shut & INP_SNDSHUT) {
		error = -EPIPENOSIG;
	} else if (!to && inp->inp_state != INP_CONNECTED) {
		error = -EDESTADDRREQ;
	} else if ((error = udp_ensure(inp)) == 0) {
		err_t err = to ? udp_sendto(inp->inp_pcb.udp, pb, &ip, port) :
		    udp_send(inp->inp_pcb.udp, pb);
		error = -inet_errno(err);
		inet_lwip_loflush();
	}
	UNLOCK_TCPIP_CORE();
	pbuf_free(pb);
	if (error == -ENOMEM)
		error = -ENOBUFS;
	return error < 0 ? error : (int64_t)len;
}

static int64_t
udp_recv1(struct socket *so, struct sockmsg *m, struct proc *p)
{
	struct inpcb *inp = sotoinpcb(so);
	struct uio *uio = m->sm_uio;
	bool peek = (m->sm_flags & MSG_PEEK) != 0;
	struct indgram *d;
	int error;

	(void)p;
	if (m->sm_flags & MSG_OOB)
		return -EOPNOTSUPP;
	if ((error = inp_rlock(inp)) < 0)
		return error;
	for (;;) {
		LOCK_TCPIP_CORE();
		inp_sync(inp);
		inp->inp_rcvhiwat = so->so_rcv.sb_hiwat;
		d = inp->inp_dgq;
		if (d != NULL && !peek) {
			if ((inp->inp_dgq = d->d_next) == NULL)
				inp->inp_dgtail = &inp->inp_dgq;
		}
		if (d == NULL && so->so_error != 0) {
			error = -so->so_error;
			so->so_error = 0;
		} else if (d == NULL && (inp->inp_shut & INP_RCVSHUT)) {
			error = 0;
		} else {
			error = 1;
		}
		UNLOCK_TCPIP_CORE();
		if (d != NULL || error <= 0)
			break;
		if (nonblocking(m)) {
			error = -EAGAIN;
			break;
		}
		if ((error = sbwait(&so->so_rcv)) < 0)
			break;
	}
	int64_t r = error;
	if (d != NULL) {
		uint32_t len = d->d_p->tot_len;
		uint32_t n = (uint32_t)MIN(uio->uio_resid, len);
		uint32_t off = 0;
		r = n;
		for (struct pbuf *q = d->d_p; q != NULL && off < n; q = q->next) {
			uint32_t k = MIN(n - off, (uint32_t)q->len);
			if ((error = uiomove(q->payload, k, uio)) < 0) {
				r = error;
				break;
			}
			off += k;
		}
		if (n < len)
			m->sm_flags |= MSG_TRUNC;
		m->sm_len = len;
		if (m->sm_name != NULL)
			m->sm_namelen = inet_addr_out(so->so_family, &d->d_addr,
			    d->d_port, m->sm_name);
		if (!peek) {
			LOCK_TCPIP_CORE();
			dgram_free(inp, d);
			UNLOCK_TCPIP_CORE();
		}
	}
	inp_runlock(inp);
	return r;
}

static int
udp_poll1(struct socket *so, int events, struct pollwaiter *pw)
{
	struct inpcb *inp = sotoinpcb(so);
	int revents = POLLOUT | POLLWRNORM | POLLWRBAND;

	LOCK_TCPIP_CORE();
	inp_sync(inp);
	if (inp->inp_dgq != NULL)
		revents |= POLLIN | POLLRDNORM;
	if (inp->inp_shut & INP_RCVSHUT)
		revents |= POLLIN | POLLRDNORM | POLLRDHUP;
	if (inp->inp_shut == (INP_RCVSHUT | INP_SNDSHUT))
		revents |= POLLHUP;
	UNLOCK_TCPIP_CORE();
	if (so->so_error != 0)
		revents |= POLLERR;
	selrecord(pw, &so->so_rcv.sb_sel);
	selrecord(pw, &so->so_snd.sb_sel);
	return revents & (events | POLLERR | POLLHUP);
}

static int
udp_nread(struct socket *so)
{
	struct inpcb *inp = sotoinpcb(so);
	LOCK_TCPIP_CORE();
	int n = inp->inp_dgq != NULL ? inp->inp_dgq->d_p->tot_len : 0;
	UNLOCK_TCPIP_CORE();
	return n;
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
	.pru_detach = udp_detach,
	.pru_bind = udp_bind1,
	.pru_connect = udp_connect1,
	.pru_shutdown = udp_shutdown1,
	.pru_send = udp_send1,
	.pru_recv = udp_recv1,
	.pru_sockaddr = udp_sockaddr,
	.pru_peeraddr = udp_peeraddr,
	.pru_poll = udp_poll1,
	.pru_nread = udp_nread,
	.pru_ctloutput = udp_ctloutput,
};

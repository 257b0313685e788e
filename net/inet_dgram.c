/*
 * The receive queue of the datagram protocols over lwIP (UDP, raw IP and
 * ping sockets): each datagram a pbuf with its sender and its IP hop
 * limit, bounded by SO_RCVBUF (beyond it they are dropped, as Linux drops
 * them) and by INET_RCVMAX together.  lwIP's callbacks queue wherever
 * its input runs (the tcpip thread, or a CPU in vke's receive
 * interrupt), under the core lock; the system calls take under the core
 * lock and copy to the guest without it (see inet_pcb.h).
 */
#include <errno.h>

#include "lwip/ip.h"
#include "lwip/mem.h"
#include "lwip/prot/ip4.h"
#include "lwip/prot/ip6.h"
#include "lwip/raw.h"
#include "lwip/tcpip.h"
#include "lwip/udp.h"

#include "kern/kernel.h"
#include "kern/uio.h"
#include "net/inet_lwip.h"
#include "net/inet_pcb.h"

/* cmsg types of the hop limit (Linux's numbers) */
#define IPV6_2292HOPLIMIT	8
#define IPV6_HOPLIMIT		52

static uint32_t
dgram_charge(const struct pbuf *p)
{
	return p->tot_len + SBREC_OVERHEAD;
}

int
inp_input_ttl(void)
{
	if (ip_current_is_v6())
		return ip6_current_header() != NULL ?
		    IP6H_HOPLIM(ip6_current_header()) : -1;
	return ip4_current_header() != NULL ?
	    IPH_TTL(ip4_current_header()) : -1;
}

struct indgram *
inp_dgram_queue(struct inpcb *inp, struct pbuf *p)
{
	struct indgram *d;

	if (inp == NULL || (inp->inp_shut & INP_RCVSHUT) ||
	    inp->inp_dgcc + dgram_charge(p) > inp->inp_rcvhiwat ||
	    inet_rcvtotal + dgram_charge(p) > INET_RCVMAX ||
	    (d = mem_malloc(sizeof(*d))) == NULL) {
		pbuf_free(p);
		return NULL;
	}
	d->d_next = NULL;
	d->d_p = p;
	*inp->inp_dgtail = d;
	inp->inp_dgtail = &d->d_next;
	inp->inp_dgcc += dgram_charge(p);
	inet_rcvtotal += dgram_charge(p);
	return d;
}

bool
inp_dgram_enqueue(struct inpcb *inp, struct pbuf *p, const ip_addr_t *addr,
    uint16_t port, int ttl)
{
	struct indgram *d = inp_dgram_queue(inp, p);

	if (d == NULL)
		return false;
	ip_addr_copy(d->d_addr, *addr);
	d->d_port = port;
	d->d_ttl = ttl;
	inp_notify(inp, INP_EV_READ);
	return true;
}

/* A datagram taken off inp's queue goes (core lock). */
static void
dgram_free(struct inpcb *inp, struct indgram *d)
{
	inp->inp_dgcc -= dgram_charge(d->d_p);
	inet_rcvtotal -= dgram_charge(d->d_p);
	pbuf_free(d->d_p);
	mem_free(d);
}

void
inp_dgram_detach(struct socket *so)
{
	struct inpcb *inp = sotoinpcb(so);
	struct indgram *d;

	LOCK_TCPIP_CORE();
	inp_unpend(inp);
	/* Raw sockets of any protocol, UDP's too, have a raw pcb. */
	if (inp->inp_pcb.any != NULL && so->so_type != SOCK_RAW &&
	    inp->inp_proto == IPPROTO_UDP)
		udp_remove(inp->inp_pcb.udp);
	else if (inp->inp_pcb.any != NULL)
		raw_remove(inp->inp_pcb.raw);
	inp->inp_pcb.any = NULL;
	while ((d = inp->inp_dgq) != NULL) {
		inp->inp_dgq = d->d_next;
		dgram_free(inp, d);
	}
	UNLOCK_TCPIP_CORE();
	inp_free(inp);
	so->so_pcb = NULL;
	so->so_state |= SS_DEAD;
}

/* The hop limit of d as the control messages inp asked for. */
static void
dgram_control(const struct inpcb *inp, const struct indgram *d,
    struct sockctl *ctl)
{
	if (d->d_ttl < 0)
		return;
	if (inp->inp_recvttl & INP_RECVTTL)
		ctl->sc_ints[ctl->sc_nints++] =
		    (struct sockopt_cmsg){ IPPROTO_IP, IP_TTL, d->d_ttl };
	if (inp->inp_recvttl & INP_RECVHOPS)
		ctl->sc_ints[ctl->sc_nints++] =
		    (struct sockopt_cmsg){ IPPROTO_IPV6, IPV6_HOPLIMIT, d->d_ttl };
	else if (inp->inp_recvttl & INP_RECVHOPS2292)
		ctl->sc_ints[ctl->sc_nints++] = (struct sockopt_cmsg){
		    IPPROTO_IPV6, IPV6_2292HOPLIMIT, d->d_ttl };
}

int64_t
inp_dgram_recv(struct socket *so, struct sockmsg *m, struct proc *p)
{
	struct inpcb *inp = sotoinpcb(so);
	struct uio *uio = m->sm_uio;
	bool peek = (m->sm_flags & MSG_PEEK) != 0;
	struct indgram *d;
	int error;

	(void)p;
	if (m->sm_flags & MSG_OOB)
		return -EOPNOTSUPP;
	sblock(&so->so_rcv);
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
		if (m->sm_flags & MSG_DONTWAIT) {
			error = -EAGAIN;
			break;
		}
		if ((error = sbwait_reader(&so->so_rcv)) < 0)
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
		if (m->sm_name != NULL && so->so_family == AF_PACKET)
			m->sm_namelen = packet_addr_out(&d->d_ll, m->sm_name);
		else if (m->sm_name != NULL)
			m->sm_namelen = inet_addr_out(so->so_family, &d->d_addr,
			    d->d_port, m->sm_name);
		if (so->so_family != AF_PACKET)
			dgram_control(inp, d, &m->sm_ctl);
		if (!peek) {
			LOCK_TCPIP_CORE();
			dgram_free(inp, d);
			UNLOCK_TCPIP_CORE();
		}
	}
	sbunlock(&so->so_rcv);
	return r;
}

int
inp_dgram_poll(struct socket *so, int events, struct pollwaiter *pw)
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

int
inp_dgram_nread(struct socket *so)
{
	struct inpcb *inp = sotoinpcb(so);
	LOCK_TCPIP_CORE();
	int n = inp->inp_dgq != NULL ? inp->inp_dgq->d_p->tot_len : 0;
	UNLOCK_TCPIP_CORE();
	return n;
}

void
inp_dgram_setconn(struct socket *so, bool connected)
{
	struct inpcb *inp = sotoinpcb(so);

	inp->inp_state = connected ? INP_CONNECTED : INP_CLOSED;
	if (connected)
		so->so_state |= SS_ISCONNECTED;
	else
		so->so_state &= ~SS_ISCONNECTED;
}

/* The guest's bytes in one pbuf, or NULL with -ENOBUFS or -EFAULT. */
static struct pbuf *
dgram_copyin(struct uio *uio, pbuf_layer layer, int *error)
{
	uint64_t len = uio->uio_resid;
	struct pbuf *pb = pbuf_alloc(layer, (u16_t)len, PBUF_RAM);
	if (pb == NULL) {
		*error = -ENOBUFS;
		return NULL;
	}
	if ((*error = uiomove(pb->payload, len, uio)) < 0) {
		pbuf_free(pb);
		return NULL;
	}
	return pb;
}

/*
 * May a datagram go now (core lock held)?  0, or the pending error
 * (taken), -EPIPENOSIG after SHUT_WR, -EDESTADDRREQ (to: the datagram
 * names its destination).
 */
static int
dgram_sendable(struct socket *so, bool to)
{
	struct inpcb *inp = sotoinpcb(so);
	int error = 0;

	inp_sync(inp);
	if (so->so_error != 0) {
		error = -so->so_error;
		so->so_error = 0;
	} else if (inp->inp_shut & INP_SNDSHUT) {
		error = -EPIPENOSIG;
	} else if (!to && inp->inp_state != INP_CONNECTED) {
		error = -EDESTADDRREQ;
	}
	return error;
}

int64_t
inp_dgram_send(struct socket *so, struct uio *uio, pbuf_layer layer,
    const ip_addr_t *to, uint16_t port, inp_output_t *output)
{
	uint64_t len = uio->uio_resid;
	int error;

	struct pbuf *pb = dgram_copyin(uio, layer, &error);
	if (pb == NULL)
		return error;
	LOCK_TCPIP_CORE();
	if ((error = dgram_sendable(so, to != NULL)) == 0) {
		error = output(so, pb, len, to, port);
		inet_lwip_loflush();
	}
	UNLOCK_TCPIP_CORE();
	pbuf_free(pb);
	if (error == -ENOMEM)
		error = -ENOBUFS;
	return error < 0 ? error : (int64_t)len;
}

int
inp_dgram_shutdown(struct socket *so, int how)
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

/*
 * TCP sockets over lwIP's raw API (see inet_pcb.h for who runs what).
 *
 * A socket's lwIP pcb is made when first needed (bind, listen, connect),
 * so that accept can give a new socket the pcb lwIP already made.  Data
 * received waits on the inpcb as lwIP's pbufs; the window opens again
 * (tcp_recved) as the guest reads, so lwIP's window (TCP_WND) bounds what
 * a connection queues (a peer that does not scale windows gets up to
 * TCP_EARLY_CREDIT more, given back as it arrives: tcp_credit_early).
 * Data sent is copied from the guest into a bounce
 * buffer, then into lwIP (tcp_write) under the core lock, as far as
 * tcp_sndbuf allows; writers wait for tcp_sent's wake-up.
 *
 * lwIP frees a pcb by itself in three cases, and the inpcb must forget
 * it then: a reset or timeout (tcp_err, after which the pcb is gone), the
 * end of a connection closed both ways (tcp_err with ERR_CLSD), and a pcb
 * that reached TIME_WAIT, which lwIP frees with no call at all: so once
 * both FINs have passed the inpcb lets the pcb go (tcp_forget) and lwIP
 * finishes the connection alone.
 */
#include <errno.h>
#include <string.h>

#include "lwip/tcpip.h"

#include "kern/kernel.h"
#include "kern/proc.h"
#include "kern/thread.h"
#include "kern/ucred.h"
#include "net/inet_lwip.h"
#include "net/inet_pcb.h"


/* lwIP's callbacks: the tcpip thread or a CPU's receive, the core lock held. */

static void
rcvq_append(struct inpcb *inp, struct pbuf *p)
{
	struct pbuf *last = p;
	while (last->next != NULL)
		last = last->next;
	if (inp->inp_rcvq == NULL)
		inp->inp_rcvq = p;
	else
		inp->inp_rcvtail->next = p;
	inp->inp_rcvtail = last;
	inp->inp_rcvcc += p->tot_len;
	inet_rcvtotal += p->tot_len;
}

static void tcp_forget(struct inpcb *inp);

/*
 * A peer that does not scale windows sees at most 64 KiB of lwIP's
 * (TCPWND16): libslirp's TCP is one.  A bulk sender then waits, every
 * 64 KiB, for the guest's reader to be scheduled and read before lwIP
 * reopens the window.  So its data is given back to lwIP's window as it
 * is queued, while no more than TCP_EARLY_CREDIT of it waits unread
 * that way (unread data stays within that and the window); the rest is
 * given back as it is read (tcp_soreceive).  A connection that scales
 * has a window of TCP_WND, which is room enough.
 */
#define TCP_EARLY_CREDIT	(256 * 1024)

static void
tcp_credit_early(struct inpcb *inp, struct tcp_pcb *pcb, uint16_t len)
{
	if ((pcb->flags & TF_WND_SCALE) ||
	    inp->inp_rcvcredit + len > TCP_EARLY_CREDIT)
		return;
	inp->inp_rcvcredit += len;
	tcp_recved(pcb, len);
}

static err_t
tcp_recv_cb(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
	struct inpcb *inp = arg;

	(void)err;
	if (inp == NULL) {
		if (p != NULL)
			pbuf_free(p);
		return ERR_OK;
	}
	if (p == NULL) {
		/* The peer's FIN; after ours too, the connection is lwIP's. */
		inp->inp_shut |= INP_RCVSHUT;
		inp->inp_finrcvd = true;
		if (inp->inp_finsent)
			tcp_forget(inp);
	} else if (inet_rcvtotal + p->tot_len > INET_RCVMAX) {
		return ERR_MEM;		/* lwIP keeps it and offers it again */
	} else {
		uint16_t len = p->tot_len;
		rcvq_append(inp, p);
		tcp_credit_early(inp, pcb, len);
	}
	inp_notify(inp, INP_EV_READ);
	return ERR_OK;
}

/*
 * Acknowledged data made room.  Writers and pollers hear of it once the
 * socket is writable as poll says (a third of the buffer free), not at
 * every ACK: a bulk sender then wakes, an interrupt to a CPU each time,
 * once per third of the buffer instead of once per ACK.
 */
static err_t
tcp_sent_cb(void *arg, struct tcp_pcb *pcb, u16_t len)
{
	struct inpcb *inp = arg;

	(void)len;
	if (inp != NULL && (tcp_sndroom(pcb) || inp->inp_lingering))
		inp_notify(inp, INP_EV_WRITE);
	return ERR_OK;
}

/* The pcb is gone: a reset, a timeout, or the end of a closed connection. */
static void
tcp_err_cb(void *arg, err_t err)
{
	struct inpcb *inp = arg;

	if (inp == NULL)
		return;
	inp->inp_pcb.tcp = NULL;
	if (err != ERR_CLSD) {
		if (inp->inp_state == INP_CONNECTING)
			inp->inp_error = err == ERR_RST ? ECONNREFUSED : ETIMEDOUT;
		else if (inp->inp_finrcvd && err == ERR_RST)
			inp->inp_error = EPIPE;	/* Linux's reset in CLOSE_WAIT */
		else
			inp->inp_error = err == ERR_RST ? ECONNRESET :
			    err == ERR_ABRT ? ETIMEDOUT : inet_errno(err);
	}
	inp->inp_state = INP_CLOSED;
	inp->inp_shut = INP_RCVSHUT | INP_SNDSHUT;
	inp_notify(inp, INP_EV_READ | INP_EV_WRITE);
}

static err_t
tcp_connected_cb(void *arg, struct tcp_pcb *pcb, err_t err)
{
	struct inpcb *inp = arg;

	(void)err;
	if (inp == NULL)
		return ERR_OK;
	inp->inp_state = INP_CONNECTED;
	inp->inp_everconn = true;
	ip_addr_copy(inp->inp_laddr, pcb->local_ip);
	inp->inp_lport = pcb->local_port;
	inp_notify(inp, INP_EV_READ | INP_EV_WRITE);
	return ERR_OK;
}

static void
tcp_hook(struct inpcb *inp, struct tcp_pcb *pcb)
{
	tcp_arg(pcb, inp);
	tcp_recv(pcb, tcp_recv_cb);
	tcp_sent(pcb, tcp_sent_cb);
	tcp_err(pcb, tcp_err_cb);
	if (inp->inp_nodelay)
		tcp_nagle_disable(pcb);
}

static void
tcp_unhook(struct tcp_pcb *pcb)
{
	tcp_arg(pcb, NULL);
	tcp_recv(pcb, NULL);
	tcp_sent(pcb, NULL);
	tcp_err(pcb, NULL);
}

/* Leaves the pcb to lwIP, which ends the connection alone (core lock). */
static void
tcp_forget(struct inpcb *inp)
{
	struct tcp_pcb *pcb = inp->inp_pcb.tcp;
	if (pcb == NULL)
		return;
	tcp_unhook(pcb);
	inp->inp_pcb.tcp = NULL;
	inp->inp_state = INP_CLOSED;
}

/* A connection the listener l has made: an embryo until accepted. */
static err_t
tcp_accept_cb(void *arg, struct tcp_pcb *newpcb, err_t err)
{
	struct inpcb *l = arg, *inp;

	if (l == NULL || err != ERR_OK || newpcb == NULL)
		return ERR_VAL;
	/* Full as Linux's sk_acceptq_is_full; lwIP then resets it. */
	if (l->inp_qlen > l->inp_backlog)
		return ERR_MEM;
	if ((inp = inp_alloc(l->inp_family, IPPROTO_TCP)) == NULL)
		return ERR_MEM;
	inp->inp_v6only = l->inp_v6only;
	inp->inp_nodelay = l->inp_nodelay;
	inp->inp_pcb.tcp = newpcb;
	inp->inp_state = INP_CONNECTED;
	inp->inp_everconn = true;
	ip_addr_copy(inp->inp_laddr, newpcb->local_ip);
	inp->inp_lport = newpcb->local_port;
	tcp_hook(inp, newpcb);
	*l->inp_accepttail = inp;
	l->inp_accepttail = &inp->inp_qnext;
	l->inp_qlen++;
	inp_notify(l, INP_EV_READ);
	return ERR_OK;
}

/* Kernel side. */

/* inp's pcb, made if it has none (core lock): 0 or -ENOMEM. */
static int
tcp_ensure(struct inpcb *inp)
{
	if (inp->inp_pcb.tcp != NULL)
		return 0;
	struct tcp_pcb *pcb = tcp_new_ip_type(inp_iptype(inp));
	if (pcb == NULL)
		return -ENOMEM;
	inp->inp_pcb.tcp = pcb;
	if (inp->inp_ttl != 0)
		pcb->ttl = (u8_t)inp->inp_ttl;
	pcb->tos = (u8_t)inp->inp_tos;
	tcp_hook(inp, pcb);
	return 0;
}

/* The SOL_SOCKET flags lwIP keeps on the pcb (core lock). */
static void
tcp_options(struct socket *so, struct tcp_pcb *pcb)
{
	if (so->so_options & SOO_REUSEADDR)
		ip_set_option(pcb, SOF_REUSEADDR);
	else
		ip_reset_option(pcb, SOF_REUSEADDR);
	if (so->so_options & SOO_KEEPALIVE)
		ip_set_option(pcb, SOF_KEEPALIVE);
	else
		ip_reset_option(pcb, SOF_KEEPALIVE);
}

/* A queued embryo or an unaccepted connection goes: reset (core lock). */
static void
tcp_drop(struct inpcb *inp)
{
	struct tcp_pcb *pcb = inp->inp_pcb.tcp;
	if (pcb != NULL) {
		tcp_unhook(pcb);
		tcp_abort(pcb);
	}
	tcp_rcvq_drop(inp, inp->inp_rcvcc);
	inp_free(inp);
}

static int
tcp_attach(struct socket *so)
{
	struct inpcb *inp = inp_alloc(so->so_family, IPPROTO_TCP);
	if (inp == NULL)
		return -ENOMEM;
	inp->inp_socket = so;
	so->so_pcb = inp;
	return 0;
}

/*
 * SO_LINGER with a time, as Linux's close (sk_stream_wait_close): the
 * FIN goes out and the closer waits until the peer acknowledged it and
 * everything written before it, the time ran out or a signal came;
 * either way the connection then ends as any closed one.  Unread data
 * is no linger's business: detach resets that connection at once; nor
 * is a process's exit (Linux's PF_EXITING), which closes without waiting.
 * Called and returns with the core lock.
 */
static void
tcp_linger(struct socket *so, struct inpcb *inp)
{
	struct tcp_pcb *pcb = inp->inp_pcb.tcp;
	struct proc *p = curproc;

	if (!so->so_lingeron || so->so_linger == 0 || pcb == NULL ||
	    inp->inp_state != INP_CONNECTED || inp->inp_rcvcc > 0 ||
	    p == NULL || (p->p_flags & P_WEXIT))
		return;
	if (!(inp->inp_shut & INP_SNDSHUT)) {
		inp->inp_shut |= INP_SNDSHUT;
		if (tcp_shutdown(pcb, 0, 1) != ERR_OK)
			return;
		inet_lwip_loflush();
		inp->inp_finsent = true;
	}
	uint64_t end = nanouptime() + (uint64_t)so->so_linger * 1000000000;
	inp->inp_lingering = true;
	while ((pcb = inp->inp_pcb.tcp) != NULL &&
	    (pcb->unsent != NULL || pcb->unacked != NULL)) {
		uint64_t now = nanouptime();
		if (now >= end)
			break;
		UNLOCK_TCPIP_CORE();
		int error = tsleep(&so->so_snd, PCATCH, "linger", end - now);
		LOCK_TCPIP_CORE();
		if (error == EINTR)
			break;
	}
	inp->inp_lingering = false;
}

static void
tcp_detach(struct socket *so)
{
	struct inpcb *inp = sotoinpcb(so), *e;

	LOCK_TCPIP_CORE();
	tcp_linger(so, inp);
	inp_unpend(inp);
	while ((e = inp->inp_acceptq) != NULL) {
		inp->inp_acceptq = e->inp_qnext;
		tcp_drop(e);
	}
	struct tcp_pcb *pcb = inp->inp_pcb.tcp;
	if (pcb != NULL && inp->inp_state == INP_LISTEN) {
		tcp_arg(pcb, NULL);
		tcp_accept(pcb, NULL);
		tcp_close(pcb);
	} else if (pcb != NULL) {
		tcp_unhook(pcb);
		/* Unread data or a zero linger: a reset, as Linux's close. */
		if (inp->inp_rcvcc > 0 || (so->so_lingeron && so->so_linger == 0) ||
		    tcp_close(pcb) != ERR_OK)
			tcp_abort(pcb);
	}
	inp->inp_pcb.tcp = NULL;
	tcp_rcvq_drop(inp, inp->inp_rcvcc);
	UNLOCK_TCPIP_CORE();
	inp_free(inp);
	so->so_pcb = NULL;
	so->so_state |= SS_DEAD;
}

static int
tcp_bind1(struct socket *so, const char *addr, socklen_t len, struct proc *p)
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
	else if (inp->inp_state != INP_CLOSED ||
	    (inp->inp_pcb.tcp != NULL && inp->inp_pcb.tcp->local_port != 0))
		error = -EINVAL;
	else if ((error = tcp_ensure(inp)) == 0) {
		tcp_options(so, inp->inp_pcb.tcp);
		error = -inet_errno(tcp_bind(inp->inp_pcb.tcp, &ip, port));
		if (error == 0) {
			ip_addr_copy(inp->inp_laddr, inp->inp_pcb.tcp->local_ip);
			inp->inp_lport = inp->inp_pcb.tcp->local_port;
		}
	}
	UNLOCK_TCPIP_CORE();
	return error;
}

static int
tcp_listen1(struct socket *so, int backlog, struct proc *p)
{
	struct inpcb *inp = sotoinpcb(so);
	int error = 0;

	(void)p;
	LOCK_TCPIP_CORE();
	if (inp->inp_state == INP_LISTEN) {
		inp->inp_backlog = backlog;
	} else if (inp->inp_state != INP_CLOSED) {
		error = -EINVAL;
	} else if ((error = tcp_ensure(inp)) == 0) {
		struct tcp_pcb *pcb = inp->inp_pcb.tcp;
		err_t err = ERR_OK;
		tcp_options(so, pcb);
		if (pcb->local_port == 0)
			err = tcp_bind(pcb, inp_any(inp), 0);
		struct tcp_pcb *lpcb = err != ERR_OK ? NULL :
		    tcp_listen_with_backlog_and_err(pcb, TCP_DEFAULT_LISTEN_BACKLOG,
		    &err);
		if (lpcb == NULL) {
			error = -inet_errno(err);
		} else {
			/* lwIP freed pcb for the smaller listening one. */
			inp->inp_pcb.tcp = lpcb;
			ip_addr_copy(inp->inp_laddr, lpcb->local_ip);
			inp->inp_lport = lpcb->local_port;
			tcp_arg(lpcb, inp);
			tcp_accept(lpcb, tcp_accept_cb);
			inp->inp_state = INP_LISTEN;
			inp->inp_backlog = backlog;
			so->so_state |= SS_ISLISTENING;
		}
	}
	UNLOCK_TCPIP_CORE();
	return error;
}

/*
 * A connect that failed: its error (taken), and the socket is as new
 * (Linux's tcp_disconnect), so it may connect again.
 */
static int
tcp_connfailed(struct socket *so, struct inpcb *inp)
{
	int error = so->so_error != 0 ? so->so_error : ECONNABORTED;
	so->so_error = 0;
	LOCK_TCPIP_CORE();
	inp->inp_shut = 0;
	inp->inp_finrcvd = inp->inp_finsent = false;
	UNLOCK_TCPIP_CORE();
	return -error;
}

/* Waits for a blocking connect's end. */
static int
tcp_wait_connect(struct socket *so, struct inpcb *inp)
{
	for (;;) {
		LOCK_TCPIP_CORE();
		inp_sync(inp);
		int state = inp->inp_state;
		UNLOCK_TCPIP_CORE();
		if (state == INP_CONNECTED) {
			so->so_state |= SS_ISCONNECTED;
			return 0;
		}
		if (state != INP_CONNECTING)
			return tcp_connfailed(so, inp);
		int error = sbwait(&so->so_snd);
		if (error == -EAGAIN)
			return -EINPROGRESS;	/* SO_SNDTIMEO passed */
		if (error < 0)
			return error;
	}
}

static int
tcp_connect1(struct socket *so, const char *addr, socklen_t len,
    struct proc *p, bool nonblock)
{
	struct inpcb *inp = sotoinpcb(so);
	ip_addr_t ip;
	uint16_t port;

	(void)p;
	int error = inet_addr_in(so->so_family, inp->inp_v6only, addr, len, &ip,
	    &port, true);
	if (error < 0)
		return error;
	LOCK_TCPIP_CORE();
	inp_sync(inp);
	if (error == 1) {
		/* AF_UNSPEC: Linux's disconnect, a reset. */
		if (inp->inp_state == INP_CONNECTED ||
		    inp->inp_state == INP_CONNECTING) {
			struct tcp_pcb *pcb = inp->inp_pcb.tcp;
			inp->inp_pcb.tcp = NULL;
			if (pcb != NULL) {
				tcp_unhook(pcb);
				tcp_abort(pcb);
			}
			inp->inp_state = INP_CLOSED;
			so->so_state &= ~SS_ISCONNECTED;
		}
		UNLOCK_TCPIP_CORE();
		return 0;
	}
	bool async = inp->inp_connasync;
	inp->inp_connasync = false;
	switch (inp->inp_state) {
	case INP_CONNECTING:
		inp->inp_connasync = nonblock;
		error = nonblock ? -EALREADY : 0;
		break;
	case INP_CONNECTED:
		if (async) {
			/* The first connect after EINPROGRESS tells the end. */
			so->so_state |= SS_ISCONNECTED;
			UNLOCK_TCPIP_CORE();
			return 0;
		}
		/* FALLTHROUGH */
	case INP_LISTEN:
		error = -EISCONN;
		break;
	default:
		if (async) {
			UNLOCK_TCPIP_CORE();
			return tcp_connfailed(so, inp);
		}
		inp_loopback_any(&ip);
		inp->inp_shut = 0;
		inp->inp_finrcvd = inp->inp_finsent = false;
		if ((error = tcp_ensure(inp)) < 0)
			break;
		tcp_options(so, inp->inp_pcb.tcp);
		err_t err = tcp_connect(inp->inp_pcb.tcp, &ip, port,
		    tcp_connected_cb);
		if (err != ERR_OK) {
			error = -inet_errno(err);
			break;
		}
		inp->inp_state = INP_CONNECTING;
		inp->inp_connasync = nonblock;
		inet_lwip_loflush();
		error = nonblock ? -EINPROGRESS : 0;
		break;
	}
	UNLOCK_TCPIP_CORE();
	if (error < 0)
		return error;
	return tcp_wait_connect(so, inp);
}

static int
tcp_accept1(struct socket *so, struct socket **newso, bool nonblock)
{
	struct inpcb *inp = sotoinpcb(so), *e;
	int error;

	for (;;) {
		LOCK_TCPIP_CORE();
		if (inp->inp_state != INP_LISTEN) {
			UNLOCK_TCPIP_CORE();
			return -EINVAL;
		}
		if ((e = inp->inp_acceptq) != NULL) {
			if ((inp->inp_acceptq = e->inp_qnext) == NULL)
				inp->inp_accepttail = &inp->inp_acceptq;
			e->inp_qnext = NULL;
			inp->inp_qlen--;
		}
		UNLOCK_TCPIP_CORE();
		if (e != NULL)
			break;
		if (nonblock)
			return -EAGAIN;
		if ((error = sbwait(&so->so_rcv)) < 0)
			return error;
	}
	struct socket *nso = socreate(so->so_proto, so->so_protocol,
	    curproc->p_ucred, &error);
	if (nso == NULL) {
		LOCK_TCPIP_CORE();
		tcp_drop(e);
		UNLOCK_TCPIP_CORE();
		return error;
	}
	/* The connection's inpcb replaces the blank one socreate made. */
	struct inpcb *blank = sotoinpcb(nso);
	nso->so_options = so->so_options;
	nso->so_rcv.sb_hiwat = so->so_rcv.sb_hiwat;
	nso->so_snd.sb_hiwat = so->so_snd.sb_hiwat;
	nso->so_state |= SS_ISCONNECTED;
	LOCK_TCPIP_CORE();
	nso->so_pcb = e;
	e->inp_socket = nso;
	inp_sync(e);
	UNLOCK_TCPIP_CORE();
	inp_free(blank);
	*newso = nso;
	return 0;
}

static int
tcp_shutdown1(struct socket *so, int how)
{
	struct inpcb *inp = sotoinpcb(so);
	int error = 0;

	LOCK_TCPIP_CORE();
	if (inp->inp_state != INP_CONNECTED && !inp->inp_finrcvd) {
		error = -ENOTCONN;
	} else {
		if (how != SHUT_WR)
			inp->inp_shut |= INP_RCVSHUT;
		if (how != SHUT_RD && !(inp->inp_shut & INP_SNDSHUT)) {
			inp->inp_shut |= INP_SNDSHUT;
			struct tcp_pcb *pcb = inp->inp_pcb.tcp;
			if (pcb != NULL && tcp_shutdown(pcb, 0, 1) == ERR_OK) {
				inet_lwip_loflush();
				inp->inp_finsent = true;
				if (inp->inp_finrcvd)
					tcp_forget(inp);
			}
		}
	}
	UNLOCK_TCPIP_CORE();
	sowakeup(&so->so_rcv);
	sowakeup(&so->so_snd);
	return error;
}

static int
tcp_sockaddr(struct socket *so, char *addr, socklen_t *len)
{
	struct inpcb *inp = sotoinpcb(so);
	LOCK_TCPIP_CORE();
	struct tcp_pcb *pcb = inp->inp_pcb.tcp;
	if (pcb != NULL)
		*len = inet_addr_out(so->so_family, &pcb->local_ip, pcb->local_port,
		    addr);
	else
		*len = inet_addr_out(so->so_family, &inp->inp_laddr, inp->inp_lport,
		    addr);
	UNLOCK_TCPIP_CORE();
	return 0;
}

static int
tcp_peeraddr(struct socket *so, char *addr, socklen_t *len)
{
	struct inpcb *inp = sotoinpcb(so);
	int error = 0;
	LOCK_TCPIP_CORE();
	struct tcp_pcb *pcb = inp->inp_pcb.tcp;
	if (pcb == NULL || inp->inp_state != INP_CONNECTED)
		error = -ENOTCONN;
	else
		*len = inet_addr_out(so->so_family, &pcb->remote_ip,
		    pcb->remote_port, addr);
	UNLOCK_TCPIP_CORE();
	return error;
}

static int
tcp_ctloutput(struct socket *so, bool set, int level, int name, void *val,
    socklen_t *len)
{
	struct inpcb *inp = sotoinpcb(so);
	int v = 0, error;

	if (level != IPPROTO_TCP)
		return inet_ctloutput_ip(so, set, level, name, val, len);
	switch (name) {
	case TCP_NODELAY:
		v = inp->inp_nodelay;
		if ((error = sockopt_int(set, val, len, &v)) < 0 || !set)
			return error;
		inp->inp_nodelay = v != 0;
		LOCK_TCPIP_CORE();
		struct tcp_pcb *pcb = inp->inp_pcb.tcp;
		if (pcb != NULL && inp->inp_state != INP_LISTEN) {
			if (v) {
				tcp_nagle_disable(pcb);
				tcp_output(pcb);	/* what Nagle held */
			} else {
				tcp_nagle_enable(pcb);
			}
		}
		UNLOCK_TCPIP_CORE();
		return 0;
	case TCP_MAXSEG:
		/* The connection's MSS; Linux's default of 536 before. */
		v = 536;
		LOCK_TCPIP_CORE();
		if (inp->inp_pcb.tcp != NULL && inp->inp_state == INP_CONNECTED)
			v = tcp_mss(inp->inp_pcb.tcp);
		UNLOCK_TCPIP_CORE();
		return sockopt_int(set, val, len, &v);
	case TCP_KEEPIDLE:
	case TCP_KEEPINTVL:
	case TCP_KEEPCNT:
		v = name == TCP_KEEPCNT ? 9 : name == TCP_KEEPIDLE ? 7200 : 75;
		if ((error = sockopt_int(set, val, len, &v)) < 0 || !set)
			return error;
		if (v < 1 || v > 32767)
			return -EINVAL;
		LOCK_TCPIP_CORE();
		pcb = inp->inp_pcb.tcp;
		if (pcb != NULL && inp->inp_state != INP_LISTEN) {
			if (name == TCP_KEEPIDLE)
				pcb->keep_idle = (u32_t)v * 1000;
			else if (name == TCP_KEEPINTVL)
				pcb->keep_intvl = (u32_t)v * 1000;
			else
				pcb->keep_cnt = (u32_t)v;
		}
		UNLOCK_TCPIP_CORE();
		return 0;
	case TCP_CORK:
	case TCP_QUICKACK:
		/* Accepted: lwIP has neither; Nagle stands for corking. */
		v = 0;
		return sockopt_int(set, val, len, &v);
	default:
		kprintf("inet: %ssockopt IPPROTO_TCP option %d not implemented\n",
		    set ? "set" : "get", name);
		return -ENOPROTOOPT;
	}
}

const struct pr_usrreqs tcp_usrreqs = {
	.pru_attach = tcp_attach,
	.pru_detach = tcp_detach,
	.pru_bind = tcp_bind1,
	.pru_listen = tcp_listen1,
	.pru_connect = tcp_connect1,
	.pru_accept = tcp_accept1,
	.pru_shutdown = tcp_shutdown1,
	.pru_send = tcp_usr_send,
	.pru_recv = tcp_usr_recv,
	.pru_sockaddr = tcp_sockaddr,
	.pru_peeraddr = tcp_peeraddr,
	.pru_poll = tcp_usr_poll,
	.pru_nread = tcp_usr_nread,
	.pru_ctloutput = tcp_ctloutput,
};

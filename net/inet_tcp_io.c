/*
 * TCP data (see inet_tcp.c): send, receive, poll.  Received bytes wait
 * on the inpcb as lwIP's pbufs, linked through ->next (only ->len
 * counts); a reader copies them to the guest without the core lock (one
 * reader at a time, sblock), then frees what it read and opens the
 * window again (tcp_recved) with it.  A writer copies from the guest into
 * a bounce buffer, then into lwIP (tcp_write) under the lock, as far as
 * tcp_sndbuf and lwIP's segment queue allow, and waits for tcp_sent's
 * wake-up beyond.
 */
#include <errno.h>
#include <string.h>

#include "lwip/tcpip.h"

#include "kern/kernel.h"
#include "kern/kmem.h"
#include "kern/uio.h"
#include "net/inet_lwip.h"
#include "net/inet_pcb.h"

#define TCP_CHUNK	65535	/* bytes copied from the guest at once (tcp_write takes 16 bits) */

static bool
nonblocking(const struct sockmsg *m)
{
	return (m->sm_flags & MSG_DONTWAIT) != 0;
}

void
tcp_rcvq_drop(struct inpcb *inp, uint32_t n)
{
	inp->inp_rcvcc -= n;
	inet_rcvtotal -= n;
	while (inp->inp_rcvq != NULL) {
		struct pbuf *q = inp->inp_rcvq;
		uint32_t left = q->len - inp->inp_rcvoff;
		if (n < left) {
			inp->inp_rcvoff += n;
			return;
		}
		n -= left;
		inp->inp_rcvoff = 0;
		inp->inp_rcvq = q->next;
		if (q->next == NULL)
			inp->inp_rcvtail = NULL;
		q->next = NULL;		/* its reference on ->next is the queue's now */
		q->tot_len = q->len;
		pbuf_free(q);
	}
}

/*
 * The error a send or receive meets first (core lock): a pending
 * so_error (taken), else 0.
 */
static int
so_takeerror(struct socket *so)
{
	int error = so->so_error;
	so->so_error = 0;
	return -error;
}

int64_t
tcp_usr_send(struct socket *so, struct sockmsg *m, struct proc *p)
{
	struct inpcb *inp = sotoinpcb(so);
	struct uio *uio = m->sm_uio;
	char *buf = NULL;
	int64_t sent = 0;
	int error = 0;

	(void)p;
	if (m->sm_flags & MSG_OOB)
		return -EOPNOTSUPP;
	while (uio->uio_resid > 0) {
		uint32_t space = 0, mss = 0;
		LOCK_TCPIP_CORE();
		inp_sync(inp);
		struct tcp_pcb *pcb = inp->inp_pcb.tcp;
		if (so->so_error != 0)
			error = so_takeerror(so);
		else if (inp->inp_shut & INP_SNDSHUT)
			error = -EPIPE;
		else if (inp->inp_state == INP_CONNECTING)
			error = 0;
		else if (inp->inp_state != INP_CONNECTED || pcb == NULL)
			error = -EPIPE;
		else {
			int segs = TCP_SND_QUEUELEN - tcp_sndqueuelen(pcb) - 2;
			mss = tcp_mss(pcb);
			space = segs <= 0 ? 0 : MIN(tcp_sndbuf(pcb),
			    (uint32_t)segs * mss);
		}
		UNLOCK_TCPIP_CORE();
		if (error < 0)
			break;
		if (space == 0) {
			if (sent > 0 && nonblocking(m))
				break;
			if (nonblocking(m)) {
				error = -EAGAIN;
				break;
			}
			if ((error = sbwait(&so->so_snd)) < 0)
				break;
			continue;
		}
		/*
		 * Whole segments: a 64 KiB write cut at 65535 bytes went out
		 * as a full segment, the 58 bytes past it and the last byte,
		 * three frames each taking the host's whole receive path.
		 */
		uint32_t most = TCP_CHUNK >= mss ? TCP_CHUNK / mss * mss : TCP_CHUNK;
		uint32_t chunk = (uint32_t)MIN(uio->uio_resid, MIN(space, most));
		if (buf == NULL && (buf = kmalloc(TCP_CHUNK, 0)) == NULL) {
			error = -ENOMEM;
			break;
		}
		if ((error = uiomove(buf, chunk, uio)) < 0)
			break;
		LOCK_TCPIP_CORE();
		pcb = inp->inp_pcb.tcp;
		err_t err = ERR_CONN;
		if (pcb != NULL && inp->inp_state == INP_CONNECTED) {
			err = tcp_write(pcb, buf, (u16_t)chunk, TCP_WRITE_FLAG_COPY |
			    (uio->uio_resid > 0 ? TCP_WRITE_FLAG_MORE : 0));
			if (err == ERR_OK) {
				tcp_output(pcb);
				/* Small messages want latency; bulk is better pipelined. */
				if (chunk <= tcp_mss(pcb))
					inet_lwip_loflush();
			}
		}
		UNLOCK_TCPIP_CORE();
		if (err != ERR_OK) {
			/* Reset meanwhile, or out of memory: the chunk is lost. */
			error = err == ERR_MEM ? -ENOBUFS : -EPIPE;
			break;
		}
		sent += chunk;
	}
	kfree(buf);
	return sent > 0 ? sent : error;
}

/* Copies n bytes from the queue, past skip, to the uio (no core lock). */
static int
rcvq_copyout(struct pbuf *q, uint32_t off, uint32_t skip, uint32_t n,
    struct uio *uio)
{
	off += skip;
	while (n > 0) {
		if (off >= q->len) {
			off -= q->len;
			q = q->next;
			continue;
		}
		uint32_t k = MIN(n, (uint32_t)q->len - off);
		int error = uiomove((char *)q->payload + off, k, uio);
		if (error < 0)
			return error;
		n -= k;
		off += k;
	}
	return 0;
}

int64_t
tcp_usr_recv(struct socket *so, struct sockmsg *m, struct proc *p)
{
	struct inpcb *inp = sotoinpcb(so);
	struct uio *uio = m->sm_uio;
	bool peek = (m->sm_flags & MSG_PEEK) != 0;
	uint64_t target = (m->sm_flags & MSG_WAITALL) ? uio->uio_resid : 1;
	int64_t copied = 0;
	int error = 0;

	(void)p;
	if (m->sm_flags & MSG_OOB)
		return -EINVAL;
	m->sm_namelen = 0;
	sblock(&so->so_rcv);
	while (uio->uio_resid > 0) {
		LOCK_TCPIP_CORE();
		inp_sync(inp);
		uint32_t skip = peek ? (uint32_t)copied : 0;
		if (inp->inp_state == INP_LISTEN) {
			error = -ENOTCONN;
		} else if (inp->inp_rcvcc > skip) {
			struct pbuf *q = inp->inp_rcvq;
			uint32_t off = inp->inp_rcvoff;
			uint32_t n = (uint32_t)MIN(uio->uio_resid, inp->inp_rcvcc - skip);
			UNLOCK_TCPIP_CORE();
			if ((error = rcvq_copyout(q, off, skip, n, uio)) < 0)
				break;
			copied += n;
			if (!peek) {
				LOCK_TCPIP_CORE();
				tcp_rcvq_drop(inp, n);
				/* What tcp_credit_early gave back already. */
				uint32_t given = MIN(n, inp->inp_rcvcredit);
				inp->inp_rcvcredit -= given;
				for (uint32_t k = n - given; k > 0 &&
				    inp->inp_pcb.tcp != NULL; ) {
					u16_t w = (u16_t)MIN(k, 0xffffu);
					tcp_recved(inp->inp_pcb.tcp, w);
					k -= w;
				}
				UNLOCK_TCPIP_CORE();
			}
			if ((uint64_t)copied >= target || peek)
				break;
			continue;
		} else if (so->so_error != 0) {
			error = copied > 0 ? 0 : so_takeerror(so);
		} else if (inp->inp_shut & INP_RCVSHUT) {
			error = 0;		/* end of file */
		} else if (inp->inp_state == INP_CLOSED) {
			error = inp->inp_everconn ? 0 : -ENOTCONN;
		} else {
			error = 1;		/* wait */
		}
		UNLOCK_TCPIP_CORE();
		if (error <= 0 || (uint64_t)copied >= target)
			break;
		if (nonblocking(m)) {
			error = -EAGAIN;
			break;
		}
		if ((error = sbwait_reader(&so->so_rcv)) < 0)
			break;
	}
	sbunlock(&so->so_rcv);
	if (copied > 0)
		return copied;
	return error > 0 ? 0 : error;
}

bool
tcp_sndroom(struct tcp_pcb *pcb)
{
	return tcp_sndqueuelen(pcb) + 2 < TCP_SND_QUEUELEN &&
	    pcb->snd_buf * 3 >= TCP_SND_BUF;
}

int
tcp_usr_poll(struct socket *so, int events, struct pollwaiter *pw)
{
	struct inpcb *inp = sotoinpcb(so);
	int revents = 0;

	LOCK_TCPIP_CORE();
	inp_sync(inp);
	int state = inp->inp_state, shut = inp->inp_shut;
	struct tcp_pcb *pcb = inp->inp_pcb.tcp;
	bool room = pcb == NULL || state != INP_CONNECTED || tcp_sndroom(pcb);
	bool readable = state == INP_LISTEN ? inp->inp_qlen > 0 :
	    inp->inp_rcvcc > 0;
	UNLOCK_TCPIP_CORE();

	/* As Linux's tcp_poll. */
	if (state == INP_LISTEN) {
		if (readable)
			revents |= POLLIN | POLLRDNORM;
	} else {
		if (shut == (INP_RCVSHUT | INP_SNDSHUT) || state == INP_CLOSED)
			revents |= POLLHUP;
		if (shut & INP_RCVSHUT)
			revents |= POLLIN | POLLRDNORM | POLLRDHUP;
		if (state != INP_CONNECTING) {
			if (readable)
				revents |= POLLIN | POLLRDNORM;
			if ((shut & INP_SNDSHUT) || room)
				revents |= POLLOUT | POLLWRNORM;
		}
	}
	if (so->so_error != 0)
		revents |= POLLERR;
	selrecord(pw, &so->so_rcv.sb_sel);
	selrecord(pw, &so->so_snd.sb_sel);
	return revents & (events | POLLERR | POLLHUP);
}

int
tcp_usr_nread(struct socket *so)
{
	struct inpcb *inp = sotoinpcb(so);
	LOCK_TCPIP_CORE();
	int n = inp->inp_state == INP_LISTEN ? 0 : (int)inp->inp_rcvcc;
	UNLOCK_TCPIP_CORE();
	return n;
}

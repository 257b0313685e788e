/*
 * AF_UNIX data: send, receive and poll for stream, datagram and
 * seqpacket sockets (see un.h).
 */
#include "fs/file.h"
#include "kern/proc.h"
#include "kern/thread.h"
#include "kern/uio.h"
#include "net/un.h"
#include "kern/kmem.h"

/*
 * The largest stream record: with its header, one 16 KiB block.  A
 * larger record needs a block of higher order, which a fragmented RAM
 * may not have while plenty is free (a write then failed with ENOMEM
 * under stress-ng's sockpair).
 */
#define STREAM_CHUNK	(4 * PAGE_SIZE - sizeof(struct sbrec))

static bool
nonblocking(const struct sockmsg *m)
{
	return (m->sm_flags & MSG_DONTWAIT) != 0;
}

/* The sender's credentials for the record, unless it gave its own. */
static void
send_cred(struct sockmsg *m, struct proc *p)
{
	if (!m->sm_ctl.sc_hascred) {
		sockcred_self(p, &m->sm_ctl.sc_cred);
		m->sm_ctl.sc_hascred = true;
	}
}

/* The sender's own name for the records it sends. */
static socklen_t
send_addr(struct socket *so, const char **addr)
{
	struct unpcb *unp = sotounpcb(so);
	*addr = unp->unp_addr;
	return unp->unp_addrlen;
}

static int64_t
send_stream(struct socket *so, struct sockmsg *m, struct proc *p)
{
	struct uio *uio = m->sm_uio;
	struct socket *peer = sotounpcb(so)->unp_peer;
	int64_t sent = 0;
	int error = 0;

	if (m->sm_namelen != 0)
		return (so->so_state & SS_ISCONNECTED) ? -EISCONN : -EOPNOTSUPP;
	if (peer == NULL || !(so->so_state & SS_ISCONNECTED))
		return -ENOTCONN;
	if (so->so_state & SS_CANTSENDMORE)
		return -EPIPE;
	send_cred(m, p);
	const char *addr;
	socklen_t addrlen = send_addr(so, &addr);
	do {
		if ((peer->so_state & (SS_DEAD | SS_CANTRCVMORE)) ||
		    (so->so_state & SS_CANTSENDMORE)) {
			error = -EPIPE;
			break;
		}
		if (so->so_snd.sb_cc >= so->so_snd.sb_hiwat) {
			if (nonblocking(m)) {
				error = -EAGAIN;
				break;
			}
			if ((error = sbwait(&so->so_snd)) < 0)
				break;
			continue;
		}
		uint32_t chunk = (uint32_t)MIN(uio->uio_resid,
		    MIN(STREAM_CHUNK, so->so_snd.sb_hiwat / 2));
		struct sbrec *rec = sbrec_alloc(so, uio, chunk, &m->sm_ctl,
		    addr, addrlen, &error);
		if (rec == NULL)
			break;
		sbappend(peer, &peer->so_rcv, rec);
		sent += chunk;
	} while (uio->uio_resid > 0);
	return sent > 0 ? sent : error;
}

/*
 * May so send to other now?  0, or -EAGAIN (non-blocking) after waiting
 * has been tried: other's queue is full (unless it is connected back to
 * so, as Linux) or so's own bytes in flight fill its send buffer.
 */
static int
dgram_wait_room(struct socket *so, struct socket *other, struct sockmsg *m)
{
	struct unpcb *ounp = sotounpcb(other);

	if (sotounpcb(other)->unp_peer != so &&
	    other->so_rcv.sb_nrecs > (uint32_t)ounp->unp_backlog) {
		if (nonblocking(m))
			return -EAGAIN;
		int error = tsleep(&ounp->unp_peersel, PCATCH, "unpdgr",
		    so->so_snd.sb_timeo);
		if (error == EWOULDBLOCK)
			return -EAGAIN;
		if (error == EINTR)
			return so->so_snd.sb_timeo ? -EINTR : -ERESTARTSYS;
		return 1;	/* look again */
	}
	if (so->so_snd.sb_cc >= so->so_snd.sb_hiwat) {
		if (nonblocking(m))
			return -EAGAIN;
		int error = sbwait(&so->so_snd);
		return error < 0 ? error : 1;
	}
	return 0;
}

static int64_t
send_dgram(struct socket *so, struct sockmsg *m, struct proc *p)
{
	struct unpcb *unp = sotounpcb(so);
	uint64_t len = m->sm_uio->uio_resid;
	struct socket *other;
	int error;

	if (so->so_type == SOCK_SEQPACKET) {
		if (!(so->so_state & SS_ISCONNECTED))
			return -ENOTCONN;
		m->sm_namelen = 0;
	}
	if (m->sm_namelen != 0 &&
	    (error = unp_checkaddr(m->sm_name, m->sm_namelen)) < 0)
		return error;
	if ((so->so_options & SOO_PASSCRED) && (error = unp_autobind(so)) < 0)
		return error;
	if (len > so->so_snd.sb_hiwat - 32)
		return -EMSGSIZE;
	if (m->sm_namelen != 0) {
		error = unp_lookup(m->sm_name, m->sm_namelen, so->so_type, p,
		    &other);
		if (error < 0)
			return error;
	} else {
		if ((other = unp->unp_peer) == NULL)
			return -ENOTCONN;
		soref(other);
	}
	send_cred(m, p);
	const char *addr;
	socklen_t addrlen = send_addr(so, &addr);
	for (;;) {
		if (so->so_state & SS_CANTSENDMORE) {
			error = -EPIPENOSIG;
			break;
		}
		if (other->so_state & SS_DEAD) {
			if (other == unp->unp_peer)
				unp_disconnect(so);
			error = -ECONNREFUSED;
			break;
		}
		struct socket *op = sotounpcb(other)->unp_peer;
		if (op != NULL && op != so) {
			error = -EPERM;
			break;
		}
		if (other->so_state & SS_CANTRCVMORE) {
			error = -EPIPENOSIG;
			break;
		}
		if ((error = dgram_wait_room(so, other, m)) < 0)
			break;
		if (error > 0)
			continue;
		struct sbrec *rec = sbrec_alloc(so, m->sm_uio, (uint32_t)len,
		    &m->sm_ctl, addr, addrlen, &error);
		if (rec != NULL) {
			sbappend(other, &other->so_rcv, rec);
			error = 0;
		}
		break;
	}
	sorele(other);
	return error < 0 ? error : (int64_t)len;
}

int64_t
uipc_send(struct socket *so, struct sockmsg *m, struct proc *p)
{
	if (m->sm_flags & MSG_OOB)
		return -EOPNOTSUPP;
	if (so->so_type == SOCK_STREAM)
		return send_stream(so, m, p);
	return send_dgram(so, m, p);
}

/* Hands rec's source address and control data to the reader. */
static void
recv_meta(struct sockmsg *m, struct sbrec *rec, bool peek)
{
	if (m->sm_name != NULL && rec->r_addrlen > 0) {
		memcpy(m->sm_name, rec->r_addr, rec->r_addrlen);
		m->sm_namelen = rec->r_addrlen;
	}
	if (rec->r_ctl.sc_hascred) {
		m->sm_ctl.sc_cred = rec->r_ctl.sc_cred;
		m->sm_ctl.sc_hascred = true;
	}
	if (rec->r_ctl.sc_nfds == 0)
		return;
	if (!peek) {
		m->sm_ctl.sc_fds = rec->r_ctl.sc_fds;
		m->sm_ctl.sc_nfds = rec->r_ctl.sc_nfds;
		rec->r_ctl.sc_fds = NULL;
		rec->r_ctl.sc_nfds = 0;
		return;
	}
	/* A peek passes the files again, as Linux: new references. */
	struct file **fds = kmalloc(rec->r_ctl.sc_nfds * sizeof(*fds), 0);
	if (fds == NULL)
		return;
	for (int i = 0; i < rec->r_ctl.sc_nfds; i++)
		fds[i] = fhold(rec->r_ctl.sc_fds[i]);
	m->sm_ctl.sc_fds = fds;
	m->sm_ctl.sc_nfds = rec->r_ctl.sc_nfds;
}

static bool
cred_eq(const struct sockcred *a, const struct sockcred *b)
{
	return a->sc_pid == b->sc_pid && a->sc_uid == b->sc_uid &&
	    a->sc_gid == b->sc_gid;
}

/*
 * Waits for data on so_rcv: 0 to look again, or what ends the read
 * (1: end of file; a negative errno).
 */
static int
recv_wait(struct socket *so, struct sockmsg *m)
{
	if (so->so_error != 0) {
		int error = -so->so_error;
		so->so_error = 0;
		return error;
	}
	/* A non-blocking datagram read says EAGAIN even once shut down. */
	if (so->so_type == SOCK_DGRAM && nonblocking(m))
		return -EAGAIN;
	if (so->so_state & SS_CANTRCVMORE)
		return 1;
	if (nonblocking(m))
		return -EAGAIN;
	return sbwait_reader(&so->so_rcv);
}

/* The record holding byte skip of sb's data, and that byte's offset. */
static struct sbrec *
sb_at(struct sockbuf *sb, uint64_t skip, uint32_t *off)
{
	struct sbrec *rec;
	TAILQ_FOREACH(rec, &sb->sb_recs, r_link) {
		uint32_t avail = rec->r_len - rec->r_off;
		if (skip < avail) {
			*off = rec->r_off + (uint32_t)skip;
			return rec;
		}
		skip -= avail;
	}
	return NULL;
}

static int64_t
recv_stream(struct socket *so, struct sockmsg *m)
{
	struct uio *uio = m->sm_uio;
	bool peek = (m->sm_flags & MSG_PEEK) != 0;
	uint64_t target = (m->sm_flags & MSG_WAITALL) ? uio->uio_resid : 1;
	int64_t copied = 0;
	int error = 0;

	if (!(so->so_state & SS_ISCONNECTED))
		return -EINVAL;
	m->sm_namelen = 0;
	while (uio->uio_resid > 0) {
		uint32_t off;
		/* A peek reads on past what it has seen; a read takes the head. */
		struct sbrec *rec = sb_at(&so->so_rcv, peek ? (uint64_t)copied : 0,
		    &off);
		if (rec == NULL) {
			if ((uint64_t)copied >= target)
				break;
			if ((error = recv_wait(so, m)) != 0)
				break;
			continue;
		}
		/* Records from another sender do not merge when ids are passed. */
		if (copied > 0 && (so->so_options & SOO_PASSCRED) &&
		    !cred_eq(&rec->r_ctl.sc_cred, &m->sm_ctl.sc_cred))
			break;
		if (copied > 0 && rec->r_ctl.sc_nfds > 0)
			break;	/* files start a read of their own */
		recv_meta(m, rec, peek);
		uint32_t n = (uint32_t)MIN(rec->r_len - off, uio->uio_resid);
		uint64_t resid0 = uio->uio_resid;
		error = uiomove(rec->r_data + off, n, uio);
		n = (uint32_t)(resid0 - uio->uio_resid);
		copied += n;
		if (!peek)
			sbdrop(&so->so_rcv, n);
		if (error < 0 || m->sm_ctl.sc_nfds > 0)
			break;
	}
	if (copied > 0)
		return copied;
	return error == 1 ? 0 : error;
}

static int64_t
recv_dgram(struct socket *so, struct sockmsg *m)
{
	struct uio *uio = m->sm_uio;
	bool peek = (m->sm_flags & MSG_PEEK) != 0;
	struct sbrec *rec;
	int error;

	if (so->so_type == SOCK_SEQPACKET && !(so->so_state & SS_ISCONNECTED))
		return -ENOTCONN;
	m->sm_namelen = 0;
	while ((rec = TAILQ_FIRST(&so->so_rcv.sb_recs)) == NULL)
		if ((error = recv_wait(so, m)) != 0)
			return error == 1 ? 0 : error;
	recv_meta(m, rec, peek);
	uint64_t resid0 = uio->uio_resid;
	error = uiomove(rec->r_data, MIN(rec->r_len, uio->uio_resid), uio);
	uint32_t len = rec->r_len;
	if (len > resid0)
		m->sm_flags |= MSG_TRUNC;
	m->sm_len = len;
	if (!peek) {
		struct unpcb *unp = sotounpcb(so);
		sbdrop(&so->so_rcv, len);
		wakeup(&unp->unp_peersel);
		selwakeup(&unp->unp_peersel);
	}
	if (error < 0)
		return error;
	return (int64_t)(resid0 - uio->uio_resid);
}

int64_t
uipc_recv(struct socket *so, struct sockmsg *m, struct proc *p)
{
	(void)p;
	if (m->sm_flags & MSG_OOB)
		return -EOPNOTSUPP;
	if (so->so_state & SS_ISLISTENING)
		return so->so_type == SOCK_SEQPACKET ? -ENOTCONN : -EINVAL;
	sblock(&so->so_rcv);
	int64_t r = so->so_type == SOCK_STREAM ? recv_stream(so, m) :
	    recv_dgram(so, m);
	sbunlock(&so->so_rcv);
	return r;
}

int
uipc_poll(struct socket *so, int events, struct pollwaiter *pw)
{
	struct unpcb *unp = sotounpcb(so);
	int revents = 0;

	if (so->so_error != 0)
		revents |= POLLERR;
	if (so->so_state & SS_CANTRCVMORE)
		revents |= POLLRDHUP | POLLIN | POLLRDNORM;
	if ((so->so_state & (SS_CANTRCVMORE | SS_CANTSENDMORE)) ==
	    (SS_CANTRCVMORE | SS_CANTSENDMORE))
		revents |= POLLHUP;
	if (so->so_rcv.sb_nrecs > 0 || unp->unp_qlen > 0)
		revents |= POLLIN | POLLRDNORM;
	if (so->so_type != SOCK_DGRAM &&
	    !(so->so_state & (SS_ISCONNECTED | SS_ISLISTENING)))
		revents |= POLLHUP;
	bool writable = !(so->so_state & SS_ISLISTENING) &&
	    (uint64_t)so->so_snd.sb_cc * 4 <= so->so_snd.sb_hiwat;
	struct socket *peer = unp->unp_peer;
	if (so->so_type != SOCK_STREAM && peer != NULL) {
		struct unpcb *punp = sotounpcb(peer);
		if (punp->unp_peer != so &&
		    peer->so_rcv.sb_nrecs > (uint32_t)punp->unp_backlog)
			writable = false;
		selrecord(pw, &punp->unp_peersel);
	}
	if (writable)
		revents |= POLLOUT | POLLWRNORM | POLLWRBAND;
	selrecord(pw, &so->so_rcv.sb_sel);
	selrecord(pw, &so->so_snd.sb_sel);
	return revents & (events | POLLERR | POLLHUP);
}

int
uipc_nread(struct socket *so)
{
	if (so->so_type == SOCK_STREAM)
		return (int)so->so_rcv.sb_cc;
	struct sbrec *rec = TAILQ_FIRST(&so->so_rcv.sb_recs);
	return rec != NULL ? (int)rec->r_len : 0;
}

/*
 * AF_NETLINK sockets (see netlink.h): port ids, datagrams to and from
 * the kernel, acknowledgements, and the family's options.
 *
 * A request is handled in the sender's system call, as Linux does: the
 * datagram is copied in whole, each message in it is given to the
 * protocol (rtnetlink_rcv), and the answers are queued on the sender's
 * own receive buffer as records from port 0.  A dump is made whole at
 * once (an interface list is small) rather than as the reader drains it,
 * so a dump's datagrams are all queued before sendmsg returns.  What a
 * guest can queue is bounded: a request whose sender's receive buffer is
 * already full (SO_RCVBUF) has its answers dropped and the socket's
 * error set to ENOBUFS, as Linux's overrun.
 *
 * Messages are hostile input, read as Linux reads them
 * (netlink_rcv_skb): a header shorter than itself or longer than what is
 * left of the datagram ends the datagram silently; a message that is
 * not a request, or a control message, is only acknowledged if asked.
 *
 * Locking: the big kernel lock (the port table, the buffers), and one
 * reader of a socket at a time (sblock): a copy to the guest may sleep.
 */
#include <errno.h>
#include <string.h>

#include "kern/kernel.h"
#include "kern/kmem.h"
#include "kern/proc.h"
#include "kern/ucred.h"
#include "kern/uio.h"
#include "net/netlink.h"

#define CAP_NET_ADMIN	12

/* Every netlink socket, for port ids. */
static TAILQ_HEAD(, nlpcb) nl_all = TAILQ_HEAD_INITIALIZER(nl_all);

static struct nlpcb *
nl_lookup(uint32_t portid)
{
	struct nlpcb *nl;
	TAILQ_FOREACH(nl, &nl_all, nl_link)
		if (nl->nl_bound && nl->nl_portid == portid)
			return nl;
	return NULL;
}

bool
nl_admin(struct proc *p)
{
	return (p->p_ucred->cr_capeff & (1ULL << CAP_NET_ADMIN)) != 0;
}

/*
 * Gives so a port id as Linux's netlink_autobind: the process's pid for
 * its first socket, then negative numbers from -4096 down.
 */
static void
nl_autobind(struct nlpcb *nl, struct proc *p)
{
	static int32_t rover = -4096;
	uint32_t portid = (uint32_t)p->p_pid;

	if (nl->nl_bound)
		return;
	while (nl_lookup(portid) != NULL) {
		portid = (uint32_t)rover;
		/* Past INT32_MIN back to the start (Linux's s32 wraps; in C
		 * the decrement would overflow). */
		rover = rover == INT32_MIN ? -4096 : rover - 1;
	}
	nl->nl_portid = portid;
	nl->nl_bound = true;
}

static int
nl_attach(struct socket *so)
{
	struct nlpcb *nl = kmalloc(sizeof(*nl), KM_ZERO);
	if (nl == NULL)
		return -ENOMEM;
	nl->nl_socket = so;
	so->so_pcb = nl;
	TAILQ_INSERT_TAIL(&nl_all, nl, nl_link);
	return 0;
}

static void
nl_detach(struct socket *so)
{
	struct nlpcb *nl = sotonlpcb(so);
	TAILQ_REMOVE(&nl_all, nl, nl_link);
	/* Queued answers hold references on so itself (their sender). */
	sbflush(&so->so_rcv);
	so->so_state |= SS_DEAD;
}

/* A sockaddr_nl from the guest: 0 or -EINVAL. */
static int
nl_addr(const char *addr, socklen_t len, struct sockaddr_nl *sa)
{
	if (len < sizeof(*sa))
		return -EINVAL;
	memcpy(sa, addr, sizeof(*sa));
	return sa->nl_family == AF_NETLINK ? 0 : -EINVAL;
}

static int
nl_bind(struct socket *so, const char *addr, socklen_t len, struct proc *p)
{
	struct nlpcb *nl = sotonlpcb(so);
	struct sockaddr_nl sa;
	int error;

	if ((error = nl_addr(addr, len, &sa)) < 0)
		return error;
	if (nl->nl_bound && sa.nl_pid != 0 && sa.nl_pid != nl->nl_portid)
		return -EINVAL;
	if (!nl->nl_bound) {
		if (sa.nl_pid == 0) {
			nl_autobind(nl, p);
		} else {
			if (nl_lookup(sa.nl_pid) != NULL)
				return -EADDRINUSE;
			nl->nl_portid = sa.nl_pid;
			nl->nl_bound = true;
		}
	}
	/* rtnetlink's groups are open to every user (NL_CFG_F_NONROOT_RECV). */
	nl->nl_groups = (nl->nl_groups & ~0xffffffffULL) | sa.nl_groups;
	return 0;
}

static int
nl_connect(struct socket *so, const char *addr, socklen_t len,
    struct proc *p, bool nonblock)
{
	struct nlpcb *nl = sotonlpcb(so);
	struct sockaddr_nl sa;
	int error;

	(void)nonblock;
	if (len >= sizeof(uint16_t) && *(const uint16_t *)addr == AF_UNSPEC) {
		nl->nl_dst_portid = 0;
		nl->nl_dst_groups = 0;
		so->so_state &= ~SS_ISCONNECTED;
		return 0;
	}
	if ((error = nl_addr(addr, len, &sa)) < 0)
		return error;
	if (sa.nl_groups != 0 && !nl_admin(p))
		return -EPERM;
	nl_autobind(nl, p);
	nl->nl_dst_portid = sa.nl_pid;
	nl->nl_dst_groups = sa.nl_groups;
	so->so_state |= SS_ISCONNECTED;
	return 0;
}

static int
nl_shutdown(struct socket *so, int how)
{
	(void)so, (void)how;
	return -EOPNOTSUPP;
}

/* Answers. */

static bool
nlr_room(struct nlreply *nr, uint32_t more)
{
	if (nr->nr_error != 0)
		return false;
	if (nr->nr_len + more <= nr->nr_cap)
		return true;
	uint32_t cap = MAX(nr->nr_cap * 2, NLMSG_ALIGN(nr->nr_len + more));
	cap = MAX(cap, 1024u);
	char *nb = kmalloc(cap, 0);
	if (nb == NULL) {
		nr->nr_error = -ENOMEM;
		return false;
	}
	if (nr->nr_len > 0)
		memcpy(nb, nr->nr_buf, nr->nr_len);
	kfree(nr->nr_buf);
	nr->nr_buf = nb;
	nr->nr_cap = cap;
	return true;
}

/* Queues len bytes of nr's buffer as one datagram from the kernel. */
static void
nlr_queue(struct nlreply *nr, uint32_t len)
{
	struct socket *so = nr->nr_so;
	struct sockaddr_nl from = { .nl_family = AF_NETLINK };
	struct kiovec iov;
	struct uio uio;
	int error;

	if (nr->nr_error != 0 || len == 0)
		return;
	uio_init_kernel(&uio, &iov, nr->nr_buf, len, 0, UIO_WRITE);
	struct sockctl ctl = { 0 };
	struct sbrec *rec = sbrec_alloc(so, &uio, len, &ctl,
	    (const char *)&from, sizeof(from), &error);
	if (rec == NULL) {
		nr->nr_error = error;
		return;
	}
	sbappend(so, &so->so_rcv, rec);
}

/* Queues what nr holds; the buffer is kept for more. */
static void
nlr_flush(struct nlreply *nr)
{
	nlr_queue(nr, nr->nr_len);
	nr->nr_len = 0;
}

void *
nlr_begin(struct nlreply *nr, const struct nlmsghdr *req, int type,
    int flags, uint32_t hdrlen)
{
	uint32_t len = NLMSG_HDRLEN + NLMSG_ALIGN(hdrlen);

	/* A datagram of a dump holds whole messages up to NL_GOODSIZE. */
	if (nr->nr_len > 0 && nr->nr_len + len > NL_GOODSIZE)
		nlr_flush(nr);
	if (!nlr_room(nr, len))
		return NULL;
	nr->nr_msg = nr->nr_len;
	struct nlmsghdr *h = (struct nlmsghdr *)(nr->nr_buf + nr->nr_len);
	memset(h, 0, len);
	h->nlmsg_type = (uint16_t)type;
	h->nlmsg_flags = (uint16_t)flags;
	h->nlmsg_seq = req->nlmsg_seq;
	h->nlmsg_pid = sotonlpcb(nr->nr_so)->nl_portid;
	nr->nr_len += len;
	return h + 1;
}

void
nlr_put(struct nlreply *nr, int type, const void *data, uint32_t len)
{
	uint32_t total = NLA_HDRLEN + NLA_ALIGN(len);
	if (!nlr_room(nr, total))
		return;
	struct nlattr *a = (struct nlattr *)(nr->nr_buf + nr->nr_len);
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	a->nla_type = (uint16_t)type;
	memcpy(a + 1, data, len);
	memset((char *)(a + 1) + len, 0, total - NLA_HDRLEN - len);
	nr->nr_len += total;
}

void
nlr_put_u32(struct nlreply *nr, int type, uint32_t v)
{
	nlr_put(nr, type, &v, sizeof(v));
}

void
nlr_put_u8(struct nlreply *nr, int type, uint8_t v)
{
	nlr_put(nr, type, &v, sizeof(v));
}

void
nlr_put_str(struct nlreply *nr, int type, const char *s)
{
	nlr_put(nr, type, s, (uint32_t)strlen(s) + 1);
}

void
nlr_end(struct nlreply *nr)
{
	if (nr->nr_error != 0)
		return;
	struct nlmsghdr *h = (struct nlmsghdr *)(nr->nr_buf + nr->nr_msg);
	h->nlmsg_len = nr->nr_len - nr->nr_msg;
	/* A message past NL_GOODSIZE by its attributes goes out alone. */
	if (nr->nr_len > NL_GOODSIZE && nr->nr_msg > 0) {
		uint32_t mlen = nr->nr_len - nr->nr_msg;
		nlr_queue(nr, nr->nr_msg);
		memmove(nr->nr_buf, nr->nr_buf + nr->nr_msg, mlen);
		nr->nr_len = mlen;
		nr->nr_msg = 0;
	}
}

int
nla_parse(const struct nlattr **at, int max, const char *attrs, uint32_t len)
{
	memset(at, 0, (size_t)max * sizeof(*at));
	while (len >= NLA_HDRLEN) {
		const struct nlattr *a = (const struct nlattr *)attrs;
		if (a->nla_len < NLA_HDRLEN || a->nla_len > len)
			return -EINVAL;
		int type = a->nla_type & NLA_TYPE_MASK;
		if (type < max)
			at[type] = a;
		uint32_t step = NLA_ALIGN(a->nla_len);
		if (step >= len)
			break;
		attrs += step;
		len -= step;
	}
	return 0;
}

/*
 * The acknowledgement of nlh as Linux's netlink_ack: NLMSG_ERROR with
 * the error and the request's header, and with its whole payload for an
 * error unless NETLINK_CAP_ACK (NLM_F_CAPPED says it was left out).
 */
static void
nl_ack(struct nlreply *nr, const struct nlmsghdr *nlh, int error)
{
	struct nlpcb *nl = sotonlpcb(nr->nr_so);
	bool full = error != 0 && !(nl->nl_flags & NLF_CAP_ACK);
	uint32_t copy = full ? nlh->nlmsg_len : NLMSG_HDRLEN;

	/* An acknowledgement is a datagram of its own. */
	nlr_flush(nr);
	struct nlmsgerr *e = nlr_begin(nr, nlh, NLMSG_ERROR,
	    full ? 0 : NLM_F_CAPPED, sizeof(int32_t));
	if (e == NULL)
		return;
	e->error = error;
	if (!nlr_room(nr, NLMSG_ALIGN(copy)))
		return;
	memcpy(nr->nr_buf + nr->nr_len, nlh, copy);
	memset(nr->nr_buf + nr->nr_len + copy, 0, NLMSG_ALIGN(copy) - copy);
	nr->nr_len += NLMSG_ALIGN(copy);
	nlr_end(nr);
	nlr_flush(nr);
}

/* The messages of one datagram to the kernel, in order. */
static void
nl_input(struct socket *so, const char *buf, uint32_t len, struct proc *p)
{
	struct nlpcb *nl = sotonlpcb(so);

	while (len >= NLMSG_HDRLEN) {
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
		if (nlh->nlmsg_len < NLMSG_HDRLEN || nlh->nlmsg_len > len)
			return;
		struct nlreply nr = { .nr_so = so };
		int error = 0;
		if (so->so_rcv.sb_cc >= so->so_rcv.sb_hiwat) {
			/* An overrun: the answers are lost, the reader hears it. */
			if (!(nl->nl_flags & NLF_NO_ENOBUFS))
				so->so_error = ENOBUFS;
		} else if ((nlh->nlmsg_flags & NLM_F_REQUEST) &&
		    nlh->nlmsg_type >= NLMSG_MIN_TYPE) {
			error = rtnetlink_rcv(so, nlh, &nr, p);
			if (error < 0)
				nr.nr_len = 0;	/* an error answers alone */
			nlr_flush(&nr);
			/* A dump ends with NLMSG_DONE, never an ack. */
			if (error < 0 || (error == 0 &&
			    (nlh->nlmsg_flags & NLM_F_ACK)))
				nl_ack(&nr, nlh, error);
		} else if (nlh->nlmsg_flags & NLM_F_ACK) {
			nl_ack(&nr, nlh, 0);
		}
		if (nr.nr_error == -ENOMEM && !(nl->nl_flags & NLF_NO_ENOBUFS))
			so->so_error = ENOBUFS;
		kfree(nr.nr_buf);
		uint32_t step = NLMSG_ALIGN(nlh->nlmsg_len);
		if (step >= len)
			return;
		buf += step;
		len -= step;
	}
}

/* A datagram from so to the user socket of port id dst. */
static int64_t
nl_unicast(struct socket *so, uint32_t dst, struct sockmsg *m, uint32_t len)
{
	struct nlpcb *to = nl_lookup(dst);
	struct sockaddr_nl from = {
		.nl_family = AF_NETLINK,
		.nl_pid = sotonlpcb(so)->nl_portid,
	};
	int error;

	if (to == NULL)
		return -ECONNREFUSED;
	struct socket *tso = to->nl_socket;
	if (tso->so_rcv.sb_cc >= tso->so_rcv.sb_hiwat)
		return (m->sm_flags & MSG_DONTWAIT) ? -EAGAIN : -ENOBUFS;
	struct sbrec *rec = sbrec_alloc(so, m->sm_uio, len, &m->sm_ctl,
	    (const char *)&from, sizeof(from), &error);
	if (rec == NULL)
		return error;
	sbappend(tso, &tso->so_rcv, rec);
	return len;
}

static int64_t
nl_send(struct socket *so, struct sockmsg *m, struct proc *p)
{
	struct nlpcb *nl = sotonlpcb(so);
	uint64_t len = m->sm_uio->uio_resid;
	uint32_t dst = nl->nl_dst_portid, groups = nl->nl_dst_groups;
	struct sockaddr_nl sa;
	int error;

	if (m->sm_flags & MSG_OOB)
		return -EOPNOTSUPP;
	if (m->sm_namelen != 0) {
		if ((error = nl_addr(m->sm_name, m->sm_namelen, &sa)) < 0)
			return error;
		dst = sa.nl_pid;
		groups = sa.nl_groups;
		if (groups != 0 && !nl_admin(p))
			return -EPERM;
	}
	if (len > so->so_snd.sb_hiwat - 32)
		return -EMSGSIZE;
	nl_autobind(nl, p);
	if (groups != 0)
		kprintf_ratelimited("netlink: a message to groups 0x%x is not "
		    "broadcast (no multicast)\n", groups);
	if (dst != 0)
		return nl_unicast(so, dst, m, (uint32_t)len);
	char *buf = kmalloc(len > 0 ? len : 1, 0);
	if (buf == NULL)
		return -ENOMEM;
	if ((error = uiomove(buf, len, m->sm_uio)) == 0)
		nl_input(so, buf, (uint32_t)len, p);
	kfree(buf);
	return error < 0 ? error : (int64_t)len;
}

/* The next record, or -EAGAIN, or the socket's error (taken). */
static int64_t
nl_recv1(struct socket *so, struct sockmsg *m)
{
	struct uio *uio = m->sm_uio;
	struct sbrec *rec;
	int error;

	while ((rec = TAILQ_FIRST(&so->so_rcv.sb_recs)) == NULL) {
		if (so->so_error != 0) {
			error = -so->so_error;
			so->so_error = 0;
			return error;
		}
		if (m->sm_flags & MSG_DONTWAIT)
			return -EAGAIN;
		if ((error = sbwait_reader(&so->so_rcv)) < 0)
			return error;
	}
	if (m->sm_name != NULL) {
		memcpy(m->sm_name, rec->r_addr, rec->r_addrlen);
		m->sm_namelen = rec->r_addrlen;
	}
	uint64_t resid0 = uio->uio_resid;
	error = uiomove(rec->r_data, MIN(rec->r_len, uio->uio_resid), uio);
	uint32_t len = rec->r_len;
	if (len > resid0)
		m->sm_flags |= MSG_TRUNC;
	m->sm_len = len;
	if (!(m->sm_flags & MSG_PEEK))
		sbdrop(&so->so_rcv, len);
	if (error < 0)
		return error;
	return (int64_t)(resid0 - uio->uio_resid);
}

static int64_t
nl_recv(struct socket *so, struct sockmsg *m, struct proc *p)
{
	(void)p;
	if (m->sm_flags & MSG_OOB)
		return -EOPNOTSUPP;
	m->sm_namelen = 0;
	sblock(&so->so_rcv);
	int64_t r = nl_recv1(so, m);
	sbunlock(&so->so_rcv);
	return r;
}

static int
nl_name(struct socket *so, char *addr, socklen_t *len, bool peer)
{
	struct nlpcb *nl = sotonlpcb(so);
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	if (peer) {
		sa.nl_pid = nl->nl_dst_portid;
		sa.nl_groups = nl->nl_dst_groups;
	} else {
		sa.nl_pid = nl->nl_portid;
		sa.nl_groups = (uint32_t)nl->nl_groups;
	}
	memcpy(addr, &sa, sizeof(sa));
	*len = sizeof(sa);
	return 0;
}

static int
nl_sockaddr(struct socket *so, char *addr, socklen_t *len)
{
	return nl_name(so, addr, len, false);
}

static int
nl_peeraddr(struct socket *so, char *addr, socklen_t *len)
{
	return nl_name(so, addr, len, true);
}

/* Always writable: a request is handled within its send. */
static int
nl_poll(struct socket *so, int events, struct pollwaiter *pw)
{
	int revents = POLLOUT | POLLWRNORM | POLLWRBAND;

	if (so->so_error != 0)
		revents |= POLLERR;
	if (so->so_rcv.sb_nrecs > 0)
		revents |= POLLIN | POLLRDNORM;
	selrecord(pw, &so->so_rcv.sb_sel);
	return revents & (events | POLLERR | POLLHUP);
}

static int
nl_nread(struct socket *so)
{
	struct sbrec *rec = TAILQ_FIRST(&so->so_rcv.sb_recs);
	return rec != NULL ? (int)rec->r_len : 0;
}

/* The boolean options kept as nl_flags. */
static int
nl_optflag(int name)
{
	switch (name) {
	case NETLINK_CAP_ACK:		return NLF_CAP_ACK;
	case NETLINK_EXT_ACK:		return NLF_EXT_ACK;
	case NETLINK_GET_STRICT_CHK:	return NLF_STRICT;
	case NETLINK_NO_ENOBUFS:	return NLF_NO_ENOBUFS;
	case NETLINK_BROADCAST_ERROR:	return NLF_BCAST_ERROR;
	default:			return 0;
	}
}

static int
nl_ctloutput(struct socket *so, bool set, int level, int name, void *val,
    socklen_t *len)
{
	struct nlpcb *nl = sotonlpcb(so);
	int v = 0, flag = nl_optflag(name);

	if (level != SOL_NETLINK)
		return -ENOPROTOOPT;
	if (flag == 0 && name != NETLINK_ADD_MEMBERSHIP &&
	    name != NETLINK_DROP_MEMBERSHIP) {
		kprintf_ratelimited("netlink: %ssockopt option %d not "
		    "implemented\n", set ? "set" : "get", name);
		return -ENOPROTOOPT;
	}
	if (!set) {
		if (flag == 0)
			return -ENOPROTOOPT;	/* memberships are set only */
		if (*len < sizeof(int))
			return -EINVAL;
		v = (nl->nl_flags & flag) != 0;
		*len = sizeof(int);
		memcpy(val, &v, sizeof(v));
		return 0;
	}
	if (*len < sizeof(int))
		return -EINVAL;
	memcpy(&v, val, sizeof(v));
	if (flag != 0) {
		if (v)
			nl->nl_flags |= flag;
		else
			nl->nl_flags &= ~flag;
		return 0;
	}
	if ((unsigned)v - 1 >= 64)
		return -EINVAL;
	if (name == NETLINK_ADD_MEMBERSHIP) {
		nl_autobind(nl, curproc);
		nl->nl_groups |= 1ULL << (v - 1);
	} else {
		nl->nl_groups &= ~(1ULL << (v - 1));
	}
	return 0;
}

static const struct pr_usrreqs nl_usrreqs = {
	.pru_attach = nl_attach,
	.pru_detach = nl_detach,
	.pru_bind = nl_bind,
	.pru_connect = nl_connect,
	.pru_shutdown = nl_shutdown,
	.pru_send = nl_send,
	.pru_recv = nl_recv,
	.pru_sockaddr = nl_sockaddr,
	.pru_peeraddr = nl_peeraddr,
	.pru_poll = nl_poll,
	.pru_nread = nl_nread,
	.pru_ctloutput = nl_ctloutput,
};

/* socket(AF_NETLINK, type, protocol): NETLINK_ROUTE only. */
static int
nl_protocol(int type, int protocol)
{
	if (type != SOCK_RAW && type != SOCK_DGRAM)
		return -ESOCKTNOSUPPORT;
	if (protocol == NETLINK_ROUTE)
		return type;
	if (protocol >= 0 && protocol < MAX_LINKS)
		kprintf_ratelimited("netlink: protocol %d not implemented\n",
		    protocol);
	return -EPROTONOSUPPORT;
}

static const struct protosw netlinksw[] = {
	{ SOCK_RAW, AF_NETLINK, NETLINK_ROUTE, PR_ATOMIC, &nl_usrreqs },
	{ SOCK_DGRAM, AF_NETLINK, NETLINK_ROUTE, PR_ATOMIC, &nl_usrreqs },
};

const struct domain netlinkdomain = {
	AF_NETLINK, "netlink", netlinksw, nitems(netlinksw), nl_protocol,
};

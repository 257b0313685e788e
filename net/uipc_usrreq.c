/*
 * AF_UNIX names and connections: bind, listen, connect, accept,
 * socketpair, shutdown and close (see un.h).
 */
#include <fcntl.h>

#include "fs/namei.h"
#include "fs/vfs.h"
#include "kern/proc.h"
#include "kern/thread.h"
#include "kern/ucred.h"
#include "net/un.h"
#include "kern/kmem.h"

#define SUN_OFF		offsetof(struct sockaddr_un, sun_path)

/* Every bound socket, path and abstract. */
static TAILQ_HEAD(, unpcb) unp_bound = TAILQ_HEAD_INITIALIZER(unp_bound);
struct unpcb_list unp_all = TAILQ_HEAD_INITIALIZER(unp_all);

static int
uipc_attach(struct socket *so)
{
	struct unpcb *unp = kmalloc(sizeof(*unp), KM_ZERO);
	if (unp == NULL)
		return -ENOMEM;
	unp->unp_socket = so;
	TAILQ_INIT(&unp->unp_conns);
	selinfo_init(&unp->unp_peersel);
	unp->unp_backlog = UNP_MAX_DGRAM_QLEN;
	TAILQ_INSERT_TAIL(&unp_all, unp, unp_alllink);
	unp->unp_inall = true;
	so->so_pcb = unp;
	return 0;
}

int
unp_checkaddr(const char *addr, socklen_t len)
{
	const struct sockaddr_un *sun = (const struct sockaddr_un *)addr;
	if (len <= SUN_OFF || len > sizeof(*sun) || sun->sun_family != AF_UNIX)
		return -EINVAL;
	return 0;
}

/* The bound socket with abstract name addr (len bytes), or NULL. */
static struct unpcb *
unp_find_abstract(const char *addr, socklen_t len)
{
	struct unpcb *unp;
	TAILQ_FOREACH(unp, &unp_bound, unp_link)
		if (unp->unp_vnode == NULL && unp->unp_addrlen == len &&
		    memcmp(unp->unp_addr + SUN_OFF, addr + SUN_OFF, len - SUN_OFF) == 0)
			return unp;
	return NULL;
}

/* Binds unp to the abstract name in addr (len bytes). */
static void
unp_setname(struct unpcb *unp, const char *addr, socklen_t len,
    struct vnode *vp)
{
	sa_family_t fam = AF_UNIX;
	memcpy(unp->unp_addr, addr, len);
	memcpy(unp->unp_addr, &fam, sizeof(fam));
	unp->unp_addrlen = len;
	unp->unp_vnode = vp;
	unp->unp_onlist = true;
	TAILQ_INSERT_TAIL(&unp_bound, unp, unp_link);
}

int
unp_autobind(struct socket *so)
{
	static uint32_t next;
	struct unpcb *unp = sotounpcb(so);
	char addr[SUN_OFF + 6];

	if (unp->unp_addrlen != 0)
		return 0;
	/* Linux's: a NUL and five hex digits, the first free one. */
	for (uint32_t tries = 0; tries < 0x100000; tries++) {
		next = (next + 1) & 0xfffff;
		addr[0] = AF_UNIX & 0xff;
		addr[1] = 0;
		addr[SUN_OFF] = 0;
		const char hex[] = "0123456789abcdef";
		for (int i = 0; i < 5; i++)
			addr[SUN_OFF + 1 + i] = hex[(next >> (16 - 4 * i)) & 0xf];
		if (unp_find_abstract(addr, sizeof(addr)) == NULL) {
			unp_setname(unp, addr, sizeof(addr), NULL);
			return 0;
		}
	}
	return -ENOSPC;
}

/*
 * Binds to a path: makes the socket inode with mknod's rules (the
 * umask, permission on the directory) and keeps its vnode.
 */
static int
unp_bind_path(struct unpcb *unp, const char *addr, socklen_t len,
    struct proc *p)
{
	const struct sockaddr_un *sun = (const struct sockaddr_un *)addr;
	size_t plen = strnlen(sun->sun_path, len - SUN_OFF);
	char path[sizeof(sun->sun_path) + 1];
	struct nameidata nd;

	memcpy(path, sun->sun_path, plen);
	path[plen] = 0;
	int error = kern_mknodat(&p->p_fs, p->p_ucred, AT_FDCWD, path,
	    S_IFSOCK | 0777, 0);
	if (error == -EEXIST)
		return -EADDRINUSE;
	if (error < 0)
		return error;
	if (unp->unp_addrlen != 0) {
		/* Linux makes the node before it sees the socket is bound. */
		kern_unlinkat(&p->p_fs, p->p_ucred, AT_FDCWD, path, 0);
		return -EINVAL;
	}
	if ((error = namei_at(&p->p_fs, p->p_ucred, AT_FDCWD, path, 0, &nd)) < 0)
		return error;
	struct vnode *vp = nd.ni_vp;
	nd.ni_vp = NULL;
	namei_done(&nd);
	/* Linux keeps the name as given up to its NUL, plus the NUL. */
	char name[SOCKADDR_MAX] = { 0 };
	memcpy(name, addr, SUN_OFF + plen);
	unp_setname(unp, name, (socklen_t)(SUN_OFF + plen + 1), vp);
	return 0;
}

static int
uipc_bind(struct socket *so, const char *addr, socklen_t len, struct proc *p)
{
	struct unpcb *unp = sotounpcb(so);
	const struct sockaddr_un *sun = (const struct sockaddr_un *)addr;

	if (len < SUN_OFF || len > sizeof(*sun) || sun->sun_family != AF_UNIX)
		return -EINVAL;
	if (len == SUN_OFF)
		return unp_autobind(so);
	if (sun->sun_path[0] != 0)
		return unp_bind_path(unp, addr, len, p);
	if (unp->unp_addrlen != 0)
		return -EINVAL;
	if (unp_find_abstract(addr, len) != NULL)
		return -EADDRINUSE;
	unp_setname(unp, addr, len, NULL);
	return 0;
}

int
unp_lookup(const char *addr, socklen_t len, int type, struct proc *p,
    struct socket **sop)
{
	const struct sockaddr_un *sun = (const struct sockaddr_un *)addr;
	struct unpcb *unp = NULL;
	int error = 0;

	if (sun->sun_path[0] != 0) {
		size_t plen = strnlen(sun->sun_path, len - SUN_OFF);
		char path[sizeof(sun->sun_path) + 1];
		struct nameidata nd;
		memcpy(path, sun->sun_path, plen);
		path[plen] = 0;
		error = namei_at(&p->p_fs, p->p_ucred, AT_FDCWD, path,
		    NI_FOLLOW, &nd);
		if (error < 0)
			return error;
		struct vnode *vp = nd.ni_vp;
		if ((error = vaccess(vp, W_OK, p->p_ucred)) == 0 &&
		    vp->v_type == VSOCK)
			TAILQ_FOREACH(unp, &unp_bound, unp_link)
				if (unp->unp_vnode == vp)
					break;
		namei_done(&nd);
		if (error < 0)
			return error;
	} else {
		unp = unp_find_abstract(addr, len);
	}
	if (unp == NULL || (unp->unp_socket->so_state & SS_DEAD))
		return -ECONNREFUSED;
	if (unp->unp_socket->so_type != type)
		return -EPROTOTYPE;
	soref(unp->unp_socket);
	*sop = unp->unp_socket;
	return 0;
}

static int
uipc_listen(struct socket *so, int backlog, struct proc *p)
{
	struct unpcb *unp = sotounpcb(so);

	if (unp->unp_addrlen == 0 || (so->so_state & SS_ISCONNECTED))
		return -EINVAL;
	unp->unp_backlog = backlog;
	so->so_state |= SS_ISLISTENING;
	/* Clients learn the listener's ids at connect (SO_PEERCRED). */
	sockcred_self(p, &so->so_peercred);
	so->so_haspeercred = true;
	wakeup(&unp->unp_conns);	/* the backlog may have grown */
	return 0;
}

/* Joins a and b both ways, each holding a reference on the other. */
static void
unp_connect2(struct socket *a, struct socket *b)
{
	soref(b);
	sotounpcb(a)->unp_peer = b;
	a->so_state |= SS_ISCONNECTED;
	soref(a);
	sotounpcb(b)->unp_peer = a;
	b->so_state |= SS_ISCONNECTED;
}

/*
 * Stream and seqpacket connect: waits for room in the listener's queue
 * (the backlog), then makes the server's socket, connected to so, and
 * queues it for accept.
 */
static int
unp_connect_stream(struct socket *so, const char *addr, socklen_t len,
    struct proc *p, bool nonblock)
{
	struct socket *lso;
	int error;

	for (;;) {
		if (so->so_state & SS_ISCONNECTED)
			return -EISCONN;
		if ((error = unp_lookup(addr, len, so->so_type, p, &lso)) < 0)
			return error;
		struct unpcb *lunp = sotounpcb(lso);
		if (!(lso->so_state & SS_ISLISTENING)) {
			sorele(lso);
			return -ECONNREFUSED;
		}
		if (lunp->unp_qlen <= lunp->unp_backlog)
			break;
		if (nonblock) {
			sorele(lso);
			return -EAGAIN;
		}
		error = tsleep(&lunp->unp_conns, PCATCH, "unpconn",
		    so->so_snd.sb_timeo);
		sorele(lso);
		if (error == EWOULDBLOCK)
			return -EAGAIN;
		if (error == EINTR)
			return so->so_snd.sb_timeo ? -EINTR : -ERESTARTSYS;
	}

	struct unpcb *lunp = sotounpcb(lso);
	struct socket *nso = socreate(lso->so_proto, lso->so_protocol,
	    p->p_ucred, &error);
	if (nso == NULL) {
		sorele(lso);
		return error;
	}
	struct unpcb *nunp = sotounpcb(nso);
	nso->so_options = lso->so_options & SOO_PASSCRED;
	memcpy(nunp->unp_addr, lunp->unp_addr, lunp->unp_addrlen);
	nunp->unp_addrlen = lunp->unp_addrlen;
	sockcred_self(p, &nso->so_peercred);
	nso->so_haspeercred = true;
	so->so_peercred = lso->so_peercred;
	so->so_haspeercred = true;
	unp_connect2(so, nso);
	/* The queue takes socreate's reference. */
	nunp->unp_listener = lunp;
	TAILQ_INSERT_TAIL(&lunp->unp_conns, nunp, unp_connlink);
	lunp->unp_qlen++;
	sowakeup(&lso->so_rcv);
	sorele(lso);
	return 0;
}

void
unp_disconnect(struct socket *so)
{
	struct unpcb *unp = sotounpcb(so);
	if (unp->unp_peer != NULL) {
		sorele(unp->unp_peer);
		unp->unp_peer = NULL;
	}
	so->so_state &= ~SS_ISCONNECTED;
}

/* Datagram connect: sets (or with AF_UNSPEC clears) the default peer. */
static int
unp_connect_dgram(struct socket *so, const char *addr, socklen_t len,
    struct proc *p)
{
	struct socket *peer;
	int error;

	if (len < sizeof(sa_family_t))
		return -EINVAL;
	sa_family_t fam;
	memcpy(&fam, addr, sizeof(fam));
	if (fam == AF_UNSPEC) {
		unp_disconnect(so);
		return 0;
	}
	if ((error = unp_checkaddr(addr, len)) < 0)
		return error;
	if ((so->so_options & SOO_PASSCRED) && (error = unp_autobind(so)) < 0)
		return error;
	if ((error = unp_lookup(addr, len, so->so_type, p, &peer)) < 0)
		return error;
	struct socket *pp = sotounpcb(peer)->unp_peer;
	if (pp != NULL && pp != so) {
		sorele(peer);
		return -EPERM;
	}
	unp_disconnect(so);
	sotounpcb(so)->unp_peer = peer;		/* lookup's reference */
	so->so_state |= SS_ISCONNECTED;
	return 0;
}

static int
uipc_connect(struct socket *so, const char *addr, socklen_t len,
    struct proc *p, bool nonblock)
{
	int error;

	if (so->so_type == SOCK_DGRAM)
		return unp_connect_dgram(so, addr, len, p);
	if ((error = unp_checkaddr(addr, len)) < 0)
		return error;
	if (so->so_state & SS_ISLISTENING)
		return -EINVAL;
	if ((so->so_options & SOO_PASSCRED) && (error = unp_autobind(so)) < 0)
		return error;
	return unp_connect_stream(so, addr, len, p, nonblock);
}

static int
uipc_connect2(struct socket *a, struct socket *b, struct proc *p)
{
	unp_connect2(a, b);
	sockcred_self(p, &a->so_peercred);
	b->so_peercred = a->so_peercred;
	a->so_haspeercred = b->so_haspeercred = true;
	return 0;
}

static int
uipc_accept(struct socket *so, struct socket **newso, bool nonblock)
{
	struct unpcb *unp = sotounpcb(so);
	struct unpcb *nunp;
	int error;

	if (!(so->so_state & SS_ISLISTENING))
		return -EINVAL;
	while ((nunp = TAILQ_FIRST(&unp->unp_conns)) == NULL) {
		if (nonblock)
			return -EAGAIN;
		if ((error = sbwait(&so->so_rcv)) < 0)
			return error;
		if (!(so->so_state & SS_ISLISTENING))
			return -EINVAL;
	}
	TAILQ_REMOVE(&unp->unp_conns, nunp, unp_connlink);
	unp->unp_qlen--;
	nunp->unp_listener = NULL;
	wakeup(&unp->unp_conns);
	*newso = nunp->unp_socket;		/* the queue's reference */
	return 0;
}

static int
uipc_shutdown(struct socket *so, int how)
{
	struct socket *peer = sotounpcb(so)->unp_peer;
	int mine = 0, theirs = 0;

	if (how != SHUT_WR) {
		mine |= SS_CANTRCVMORE;
		theirs |= SS_CANTSENDMORE;
	}
	if (how != SHUT_RD) {
		mine |= SS_CANTSENDMORE;
		theirs |= SS_CANTRCVMORE;
	}
	so->so_state |= mine;
	sowakeup(&so->so_rcv);
	sowakeup(&so->so_snd);
	if (peer != NULL && so->so_type != SOCK_DGRAM) {
		peer->so_state |= theirs;
		sowakeup(&peer->so_rcv);
		sowakeup(&peer->so_snd);
	}
	return 0;
}

static void uipc_detach(struct socket *so);

/*
 * so goes away: a connected peer hears end of file both ways, and a
 * reset if so left data unread or was never accepted.
 */
static void
unp_drop_peer(struct socket *so, bool embryo)
{
	struct socket *peer = sotounpcb(so)->unp_peer;

	if (peer == NULL)
		return;
	if (so->so_type != SOCK_DGRAM) {
		peer->so_state |= SS_CANTRCVMORE | SS_CANTSENDMORE;
		if (so->so_rcv.sb_nrecs > 0 || embryo)
			peer->so_error = ECONNRESET;
		sowakeup(&peer->so_rcv);
		sowakeup(&peer->so_snd);
	}
	/* The peer keeps its link (getpeername still answers); so drops its. */
	sorele(peer);
	sotounpcb(so)->unp_peer = NULL;
}

static void
unp_detach1(struct socket *so, bool embryo)
{
	struct unpcb *unp = sotounpcb(so);
	struct unpcb *nunp;

	if (unp->unp_onlist) {
		TAILQ_REMOVE(&unp_bound, unp, unp_link);
		unp->unp_onlist = false;
		if (unp->unp_vnode != NULL)
			vrele(unp->unp_vnode);
		unp->unp_vnode = NULL;
	}
	if (unp->unp_inall) {
		TAILQ_REMOVE(&unp_all, unp, unp_alllink);
		unp->unp_inall = false;
	}
	so->so_state |= SS_DEAD;
	while ((nunp = TAILQ_FIRST(&unp->unp_conns)) != NULL) {
		TAILQ_REMOVE(&unp->unp_conns, nunp, unp_connlink);
		unp->unp_qlen--;
		nunp->unp_listener = NULL;
		unp_detach1(nunp->unp_socket, true);
		sorele(nunp->unp_socket);
	}
	so->so_state &= ~SS_ISLISTENING;
	unp_drop_peer(so, embryo);
	sbflush(&so->so_rcv);
	sowakeup(&so->so_rcv);
	sowakeup(&so->so_snd);
	seldrain(&unp->unp_peersel);
	wakeup(&unp->unp_peersel);
	wakeup(&unp->unp_conns);
}

static void
uipc_detach(struct socket *so)
{
	unp_detach1(so, false);
}

static int
uipc_sockaddr(struct socket *so, char *addr, socklen_t *len)
{
	struct unpcb *unp = sotounpcb(so);

	if (unp->unp_addrlen == 0) {
		sa_family_t fam = AF_UNIX;
		memcpy(addr, &fam, sizeof(fam));
		*len = sizeof(fam);
		return 0;
	}
	memcpy(addr, unp->unp_addr, unp->unp_addrlen);
	*len = unp->unp_addrlen;
	return 0;
}

static int
uipc_peeraddr(struct socket *so, char *addr, socklen_t *len)
{
	struct socket *peer = sotounpcb(so)->unp_peer;

	if (peer == NULL || !(so->so_state & SS_ISCONNECTED))
		return -ENOTCONN;
	return uipc_sockaddr(peer, addr, len);
}

const struct pr_usrreqs uipc_usrreqs = {
	.pru_attach = uipc_attach,
	.pru_detach = uipc_detach,
	.pru_bind = uipc_bind,
	.pru_listen = uipc_listen,
	.pru_connect = uipc_connect,
	.pru_connect2 = uipc_connect2,
	.pru_accept = uipc_accept,
	.pru_shutdown = uipc_shutdown,
	.pru_send = uipc_send,
	.pru_recv = uipc_recv,
	.pru_sockaddr = uipc_sockaddr,
	.pru_peeraddr = uipc_peeraddr,
	.pru_poll = uipc_poll,
	.pru_nread = uipc_nread,
};

static const struct protosw unixsw[] = {
	{ SOCK_STREAM, AF_UNIX, 0, PR_CONNREQUIRED | PR_RIGHTS, &uipc_usrreqs },
	{ SOCK_DGRAM, AF_UNIX, 0, PR_ATOMIC | PR_RIGHTS, &uipc_usrreqs },
	{ SOCK_SEQPACKET, AF_UNIX, 0, PR_CONNREQUIRED | PR_ATOMIC | PR_RIGHTS,
	    &uipc_usrreqs },
};

/* Linux's unix_create: protocol 0 or PF_UNIX; SOCK_RAW is a datagram. */
static int
unix_protocol(int type, int protocol)
{
	if (protocol != 0 && protocol != PF_UNIX)
		return -EPROTONOSUPPORT;
	return type == SOCK_RAW ? SOCK_DGRAM : type;
}

const struct domain unixdomain = {
	.dom_family = AF_UNIX,
	.dom_name = "unix",
	.dom_protosw = unixsw,
	.dom_nprotosw = (int)nitems(unixsw),
	.dom_protocol = unix_protocol,
};

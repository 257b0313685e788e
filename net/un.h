/*
 * AF_UNIX: local sockets, stream, datagram and sequenced-packet.
 *
 * The protocol control block (struct unpcb, so_pcb) holds a socket's
 * name, its peer and its listen queue.  Names are paths (a socket inode
 * made by bind in any file system, found again by its vnode) or abstract
 * (a leading NUL, in a name space of their own); both live on one list
 * of bound sockets.
 *
 * A connection is made as Linux makes it: connect creates the server's
 * socket at once (an embryo on the listener's queue), connects the two
 * and lets the client write before accept.  Data goes straight into the
 * peer's receive buffer, charged to the sender's send buffer
 * (socketvar.h), so the sender waits for the reader; a datagram receiver
 * also bounds its queue at UNP_MAX_DGRAM_QLEN records, and senders to it
 * wait on its unp_peersel.
 *
 * Locking: the big kernel lock.
 */
#ifndef NET_UN_H
#define NET_UN_H

#include <stdbool.h>

#include "fs/poll.h"
#include "kern/queue.h"
#include "net/socketvar.h"

struct vnode;

#define UNP_MAX_DGRAM_QLEN	10	/* net.unix.max_dgram_qlen */

struct unpcb {
	struct socket *unp_socket;
	struct socket *unp_peer;	/* connected to, referenced */
	/* The bound name as Linux keeps it: a path's text ends where the
	 * given bytes end, plus a NUL, so up to 111 bytes. */
	char unp_addr[SOCKADDR_MAX];
	socklen_t unp_addrlen;		/* 0: unbound */
	struct vnode *unp_vnode;	/* a path name's inode, referenced */
	TAILQ_ENTRY(unpcb) unp_link;	/* on the bound list */
	bool unp_onlist;		/* bound itself (an embryo copies a name) */
	/* A listener's embryos, each referenced; a datagram socket's
	 * bound on queued records uses unp_backlog too. */
	TAILQ_HEAD(, unpcb) unp_conns;
	TAILQ_ENTRY(unpcb) unp_connlink;
	struct unpcb *unp_listener;	/* an embryo's, until accepted */
	int unp_qlen;
	int unp_backlog;
	struct selinfo unp_peersel;	/* senders waiting for queue room */
	TAILQ_ENTRY(unpcb) unp_alllink;	/* on unp_all until detached */
	bool unp_inall;
};

/* Every AF_UNIX socket not yet detached, for /proc/net/unix. */
TAILQ_HEAD(unpcb_list, unpcb);
extern struct unpcb_list unp_all;

#define sotounpcb(so)	((struct unpcb *)(so)->so_pcb)

extern const struct domain unixdomain;
extern const struct pr_usrreqs uipc_usrreqs;

/* Data (uipc_unix_io.c). */
int64_t uipc_send(struct socket *so, struct sockmsg *m, struct proc *p);
int64_t uipc_recv(struct socket *so, struct sockmsg *m, struct proc *p);
int uipc_poll(struct socket *so, int events, struct pollwaiter *pw);
int uipc_nread(struct socket *so);

/* Names and connections (uipc_usrreq.c), for the data path. */

/*
 * The socket bound to address addr (len bytes, checked) for a sender or
 * connecter of type type, referenced: -ECONNREFUSED (nobody there),
 * -EPROTOTYPE (another type), -EACCES (no write permission on the
 * socket inode), the path lookup's errors.
 */
int unp_lookup(const char *addr, socklen_t len, int type, struct proc *p,
    struct socket **sop);

/* Checks an address to send or connect to: -EINVAL if malformed. */
int unp_checkaddr(const char *addr, socklen_t len);

/* Gives so an abstract name if it has none (SO_PASSCRED senders). */
int unp_autobind(struct socket *so);

/* Disconnects so from its peer (datagram sockets: the peer died). */
void unp_disconnect(struct socket *so);

#endif /* NET_UN_H */

/*
 * The socket layer: sockets as open files, independent of any address
 * family, after BSD's uipc_socket / protosw.
 *
 * A socket is a struct socket behind a file (DTYPE_SOCKET) whose fileops
 * (soo_*) turn read, write, poll, fstat and close into socket calls.
 * Everything a family does differently goes through its protocol switch:
 * a struct domain (one per family: AF_UNIX, later AF_INET, AF_INET6)
 * lists its struct protosw entries (one per socket type and protocol),
 * and each protosw points at the family's operations, struct pr_usrreqs.
 * The generic layer checks arguments, keeps the state every family shares
 * (type, options, shutdown state, error, timeouts, peer credentials) and
 * the two socket buffers; the family moves the data.
 *
 * A socket buffer (struct sockbuf) is a queue of records (struct sbrec):
 * a record is a datagram, a sequenced packet, or a piece of a stream,
 * with the control data that came with it (passed files, credentials)
 * and its sender's address.  Readers sleep on &so->so_rcv, writers on
 * &so->so_snd; poll hears the same changes through each buffer's
 * selinfo, so select, poll and epoll need nothing socket-specific.
 *
 * Reference counts: so_refs counts the socket's open file, every record
 * it sent that still waits in some receive buffer (the record is charged
 * to the sender's so_snd.sb_cc, as Linux charges skbs to sk_wmem_alloc),
 * and every link the family keeps to it (a connected peer, a listen
 * queue).  The family's pru_detach, at the last close, undoes its links;
 * its so_pcb, a plain allocation from then on, goes with the socket.
 *
 * Locking: the big kernel lock.  Operations may sleep interruptibly
 * (-ERESTARTSYS, or -EINTR under a timeout as Linux's sock_intr_errno).
 */
#ifndef NET_SOCKETVAR_H
#define NET_SOCKETVAR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "fs/poll.h"
#include "kern/queue.h"
#include "net/sockdefs.h"

struct file;
struct proc;
struct socket;
struct ucred;
struct uio;

/* Linux's defaults: net.core.[rw]mem_default and [rw]mem_max. */
#define SB_DEFAULT	212992
#define SB_MAX		212992
#define SB_MIN_SND	4608		/* SOCK_MIN_SNDBUF */
#define SB_MIN_RCV	2304		/* SOCK_MIN_RCVBUF */
#define SOMAXCONN_LINUX	4096		/* net.core.somaxconn */
#define SCM_MAX_FD	253		/* files in one message */
#define SOCKADDR_MAX	128		/* sizeof(struct sockaddr_storage) */
#define SBREC_OVERHEAD	256		/* charged per record beside its data */

/* Credentials as SO_PEERCRED and SCM_CREDENTIALS carry them. */
struct sockcred {
	int32_t sc_pid;
	uint32_t sc_uid;
	uint32_t sc_gid;
};

/* A received message's int-valued control message of its protocol. */
struct sockopt_cmsg {
	int so_level;			/* IPPROTO_IP, IPPROTO_IPV6 */
	int so_type;			/* IP_TTL, IPV6_HOPLIMIT... */
	int so_val;
};

#define SOCKCTL_NINTS	2

/*
 * Control data of one message: files in flight, the sender's ids, and
 * what the protocol tells a receiver that asked (IP_RECVTTL...).
 */
struct sockctl {
	struct file **sc_fds;		/* referenced; kmalloc'd */
	int sc_nfds;
	struct sockcred sc_cred;
	bool sc_hascred;
	int sc_nints;
	struct sockopt_cmsg sc_ints[SOCKCTL_NINTS];
};

/* One record of a socket buffer. */
struct sbrec {
	TAILQ_ENTRY(sbrec) r_link;
	uint32_t r_len;			/* bytes of data */
	uint32_t r_off;			/* bytes already read (streams) */
	uint32_t r_charge;		/* still charged to the sender */
	struct socket *r_sender;	/* referenced */
	struct sockctl r_ctl;
	uint8_t r_addrlen;		/* the sender's address, 0: none */
	char r_addr[SOCKADDR_MAX];
	char r_data[];
};

struct sockbuf {
	TAILQ_HEAD(, sbrec) sb_recs;
	uint32_t sb_cc;		/* so_rcv: bytes queued; so_snd: bytes
				 * sent and not yet read */
	uint32_t sb_nrecs;	/* records queued */
	uint32_t sb_hiwat;	/* SO_RCVBUF, SO_SNDBUF */
	uint64_t sb_timeo;	/* SO_RCVTIMEO, SO_SNDTIMEO: ns, 0: none */
	struct selinfo sb_sel;
	bool sb_rbusy;		/* so_rcv: a reader holds sblock */
};

/* so_state */
#define SS_ISCONNECTED		0x0001
#define SS_CANTSENDMORE		0x0002	/* shut down for writing */
#define SS_CANTRCVMORE		0x0004	/* shut down for reading */
#define SS_ISLISTENING		0x0008
#define SS_DEAD			0x0010	/* closed: its family let it go */

/* so_options: the SOL_SOCKET flags the generic layer keeps. */
#define SOO_PASSCRED		0x0001
#define SOO_REUSEADDR		0x0002
#define SOO_KEEPALIVE		0x0004
#define SOO_BROADCAST		0x0008
#define SOO_OOBINLINE		0x0010
#define SOO_DONTROUTE		0x0020

struct socket {
	int so_refs;
	short so_type;			/* SOCK_STREAM... */
	short so_family;		/* AF_UNIX... */
	int so_protocol;		/* socket()'s protocol argument */
	int so_state;			/* SS_* */
	int so_options;			/* SOO_* */
	int so_error;			/* SO_ERROR: a positive errno */
	bool so_lingeron;		/* SO_LINGER: l_onoff, l_linger (s) */
	int so_linger;
	const struct protosw *so_proto;
	struct file *so_file;		/* the open file, NULL if none yet */
	void *so_pcb;			/* the family's */
	struct sockbuf so_rcv, so_snd;
	struct sockcred so_peercred;	/* SO_PEERCRED */
	bool so_haspeercred;
	uint64_t so_ino;		/* fstat */
	uid_t so_uid;
	gid_t so_gid;
};

/*
 * One sendmsg or recvmsg in kernel form.  sm_name is a kernel buffer of
 * SOCKADDR_MAX bytes: the destination (send, sm_namelen 0: none) or the
 * source (filled by recv).  sm_ctl carries the control data the system
 * call layer parsed (send) or the family found (recv).
 */
struct sockmsg {
	struct uio *sm_uio;
	char *sm_name;
	socklen_t sm_namelen;
	struct sockctl sm_ctl;
	int sm_flags;			/* in: MSG_*; recv out: MSG_TRUNC... */
	uint32_t sm_len;		/* recv: the record's whole length (MSG_TRUNC) */
};

/*
 * A family's operations.  Each returns 0 (or a count) or a negative
 * errno.  nonblock is the file's O_NONBLOCK (or MSG_DONTWAIT); cr and p
 * are the caller's.  The generic layer has already checked what all
 * families share (the socket's state for listen and accept, lengths).
 */
struct pr_usrreqs {
	/* A new socket of so->so_proto: sets so_pcb. */
	int (*pru_attach)(struct socket *so);
	/* The last file reference went: undo every link, flush buffers. */
	void (*pru_detach)(struct socket *so);
	int (*pru_bind)(struct socket *so, const char *addr, socklen_t len,
	    struct proc *p);
	int (*pru_listen)(struct socket *so, int backlog, struct proc *p);
	int (*pru_connect)(struct socket *so, const char *addr, socklen_t len,
	    struct proc *p, bool nonblock);
	/* socketpair: joins two new sockets. */
	int (*pru_connect2)(struct socket *a, struct socket *b, struct proc *p);
	/* A connected socket from the listen queue (*newso referenced). */
	int (*pru_accept)(struct socket *so, struct socket **newso,
	    bool nonblock);
	/* how: SHUT_RD, SHUT_WR, SHUT_RDWR (checked). */
	int (*pru_shutdown)(struct socket *so, int how);
	/*
	 * The bytes sent, or an error: -EPIPE raises SIGPIPE (unless
	 * MSG_NOSIGNAL), -EPIPENOSIG is EPIPE without it.
	 */
	int64_t (*pru_send)(struct socket *so, struct sockmsg *m,
	    struct proc *p);
	/* The bytes received (m->sm_len for MSG_TRUNC), 0 at end of file. */
	int64_t (*pru_recv)(struct socket *so, struct sockmsg *m,
	    struct proc *p);
	/* The socket's (peer: its peer's) address into addr, its length. */
	int (*pru_sockaddr)(struct socket *so, char *addr, socklen_t *len);
	int (*pru_peeraddr)(struct socket *so, char *addr, socklen_t *len);
	/* fo_poll of the socket. */
	int (*pru_poll)(struct socket *so, int events, struct pollwaiter *pw);
	/* FIONREAD: the bytes a read would see, or a negative errno. */
	int (*pru_nread)(struct socket *so);
	/*
	 * Options of levels other than SOL_SOCKET (NULL: -EOPNOTSUPP);
	 * set: *len bytes of val; get: up to *len bytes, *len set.
	 */
	int (*pru_ctloutput)(struct socket *so, bool set, int level, int name,
	    void *val, socklen_t *len);
};

/* pr_flags */
#define PR_CONNREQUIRED	0x01	/* connection-based (stream, seqpacket) */
#define PR_ATOMIC	0x02	/* records keep their boundaries */
#define PR_RIGHTS	0x04	/* may pass files (SCM_RIGHTS) */

struct protosw {
	short pr_type;			/* SOCK_STREAM... */
	short pr_family;		/* AF_UNIX... */
	short pr_protocol;		/* 0: the type's default */
	int pr_flags;
	const struct pr_usrreqs *pr_usrreqs;
};

struct domain {
	int dom_family;			/* AF_UNIX... */
	const char *dom_name;
	const struct protosw *dom_protosw;
	int dom_nprotosw;
	/* A protocol number the family accepts besides 0 (PF_UNIX). */
	int (*dom_protocol)(int type, int protocol);
};

/* Domains (uipc_domain.c). */

/*
 * The protocol switch entry of family, type and protocol: NULL with
 * *error -EAFNOSUPPORT (no such family), -ESOCKTNOSUPPORT (type),
 * -EPROTONOSUPPORT (protocol).
 */
const struct protosw *pffindproto(int family, int type, int protocol,
    int *error);

/* Socket buffers (uipc_sockbuf.c). */

void sbinit(struct sockbuf *sb, uint32_t hiwat);

/*
 * A record of len bytes from the uio (len <= resid) sent by sender,
 * charged to it, with the control data ctl (moved: ctl is emptied) and
 * sender address addr (addrlen 0: none).  NULL with *error set
 * (-ENOMEM, -EFAULT: nothing is taken from ctl then).
 */
struct sbrec *sbrec_alloc(struct socket *sender, struct uio *uio,
    uint32_t len, struct sockctl *ctl, const char *addr, socklen_t addrlen,
    int *error);

/* Appends rec to sb (taking it) and wakes sb's readers. */
void sbappend(struct socket *so, struct sockbuf *sb, struct sbrec *rec);

/*
 * Consumes n bytes of the first record of sb (the whole record once it
 * is read through): uncharges its sender and wakes the sender's writers.
 */
void sbdrop(struct sockbuf *sb, uint32_t n);

/* Frees every record of sb (their files closed). */
void sbflush(struct sockbuf *sb);

/* Drops the references a control block holds and empties it. */
void sockctl_release(struct sockctl *ctl);

/*
 * Sleeps on sb for its socket's change: 0, -EAGAIN (sb_timeo passed),
 * -ERESTARTSYS or -EINTR (a signal; -EINTR under a timeout).
 */
int sbwait(struct sockbuf *sb);

/*
 * One reader of sb at a time (BSD's sblock).  A reader works on a
 * record in place and its copy to the guest may sleep (a fault reading
 * a file's page); a second reader in that gap would take and free the
 * record under it.  The lock is held only across such copies, never
 * while waiting for data (sbwait_reader), so taking it sleeps briefly
 * and is not interruptible: a non-blocking reader is never held up by
 * a blocked one.
 */
void sblock(struct sockbuf *sb);
void sbunlock(struct sockbuf *sb);

/* sbwait for a reader holding sblock: let go while asleep, held again after. */
int sbwait_reader(struct sockbuf *sb);

/* Wakes sb's sleepers and pollers. */
void sowakeup(struct sockbuf *sb);

/* Sockets (uipc_socket.c). */

/*
 * A new socket of protocol pr with one reference, not yet on a file.
 * The creator's credential gives its owner; protocol is socket()'s
 * argument (so_protocol, for the families that take any value).  NULL
 * with *error set.
 */
struct socket *socreate(const struct protosw *pr, int protocol,
    struct ucred *cr, int *error);

/* Takes a reference on so. */
void soref(struct socket *so);

/* Drops one; the last frees the socket (the family detached already). */
void sorele(struct socket *so);

/*
 * A new open file for so (taking the caller's reference on so), with
 * O_NONBLOCK from flags; NULL if memory is short (so then released).
 */
struct file *sofile(struct socket *so, int flags);

/* The socket of file fp, or NULL if fp is no socket. */
struct socket *fp_socket(struct file *fp);

/* The caller's credentials as a struct sockcred. */
void sockcred_self(struct proc *p, struct sockcred *sc);

#endif /* NET_SOCKETVAR_H */

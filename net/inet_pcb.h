/*
 * The control block of an AF_INET or AF_INET6 socket (so_pcb) and what
 * the files of the two families share.  Files that include this header
 * call lwIP (compiled with its headers: the Makefile's LWIP_CFLAGS).
 *
 * Two threads touch an inpcb.  lwIP's tcpip thread runs the callbacks
 * the pcb registered (tcp_recv, tcp_sent, tcp_err, tcp_accept,
 * udp_recv): they only queue what arrived on the inpcb (pbufs, the state
 * change, the error) and post the network interrupt (inp_notify).  The
 * kernel, with the big lock, reads and takes from those queues; both
 * sides do so holding lwIP's core lock (LOCK_TCPIP_CORE), which so
 * protects every field marked "core" below.  The kernel never sleeps
 * holding it: it takes what it needs, unlocks, copies to or from the
 * guest, and locks again to give back.  The interrupt handler, in kernel
 * context, moves errors into so_error and wakes the socket's sleepers
 * and pollers.
 *
 * An inpcb is allocated on the host heap (lwIP's mem_calloc): an
 * accepted connection's is made by the accept callback on the tcpip
 * thread, where no kernel allocator runs, and waits on its listener's
 * queue (an embryo, inp_socket NULL) until accept gives it a socket.
 * pru_detach unhooks the lwIP pcb's callbacks before freeing the inpcb,
 * so lwIP never sees a freed one.
 */
#ifndef NET_INET_PCB_H
#define NET_INET_PCB_H

#include <stdbool.h>
#include <stdint.h>

#include "lwip/ip_addr.h"
#include "lwip/pbuf.h"
#include "lwip/raw.h"
#include "lwip/tcp.h"
#include "lwip/udp.h"

#include "kern/queue.h"
#include "net/inet.h"

/* inp_state (TCP; UDP uses CLOSED and CONNECTED) */
#define INP_CLOSED	0	/* never connected, or the connection ended */
#define INP_CONNECTING	1
#define INP_CONNECTED	2
#define INP_LISTEN	3

/* inp_shut: Linux's sk_shutdown */
#define INP_RCVSHUT	1	/* the peer's FIN, SHUT_RD or a reset */
#define INP_SNDSHUT	2	/* SHUT_WR or a reset */

/* inp_events: what the interrupt handler is to wake */
#define INP_EV_READ	1
#define INP_EV_WRITE	2

/* inp_recvttl: the hop limit's control messages a receiver asked for */
#define INP_RECVTTL	1	/* IP_RECVTTL */
#define INP_RECVHOPS	2	/* IPV6_RECVHOPLIMIT */
#define INP_RECVHOPS2292 4	/* IPV6_2292HOPLIMIT */

/* Where a packet socket's frame came from (if_packet.c). */
struct indgram_ll {
	int l_ifindex;
	uint16_t l_proto;		/* the frame's type, network order */
	uint8_t l_pkttype;		/* PACKET_HOST... */
	uint8_t l_addr[6];		/* its source address */
};

/* One received datagram (UDP, raw, ping) or frame (packet). */
struct indgram {
	struct indgram *d_next;
	struct pbuf *d_p;
	union {
		struct {
			ip_addr_t d_addr;
			uint16_t d_port;
			int16_t d_ttl;	/* its IP TTL or hop limit; -1: unknown */
		};
		struct indgram_ll d_ll;	/* AF_PACKET */
	};
};

struct inpcb {
	struct socket *inp_socket;	/* core; NULL: an embryo */
	int inp_family;			/* AF_INET, AF_INET6 */
	int inp_proto;			/* IPPROTO_TCP, _UDP, _ICMP, _ICMPV6 */
	union {
		struct tcp_pcb *tcp;
		struct udp_pcb *udp;
		struct raw_pcb *raw;	/* SOCK_RAW and ping sockets */
		struct ip_pcb *ip;
		void *any;
	} inp_pcb;			/* core; NULL: none (yet, or any more) */
	int inp_state;			/* core: INP_* */
	int inp_shut;			/* core: INP_RCVSHUT, INP_SNDSHUT */
	int inp_error;			/* core: a positive errno for so_error */
	bool inp_everconn;		/* a connection was made (reads end at 0) */
	bool inp_finrcvd, inp_finsent;	/* core: TCP FINs that passed */
	bool inp_lingering;		/* core: a close waits for the ACKs */
	bool inp_connasync;		/* a connect said EINPROGRESS and no
					 * connect has told its end yet */
	ip_addr_t inp_laddr;		/* core: the local address, kept for */
	uint16_t inp_lport;		/* getsockname once the pcb is gone */

	/* TCP: received bytes, a chain of pbufs linked through ->next
	 * (only ->len counts: the head's tot_len is not kept). */
	struct pbuf *inp_rcvq, *inp_rcvtail;	/* core */
	uint32_t inp_rcvoff;		/* core: bytes of the head read */
	uint32_t inp_rcvcc;		/* core: bytes queued */
	uint32_t inp_rcvcredit;		/* core: bytes given back to lwIP's
					 * window before they were read
					 * (tcp_credit_early) */

	/* UDP, raw and ping: received datagrams. */
	struct indgram *inp_dgq, **inp_dgtail;	/* core */
	uint32_t inp_dgcc;		/* core: their bytes */
	uint32_t inp_rcvhiwat;		/* core: bound on inp_dgcc */

	/* A listener's connections not yet accepted. */
	struct inpcb *inp_acceptq, **inp_accepttail;	/* core */
	struct inpcb *inp_qnext;	/* core: an embryo's link */
	int inp_qlen;			/* core */
	int inp_backlog;		/* core */

	/* The network interrupt. */
	TAILQ_ENTRY(inpcb) inp_plink;	/* core: on the pending list */
	bool inp_pending;		/* core */
	uint32_t inp_events;		/* core: INP_EV_* */

	/* Kernel side. */
	bool inp_v6only;		/* IPV6_V6ONLY */
	bool inp_nodelay;		/* TCP_NODELAY */
	int inp_ttl;			/* IP_TTL, IPV6_UNICAST_HOPS; 0: default */
	int inp_tos;
	int inp_recvttl;		/* INP_RECVTTL... */

	/* Raw and ping sockets (inet_raw.c). */
	TAILQ_ENTRY(inpcb) inp_riplink;	/* core: on rip_all */
	bool inp_ping;			/* a ping socket (SOCK_DGRAM) */
	uint16_t inp_ident;		/* core: a ping socket's echo id; 0: none
					 * yet */
	uint32_t inp_icmpfilt[8];	/* core: ICMP(6)_FILTER, a bit set
					 * for each type not to receive */
	bool inp_hdrincl;		/* IP_HDRINCL: the guest's IPv4 header */
	int inp_cksumoff;		/* core: IPV6_CHECKSUM's offset, -1:
					 * none (lwIP's chksum_offset has 16
					 * bits; Linux keeps an int) */
	/* Packet sockets (if_packet.c). */
	TAILQ_ENTRY(inpcb) inp_pklink;	/* core: on the packet socket list */
	int inp_pkifindex;		/* core: bound to; 0: every interface */
	uint16_t inp_pkproto;		/* core: frame type, network order */
};

#define sotoinpcb(so)	((struct inpcb *)(so)->so_pcb)

/* inet_lwip.c: the network interrupt. */

/*
 * Notes events for inp's socket and posts the network interrupt (on the
 * tcpip thread, with the core lock; an embryo's events are dropped).
 */
void inp_notify(struct inpcb *inp, uint32_t events);

/* Takes inp off the pending list (core lock held): it is going away. */
void inp_unpend(struct inpcb *inp);

/*
 * Moves inp's error into its socket's so_error (kernel, core lock held).
 */
void inp_sync(struct inpcb *inp);

/* inet_addr.c: socket addresses. */

/*
 * The lwIP address and port of the guest's sockaddr addr (len bytes) for
 * a socket of family; an IPv4-mapped IPv6 address becomes IPv4 (-EINVAL
 * if v6only).  0, -EINVAL (short), -EAFNOSUPPORT (another family).
 * With unspec, an AF_UNSPEC address (len >= 2) gives -EAFNOSUPPORT's
 * place to 1 (connect's "dissolve the association").
 */
int inet_addr_in(int family, bool v6only, const char *addr, socklen_t len,
    ip_addr_t *ip, uint16_t *port, bool unspec);

/* The sockaddr of ip and port for a socket of family into addr; its length. */
socklen_t inet_addr_out(int family, const ip_addr_t *ip, uint16_t port,
    char *addr);

/* True if ip is one of this machine's addresses (or any). */
bool inet_addr_local(const ip_addr_t *ip);

/* Linux's errno for an lwIP err_t. */
int inet_errno(err_t err);

/* The lwIP address type of new pcbs of inp. */
uint8_t inp_iptype(const struct inpcb *inp);

/* The any address a pcb of inp binds to (both families unless v6only). */
const ip_addr_t *inp_any(const struct inpcb *inp);

/* An AF_INET6 socket's :: is both families' any address unless v6only. */
void inp_any_dual(const struct inpcb *inp, ip_addr_t *ip);

/*
 * bind's address: addr parsed into ip and port, a port below 1024 only
 * with CAP_NET_BIND_SERVICE (-EACCES), :: made dual.  0, or -errno.
 */
int inp_bind_addr(struct socket *so, const char *addr, socklen_t len,
    struct proc *p, ip_addr_t *ip, uint16_t *port);

/* Linux sends to the any address as to the loopback address. */
void inp_loopback_any(ip_addr_t *ip);

/*
 * What every socket together holds received and unread, bounded as
 * Linux's tcp_mem and udp_mem bound it: past INET_RCVMAX a TCP segment is
 * refused (lwIP keeps it, unacknowledged, and offers it again) and a
 * datagram dropped.  Core lock.
 */
#define INET_RCVMAX	(64u << 20)
extern uint64_t inet_rcvtotal;

/* inet_tcp.c, inet_udp.c */
extern const struct pr_usrreqs tcp_usrreqs;

/* inet_tcp_io.c: TCP data, tcp_usrreqs' send, recv, poll and nread. */
int64_t tcp_usr_send(struct socket *so, struct sockmsg *m, struct proc *p);
int64_t tcp_usr_recv(struct socket *so, struct sockmsg *m, struct proc *p);
int tcp_usr_poll(struct socket *so, int events, struct pollwaiter *pw);
int tcp_usr_nread(struct socket *so);

/* Frees the first n bytes of inp's receive queue (core lock held). */
void tcp_rcvq_drop(struct inpcb *inp, uint32_t n);

/*
 * Whether a connected pcb is writable as poll says POLLOUT: a third of
 * the send buffer free, and room in lwIP's segment queue (core lock).
 */
bool tcp_sndroom(struct tcp_pcb *pcb);
extern const struct pr_usrreqs udp_usrreqs;

/*
 * An ICMP error of error (a positive errno) about a UDP datagram sent
 * from src:sport to dst:dport, for the socket connected so (tcpip
 * thread, core lock held).
 */
void udp_ctlinput(const ip_addr_t *src, uint16_t sport, const ip_addr_t *dst,
    uint16_t dport, int error);

/*
 * inet_icmp.c: makes the kernel's raw pcbs that take ICMP errors to
 * the sockets concerned (core lock held, once at start).  0 or -ENOMEM.
 */
int icmp_err_start(void);

/* inet_raw.c: SOCK_RAW ICMP and ICMPv6, and the ping sockets. */
extern const struct pr_usrreqs rip_usrreqs;
/* Every raw and ping socket's inpcb, for /proc/net (core lock). */
TAILQ_HEAD(inpcb_list, inpcb);
extern struct inpcb_list rip_all;

/*
 * inet_dgram.c: the datagram queue of UDP, raw and ping sockets, and
 * the pr_usrreqs they share.
 */

/*
 * Queues datagram p from addr and port (hop limit ttl, -1 if unknown)
 * for inp's socket and posts the interrupt, or frees p (the socket's
 * SO_RCVBUF or INET_RCVMAX is full, or it shut reading).  The tcpip
 * thread, core lock held; the queue owns p.  True if queued.
 */
bool inp_dgram_enqueue(struct inpcb *inp, struct pbuf *p,
    const ip_addr_t *addr, uint16_t port, int ttl);

/*
 * The queueing under inp_dgram_enqueue: an entry for p linked on inp's
 * queue, for the caller to fill in before it calls inp_notify, or NULL
 * with p freed (bounds as above).  The tcpip thread or the kernel, core
 * lock held.
 */
struct indgram *inp_dgram_queue(struct inpcb *inp, struct pbuf *p);

/* af_packet.c: the sockaddr_ll of a received frame into addr; its length. */
socklen_t packet_addr_out(const struct indgram_ll *ll, char *addr);

/*
 * pru_detach of a datagram socket: its pcb (UDP or raw) removed, its
 * queue freed, its inpcb freed.
 */
void inp_dgram_detach(struct socket *so);

/* A datagram socket's association made or dissolved (core lock held). */
void inp_dgram_setconn(struct socket *so, bool connected);

/*
 * A protocol's output of one datagram (core lock held): pb holds the
 * guest's len bytes with room for the protocol's headers; to is NULL for
 * the connected peer.  0 or a negative errno; pb stays the caller's.
 */
typedef int inp_output_t(struct socket *so, struct pbuf *pb, uint64_t len,
    const ip_addr_t *to, uint16_t port);

/*
 * The common half of a datagram socket's pru_send: the guest's bytes of
 * uio (at most 65535, the caller checks its protocol's limit) copied into
 * one pbuf with room for layer's headers, then, under the core lock and
 * if the socket may send, given to output and loopback flushed.  Returns
 * the length sent, or the pending error (taken), -EPIPENOSIG after
 * SHUT_WR, -EDESTADDRREQ (to NULL, not connected), -EFAULT, -ENOBUFS (no
 * memory: Linux's word for a datagram that finds no buffer) or output's
 * error.
 */
struct uio;
int64_t inp_dgram_send(struct socket *so, struct uio *uio, pbuf_layer layer,
    const ip_addr_t *to, uint16_t port, inp_output_t *output);

/* The TTL or hop limit of the packet lwIP is taking in (its callbacks). */
int inp_input_ttl(void);

/*
 * pru_recv, pru_poll, pru_nread and pru_shutdown of a datagram socket:
 * the next datagram with its sender (and, if asked, its hop limit as a
 * control message), MSG_PEEK, MSG_TRUNC, so_error once the queue is
 * empty.
 */
int64_t inp_dgram_recv(struct socket *so, struct sockmsg *m, struct proc *p);
int inp_dgram_poll(struct socket *so, int events, struct pollwaiter *pw);
int inp_dgram_nread(struct socket *so);
int inp_dgram_shutdown(struct socket *so, int how);

/* inet_domain.c: allocation shared by the protocols. */
struct inpcb *inp_alloc(int family, int proto);
void inp_free(struct inpcb *inp);
int inet_ctloutput_ip(struct socket *so, bool set, int level, int name,
    void *val, socklen_t *len);
/* An int option's value from val (set, -EINVAL if short) or into it. */
int sockopt_int(bool set, void *val, socklen_t *len, int *v);

#endif /* NET_INET_PCB_H */

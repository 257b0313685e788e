/*
 * AF_NETLINK: Linux's ABI numbers and structures, the family's control
 * block, and the message builder its protocols answer with.  One
 * protocol exists, NETLINK_ROUTE (rtnetlink.c), which `ip` speaks: a
 * request is a datagram of messages (struct nlmsghdr, then a family
 * header, then attributes, struct nlattr), handled at once in the
 * sender's system call; the answers are datagrams queued on the
 * sender's receive buffer, from port 0 (the kernel).  lwIP-free.
 */
#ifndef NET_NETLINK_H
#define NET_NETLINK_H

#include <stdbool.h>
#include <stdint.h>

#include "kern/queue.h"
#include "net/socketvar.h"

#define AF_NETLINK	16

#define NETLINK_ROUTE	0
#define MAX_LINKS	32		/* protocols are below it */

#define SOL_NETLINK	270
#define NETLINK_ADD_MEMBERSHIP	1
#define NETLINK_DROP_MEMBERSHIP	2
#define NETLINK_PKTINFO		3
#define NETLINK_BROADCAST_ERROR	4
#define NETLINK_NO_ENOBUFS	5
#define NETLINK_LISTEN_ALL_NSID	8
#define NETLINK_CAP_ACK		10
#define NETLINK_EXT_ACK		11
#define NETLINK_GET_STRICT_CHK	12

struct sockaddr_nl {
	uint16_t nl_family;
	uint16_t nl_pad;
	uint32_t nl_pid;		/* port id; 0: the kernel */
	uint32_t nl_groups;		/* multicast groups 1..32, a mask */
};

struct nlmsghdr {
	uint32_t nlmsg_len;		/* with this header */
	uint16_t nlmsg_type;
	uint16_t nlmsg_flags;
	uint32_t nlmsg_seq;
	uint32_t nlmsg_pid;
};

struct nlmsgerr {
	int32_t error;			/* a negative errno, 0: an ack */
	struct nlmsghdr msg;		/* the request's header (and more) */
};

struct nlattr {
	uint16_t nla_len;		/* with this header */
	uint16_t nla_type;
};

#define NLMSG_ALIGN(len)	(((len) + 3u) & ~3u)
#define NLMSG_HDRLEN		((uint32_t)sizeof(struct nlmsghdr))
#define NLA_ALIGN(len)		NLMSG_ALIGN(len)
#define NLA_HDRLEN		((uint32_t)sizeof(struct nlattr))
#define NLA_TYPE_MASK		0x3fff	/* without NESTED, NET_BYTEORDER */

/* nlmsg_type: the control messages, below NLMSG_MIN_TYPE. */
#define NLMSG_NOOP	1
#define NLMSG_ERROR	2
#define NLMSG_DONE	3
#define NLMSG_OVERRUN	4
#define NLMSG_MIN_TYPE	16

/* nlmsg_flags */
#define NLM_F_REQUEST	0x01
#define NLM_F_MULTI	0x02
#define NLM_F_ACK	0x04
#define NLM_F_ECHO	0x08
#define NLM_F_ROOT	0x100		/* GET */
#define NLM_F_MATCH	0x200
#define NLM_F_DUMP	(NLM_F_ROOT | NLM_F_MATCH)
#define NLM_F_REPLACE	0x100		/* NEW */
#define NLM_F_EXCL	0x200
#define NLM_F_CREATE	0x400
#define NLM_F_APPEND	0x800
#define NLM_F_CAPPED	0x100		/* NLMSG_ERROR */

/* A datagram of a dump holds messages up to this size (Linux's NLMSG_GOODSIZE). */
#define NL_GOODSIZE	3776

/* so_pcb of a netlink socket. */
struct nlpcb {
	TAILQ_ENTRY(nlpcb) nl_link;	/* nl_all */
	struct socket *nl_socket;
	uint32_t nl_portid;
	bool nl_bound;
	uint64_t nl_groups;		/* groups 1..64, bit n-1 */
	uint32_t nl_dst_portid;		/* connect's */
	uint32_t nl_dst_groups;
	int nl_flags;			/* NLF_* */
};

#define NLF_CAP_ACK	0x01
#define NLF_EXT_ACK	0x02
#define NLF_STRICT	0x04
#define NLF_NO_ENOBUFS	0x08
#define NLF_BCAST_ERROR	0x10

#define sotonlpcb(so)	((struct nlpcb *)(so)->so_pcb)

/*
 * Answers being built for one socket: messages go into the datagram
 * being filled (nr_buf); a datagram is queued when the next message
 * would take it past NL_GOODSIZE, and at nlr_flush.
 */
struct nlreply {
	struct socket *nr_so;
	char *nr_buf;
	uint32_t nr_len, nr_cap;
	uint32_t nr_msg;		/* offset of the message being built */
	int nr_error;			/* -ENOMEM, -ENOBUFS: what went wrong */
};

/*
 * Starts a message of type and flags answering req (its sequence number
 * and the socket's port id) with a zeroed family header of hdrlen bytes:
 * a pointer to that header, or NULL (nr_error set).
 */
void *nlr_begin(struct nlreply *nr, const struct nlmsghdr *req, int type,
    int flags, uint32_t hdrlen);

/* Appends an attribute of len bytes to the message being built. */
void nlr_put(struct nlreply *nr, int type, const void *data, uint32_t len);
void nlr_put_u32(struct nlreply *nr, int type, uint32_t v);
void nlr_put_u8(struct nlreply *nr, int type, uint8_t v);
void nlr_put_str(struct nlreply *nr, int type, const char *s);

/* Ends the message being built (its length set). */
void nlr_end(struct nlreply *nr);

/*
 * A request's attributes by type: at[type] points at the attribute (the
 * last of its type wins), for types below max; attrs of len bytes follow
 * the family header.  0, or -EINVAL for an attribute whose length runs
 * past the message or is shorter than its header.
 */
int nla_parse(const struct nlattr **at, int max, const char *attrs,
    uint32_t len);

/* An attribute's payload and its length. */
static inline const void *
nla_data(const struct nlattr *a)
{
	return (const char *)a + NLA_HDRLEN;
}

static inline uint32_t
nla_len(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

/* May p change the network (CAP_NET_ADMIN)? */
bool nl_admin(struct proc *p);

/* NETLINK_ROUTE (rtnetlink.c). */

/*
 * Handles one request message nlh (nlmsg_len checked to lie within the
 * datagram, at least a header) from socket so of process p, queuing its
 * answers on nr.  0 (done; an ack if asked), a negative errno (an
 * NLMSG_ERROR), or NL_DUMPED (a dump was queued: no ack).
 */
#define NL_DUMPED	1
int rtnetlink_rcv(struct socket *so, const struct nlmsghdr *nlh,
    struct nlreply *nr, struct proc *p);

extern const struct domain netlinkdomain;

#endif /* NET_NETLINK_H */

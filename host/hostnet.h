/*
 * Host network back-ends: where the frames of a vke interface go on the
 * host.  Two kinds, behind one operations table:
 *
 *   tap    a host tap device (IFF_TAP | IFF_NO_PI | IFF_VNET_HDR):
 *          every frame the guest sends is one write, every frame the
 *          host sends one read, each behind virtio-net's header, which
 *          carries the checksum offload (hostnet_csum).  The fd is
 *          non-blocking; the host event thread (host/intr.h) says when
 *          it is readable.
 *   slirp  libslirp's user-mode NAT on a host thread of its own: the
 *          guest's frames are queued for that thread, the frames slirp
 *          sends are queued for the guest, and the thread posts the
 *          interrupt itself.
 *
 * A back-end is opened before boot (a bad -I stops vkernel with a
 * message), interrupts only after hostnet_start.  The receive side is
 * one-shot, as host/intr.h's sources: once the interrupt fired, it fires
 * again only after hostnet_rearm.  send may be called from any thread
 * (it is called by the network stack's own), recv from one thread at a
 * time.
 */
#ifndef HOST_HOSTNET_H
#define HOST_HOSTNET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct vcpu;
struct hostnet;

/* A piece of a frame to send (the kernel's headers have no iovec). */
struct hostnet_seg {
	const void *hs_base;
	size_t hs_len;
};

#define HOSTNET_MAXSEG	16	/* pieces of one frame */

/*
 * A frame's checksum, as virtio-net's header (which a tap speaks) says
 * it, on a back-end with checksum offload (hn_csum).  PARTIAL: the
 * transport checksum is not done; its field holds the pseudo-header's
 * sum, and the one's complement sum of the frame from hc_start (the
 * frame's first byte is 0) to its end, complemented, goes at hc_start +
 * hc_offset.  The host finishes it, or does not need it (a frame for
 * the host itself).  VALID: the host verified the checksum.  Neither:
 * nobody vouches for it.
 */
struct hostnet_csum {
	uint8_t hc_flags;
	uint16_t hc_start;
	uint16_t hc_offset;
};
#define HOSTNET_CSUM_PARTIAL	0x01
#define HOSTNET_CSUM_VALID	0x02

struct hostnet_ops {
	int (*start)(struct hostnet *, struct vcpu *);
	ssize_t (*send)(struct hostnet *, const struct hostnet_seg *, int);
	ssize_t (*recv)(struct hostnet *, void *, size_t);
	bool (*fired)(struct hostnet *);
	int (*rearm)(struct hostnet *);
	void (*close)(struct hostnet *);
	/* With hn_csum only: send and recv with the checksum's state. */
	ssize_t (*send_csum)(struct hostnet *, const struct hostnet_seg *, int,
	    const struct hostnet_csum *);
	ssize_t (*recv_csum)(struct hostnet *, void *, size_t,
	    struct hostnet_csum *);
};

struct hostnet {
	const struct hostnet_ops *hn_ops;
	char hn_desc[64];		/* "tap0", "slirp": for messages */
	int hn_mtu;			/* the link's: the tap's, slirp's 21885 */
	bool hn_csum;			/* checksum offload (hostnet_csum) */
};

#define HOSTNET_MAXFWD	8

/* What -I slirp asked for (see docs/net.md). */
struct hostnet_slirp_params {
	bool restricted;		/* the guest reaches 10.0.2.2 only */
	int nfwd;
	struct hostnet_fwd {
		bool udp;
		uint32_t host_addr;	/* network order; 0: any */
		uint16_t host_port;
		uint16_t guest_port;
	} fwd[HOSTNET_MAXFWD];
};

/*
 * Opens the host tap device named name: an existing one we may use, or
 * a new one if we have CAP_NET_ADMIN (then brought up).  If addr is not
 * 0 the host side gets addr/mask (network order; DragonFly's two-address
 * form).  Returns the back-end, or NULL with a reason in why.
 */
struct hostnet *hostnet_tap_open(const char *name, uint32_t addr,
    uint32_t mask, char *why, size_t whylen);

/*
 * Starts a slirp instance and its thread: the guest network 10.0.2.0/24,
 * the host 10.0.2.2, the name server 10.0.2.3, the guest 10.0.2.15, and
 * the forwards of p.  Returns the back-end, or NULL with a reason in why.
 */
struct hostnet *hostnet_slirp_open(const struct hostnet_slirp_params *p,
    char *why, size_t whylen);

/* Interrupts (INTR_DEVICE) go to cpu from now on.  0, or -1 with errno. */
static inline int
hostnet_start(struct hostnet *hn, struct vcpu *cpu)
{
	return hn->hn_ops->start(hn, cpu);
}

/*
 * Sends one frame made of the n pieces of seg (n <= HOSTNET_MAXSEG).  Returns its length,
 * -EAGAIN if the host queue is full (the frame is dropped), or another
 * negative errno.
 */
static inline ssize_t
hostnet_send(struct hostnet *hn, const struct hostnet_seg *seg, int n)
{
	return hn->hn_ops->send(hn, seg, n);
}

/*
 * Takes one frame into buf (len bytes; a longer frame is cut to len).
 * Returns its length, -EAGAIN if none waits, or another negative errno.
 */
static inline ssize_t
hostnet_recv(struct hostnet *hn, void *buf, size_t len)
{
	return hn->hn_ops->recv(hn, buf, len);
}

/*
 * hostnet_send with the frame's checksum state (cs NULL: complete); on
 * a back-end without hn_csum only complete checksums may go.
 */
static inline ssize_t
hostnet_send_csum(struct hostnet *hn, const struct hostnet_seg *seg, int n,
    const struct hostnet_csum *cs)
{
	if (hn->hn_ops->send_csum != NULL)
		return hn->hn_ops->send_csum(hn, seg, n, cs);
	return hn->hn_ops->send(hn, seg, n);
}

/* hostnet_recv, and what the host says of the frame's checksum in *cs. */
static inline ssize_t
hostnet_recv_csum(struct hostnet *hn, void *buf, size_t len,
    struct hostnet_csum *cs)
{
	if (hn->hn_ops->recv_csum != NULL)
		return hn->hn_ops->recv_csum(hn, buf, len, cs);
	cs->hc_flags = 0;
	return hn->hn_ops->recv(hn, buf, len);
}

/* Takes the fired mark: true if the interrupt fired since the last call. */
static inline bool
hostnet_fired(struct hostnet *hn)
{
	return hn->hn_ops->fired(hn);
}

/* Re-arms the receive interrupt once the queue was drained.  0 or -1. */
static inline int
hostnet_rearm(struct hostnet *hn)
{
	return hn->hn_ops->rearm(hn);
}

/* Stops the back-end (its thread, if any) and frees it. */
static inline void
hostnet_close(struct hostnet *hn)
{
	hn->hn_ops->close(hn);
}

#endif /* HOST_HOSTNET_H */

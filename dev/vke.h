/*
 * vke: ethernet interfaces over the host's network, after DragonFly's
 * vke ("VKE implements an ethernet interface that tunnels all the packets
 * it gets to the corresponding tap interface in the host kernel").  Each
 * -I option becomes vke0, vke1...; the frames go to a host tap device or
 * to libslirp (host/hostnet.h).
 *
 * The driver moves frames and counts them; the network stack above it
 * (net/if_vke.c) owns the buffers.  Transmit is vke_transmit, from any
 * thread (the stack's own).  Receive is driven by an interrupt: when the
 * host has frames, INTR_DEVICE reaches a CPU, vke_intr calls the stack's
 * rxready hook, and the stack takes the frames with vke_receive until
 * -EAGAIN, then re-arms the interrupt with vke_rxdone.
 */
#ifndef DEV_VKE_H
#define DEV_VKE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "host/hostnet.h"

#define VKE_MAXUNITS	8
#define VKE_MTU		1500	/* the default */
#define VKE_FRAME_MAX	1518	/* header, MTU and a VLAN tag; no FCS */
/* The largest MTU: its frame (VKE_FRAMELEN) fits lwIP's 16-bit lengths. */
#define VKE_MTU_MAX	65517
#define VKE_FRAMELEN(mtu) ((mtu) + 18)

struct vke_softc;

/* Interface counters, as /proc/net/dev shows them. */
struct vke_stats {
	uint64_t rx_packets, rx_bytes, rx_errors, rx_dropped;
	uint64_t tx_packets, tx_bytes, tx_errors, tx_dropped;
};

/* The static configuration -I gave the guest side (network order; 0: none). */
struct vke_ifconfig {
	uint32_t addr, mask, gw;
};

/*
 * Host side, before boot: parses one -I argument and opens its back-end
 * (docs/net.md, "vke"):
 *   tapN[:addr[/len]]           the host tap tapN; the guest is addr/len
 *   tapN:hostaddr:addr[/len]    also gives the host side hostaddr/len
 *   slirp                       libslirp; the guest is 10.0.2.15/24
 * followed by options: ",gw=A" (a default route), and for slirp
 * ",hostfwd=[tcp|udp]:[hostaddr]:hostport-[guestaddr]:guestport"
 * (repeatable) and ",restrict=on|off".  Returns 0, or -1 with *why
 * saying what is wrong (the caller prints it and exits).
 */
int vke_config(const char *spec, const char **why);

/*
 * Registers the interrupt handler of the interfaces vke_config made.
 * At boot; 0 or a negative errno.
 */
int vke_attach(void);

/* The number of interfaces configured, and unit n of them (or NULL). */
int vke_count(void);
struct vke_softc *vke_unit(int n);

const char *vke_name(const struct vke_softc *sc);		/* "vke0" */
const uint8_t *vke_macaddr(const struct vke_softc *sc);	/* 6 bytes */
const struct vke_ifconfig *vke_ifconfig(const struct vke_softc *sc);
void vke_getstats(const struct vke_softc *sc, struct vke_stats *st);

/*
 * Starts receiving: from now on, when the host has frames for sc,
 * rxready(arg) is called from the interrupt handler (on a CPU, with the
 * big lock held; it must not block).  0 or a negative errno.
 */
int vke_start(struct vke_softc *sc, void (*rxready)(void *), void *arg);

/*
 * Sends one frame made of n pieces (at most HOSTNET_MAXSEG), its
 * checksum state cs (NULL: complete; a partial one only if
 * vke_csum_offload).  Any thread, no kernel lock needed.
 * A frame the host does not take is dropped and counted.  Returns 0 or a
 * negative errno.
 */
int vke_transmit(struct vke_softc *sc, const struct hostnet_seg *seg, int n,
    const struct hostnet_csum *cs);

/*
 * True if the back-end offloads checksums (host/hostnet.h's
 * hostnet_csum): frames may go with their TCP checksum partial, and come
 * with it partial or verified.
 */
bool vke_csum_offload(const struct vke_softc *sc);

/*
 * The interface's MTU: the host link's (a tap's own, which the host may
 * have raised), between 576 and VKE_MTU_MAX.  Frames received are at
 * most VKE_FRAMELEN of it.
 */
int vke_mtu(const struct vke_softc *sc);

/*
 * Takes one received frame into buf (len bytes, at least VKE_FRAMELEN of
 * the MTU; a longer frame is cut), and what the host says of its
 * checksum into *cs (always nothing without vke_csum_offload).
 * Returns its length, or -EAGAIN when the host has none.  One thread at
 * a time; no kernel lock needed.
 */
ssize_t vke_receive(struct vke_softc *sc, void *buf, size_t len,
    struct hostnet_csum *cs);

/* Counts a frame the stack could not take (no buffer). */
void vke_rxdrop(struct vke_softc *sc);

/* Re-arms the receive interrupt after vke_receive said -EAGAIN. */
void vke_rxdone(struct vke_softc *sc);

#endif /* DEV_VKE_H */

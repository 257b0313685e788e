/*
 * AF_PACKET sockets (net/if_packet.c): frames as the Ethernet driver
 * sees them, for root (CAP_NET_RAW), as busybox udhcpc and tcpdump use
 * them.
 */
#ifndef NET_IF_PACKET_H
#define NET_IF_PACKET_H

#include <stdbool.h>

#define SOL_PACKET	263

struct netif;
struct pbuf;

extern const struct domain packetdomain;

/*
 * Gives each packet socket that wants it a copy of frame p (payload at
 * its Ethernet header) that interface nif received, or, outgoing, sent.
 * The driver calls it before lwIP sees a received frame and as a frame
 * leaves; the tcpip thread or a sending kernel thread, core lock held.
 * p is the caller's still.
 */
void packet_tap(struct netif *nif, struct pbuf *p, bool outgoing);

#endif /* NET_IF_PACKET_H */

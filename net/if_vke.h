/*
 * vke interfaces in the TCP/IP stack: one lwIP netif per vke unit
 * (dev/vke.h), added at boot with the address -I gave it.
 */
#ifndef NET_IF_VKE_H
#define NET_IF_VKE_H

struct netif;
struct vke_softc;

/*
 * Adds a netif for every vke unit: up, with its MAC address, its -I
 * address, netmask and gateway (the default route when there is one,
 * the first interface's winning) and an IPv6 link-local address, and
 * starts its receive interrupt.  At boot, after inet_lwip_start.
 * Returns 0 or a negative errno.
 */
int if_vke_attach(void);

/* The vke unit behind netif nif, or NULL if nif is no vke interface. */
struct vke_softc *if_vke_softc(const struct netif *nif);

#endif /* NET_IF_VKE_H */

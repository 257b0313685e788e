/*
 * The interface layer over lwIP's netifs (see if.h): names, indexes,
 * flags, MTU, addresses and the default route, by index, for the
 * interface ioctls (if_ioctl.c) and rtnetlink (rtnetlink.c) alike.
 *
 * An index is lwIP's netif_get_index (its number plus one, so lo, added
 * first, is 1 as on Linux).  Every function takes the core lock for its
 * own span only: callers copy to and from the guest between calls.
 */
#include <errno.h>
#include <string.h>

#include "lwip/ip4.h"
#include "lwip/netif.h"
#include "lwip/tcpip.h"

#include "kern/kernel.h"
#include "net/if.h"
#include "net/inet_lwip.h"

#define RT_SCOPE_LINK	253
#define RT_SCOPE_HOST	254

/* lwIP's MTU is 16 bits: lo's 65535 stands for Linux's 65536. */
#define LO_MTU_LINUX	65536

/* Linux names by netif index (1..255); "" for lwIP's own. */
static char if_names[256][IFNAMSIZ];

void
if_setname(struct netif *nif, const char *name)
{
	u8_t i = netif_get_index(nif);
	strncpy(if_names[i], name, IFNAMSIZ - 1);
}

void
if_name(struct netif *nif, char *buf)
{
	u8_t i = netif_get_index(nif);
	if (if_names[i][0] != 0)
		memcpy(buf, if_names[i], IFNAMSIZ);
	else if (nif == inet_lwip_loif())
		strcpy(buf, "lo");
	else
		snprintf(buf, IFNAMSIZ, "%c%c%u", nif->name[0], nif->name[1],
		    nif->num);
}

/* The netif of index (core lock held), or NULL. */
static struct netif *
if_byindex(int index)
{
	if (index <= 0 || index > 255)
		return NULL;
	return netif_get_by_index((u8_t)index);
}

static int
if_nifflags(struct netif *nif)
{
	int f = 0;
	if (netif_is_up(nif))
		f |= IFF_UP;
	if (netif_is_link_up(nif)) {
		f |= IFF_LOWER_UP;
		if (netif_is_up(nif))
			f |= IFF_RUNNING;
	}
	if (nif == inet_lwip_loif())
		f |= IFF_LOOPBACK;
	if (nif->flags & NETIF_FLAG_BROADCAST)
		f |= IFF_BROADCAST;
	if (nif->flags & (NETIF_FLAG_IGMP | NETIF_FLAG_MLD6))
		f |= IFF_MULTICAST;
	return f;
}

int
if_get(int index, struct ifstate *ifs)
{
	struct netif *nif;

	memset(ifs, 0, sizeof(*ifs));
	LOCK_TCPIP_CORE();
	if ((nif = if_byindex(index)) == NULL) {
		UNLOCK_TCPIP_CORE();
		return -ENODEV;
	}
	ifs->ifs_index = index;
	if_name(nif, ifs->ifs_name);
	ifs->ifs_flags = if_nifflags(nif);
	bool lo = nif == inet_lwip_loif();
	ifs->ifs_mtu = lo && nif->mtu == 65535 ? LO_MTU_LINUX : nif->mtu;
	ifs->ifs_type = lo ? ARPHRD_LOOPBACK : ARPHRD_ETHER;
	ifs->ifs_hwlen = lo ? 6 : MIN(nif->hwaddr_len, IF_HWADDR_MAX);
	if (!lo)
		memcpy(ifs->ifs_hwaddr, nif->hwaddr, ifs->ifs_hwlen);
	ifs->ifs_addr = ip4_addr_get_u32(netif_ip4_addr(nif));
	ifs->ifs_mask = ifs->ifs_addr != 0 ?
	    ip4_addr_get_u32(netif_ip4_netmask(nif)) : 0;
	inet_if_counts(nif, &ifs->ifs_rxpackets, &ifs->ifs_rxbytes,
	    &ifs->ifs_txpackets, &ifs->ifs_txbytes);
	UNLOCK_TCPIP_CORE();
	return 0;
}

int
if_next(int after)
{
	struct netif *nif;
	int best = 0;

	LOCK_TCPIP_CORE();
	NETIF_FOREACH(nif) {
		int i = netif_get_index(nif);
		if (i > after && (best == 0 || i < best))
			best = i;
	}
	UNLOCK_TCPIP_CORE();
	return best;
}

int
if_index(const char *name)
{
	struct netif *nif;
	char buf[IFNAMSIZ];
	int index = -ENODEV;

	LOCK_TCPIP_CORE();
	NETIF_FOREACH(nif) {
		if_name(nif, buf);
		if (strncmp(buf, name, IFNAMSIZ) == 0) {
			index = netif_get_index(nif);
			break;
		}
	}
	UNLOCK_TCPIP_CORE();
	return index;
}

int
if_setflags(int index, int flags)
{
	struct netif *nif;

	LOCK_TCPIP_CORE();
	if ((nif = if_byindex(index)) == NULL) {
		UNLOCK_TCPIP_CORE();
		return -ENODEV;
	}
	if ((flags & IFF_UP) && !netif_is_up(nif))
		netif_set_up(nif);
	else if (!(flags & IFF_UP) && netif_is_up(nif))
		netif_set_down(nif);
	UNLOCK_TCPIP_CORE();
	return 0;
}

int
if_setmtu(int index, int mtu)
{
	struct netif *nif;

	if (mtu < 68 || mtu > LO_MTU_LINUX)
		return -EINVAL;
	LOCK_TCPIP_CORE();
	if ((nif = if_byindex(index)) == NULL) {
		UNLOCK_TCPIP_CORE();
		return -ENODEV;
	}
	nif->mtu = (u16_t)MIN(mtu, 65535);
	UNLOCK_TCPIP_CORE();
	return 0;
}

int
if_setaddr4(int index, uint32_t addr, uint32_t mask)
{
	struct netif *nif;
	ip4_addr_t a, m;

	/* In host order the zeros of a good mask are a run at the bottom. */
	uint32_t zeros = lwip_ntohl(~mask);
	if (addr != 0 && (zeros & (zeros + 1)) != 0)
		return -EINVAL;
	LOCK_TCPIP_CORE();
	if ((nif = if_byindex(index)) == NULL) {
		UNLOCK_TCPIP_CORE();
		return -ENODEV;
	}
	ip4_addr_set_u32(&a, addr);
	ip4_addr_set_u32(&m, addr != 0 ? mask : 0);
	if (addr == 0) {
		netif_set_gw(nif, IP4_ADDR_ANY4);
		if (netif_default == nif)
			netif_set_default(NULL);
	}
	netif_set_netmask(nif, &m);
	netif_set_ipaddr(nif, &a);
	UNLOCK_TCPIP_CORE();
	return 0;
}

int
if_addrs6(int index, struct ifaddr6 *out, int max)
{
	struct netif *nif;
	int n = 0;

	LOCK_TCPIP_CORE();
	if ((nif = if_byindex(index)) == NULL) {
		UNLOCK_TCPIP_CORE();
		return -ENODEV;
	}
	for (int i = 0; i < LWIP_IPV6_NUM_ADDRESSES && n < max; i++) {
		u8_t st = netif_ip6_addr_state(nif, i);
		if (!ip6_addr_isvalid(st) && !ip6_addr_istentative(st))
			continue;
		const ip6_addr_t *a = netif_ip6_addr(nif, i);
		struct ifaddr6 *ia = &out[n++];
		memcpy(ia->ia6_addr, a->addr, 16);
		ia->ia6_plen = ip6_addr_isloopback(a) ? 128 : 64;
		ia->ia6_scope = ip6_addr_isloopback(a) ? RT_SCOPE_HOST :
		    ip6_addr_islinklocal(a) ? RT_SCOPE_LINK : 0;
		ia->ia6_tentative = ip6_addr_istentative(st);
		ia->ia6_deprecated = ip6_addr_isdeprecated(st);
	}
	UNLOCK_TCPIP_CORE();
	return n;
}

/* The slot of nif holding addr (core lock held), or -1. */
static int
if_slot6(struct netif *nif, const ip6_addr_t *a)
{
	for (int i = 0; i < LWIP_IPV6_NUM_ADDRESSES; i++) {
		u8_t st = netif_ip6_addr_state(nif, i);
		if ((ip6_addr_isvalid(st) || ip6_addr_istentative(st)) &&
		    ip6_addr_cmp_zoneless(netif_ip6_addr(nif, i), a))
			return i;
	}
	return -1;
}

static void
if_ip6(ip6_addr_t *a, const uint8_t addr[16])
{
	memset(a, 0, sizeof(*a));
	memcpy(a->addr, addr, 16);
}

int
if_addaddr6(int index, const uint8_t addr[16])
{
	struct netif *nif;
	ip6_addr_t a;
	s8_t slot;
	int error = 0;

	if_ip6(&a, addr);
	LOCK_TCPIP_CORE();
	if ((nif = if_byindex(index)) == NULL)
		error = -ENODEV;
	else if (ip6_addr_isany(&a) || ip6_addr_ismulticast(&a) ||
	    (ip6_addr_isloopback(&a) && nif != inet_lwip_loif()))
		error = -EADDRNOTAVAIL;
	else if (if_slot6(nif, &a) >= 0)
		error = -EEXIST;
	else if (netif_add_ip6_address(nif, &a, &slot) != ERR_OK)
		error = -ENOSPC;
	else if (nif == inet_lwip_loif())
		/* No duplicate detection on lo: its probes come back to it. */
		netif_ip6_addr_set_state(nif, slot, IP6_ADDR_PREFERRED);
	UNLOCK_TCPIP_CORE();
	return error;
}

int
if_deladdr6(int index, const uint8_t addr[16])
{
	struct netif *nif;
	ip6_addr_t a;
	int error = 0, slot;

	if_ip6(&a, addr);
	LOCK_TCPIP_CORE();
	if ((nif = if_byindex(index)) == NULL)
		error = -ENODEV;
	else if ((slot = if_slot6(nif, &a)) < 0)
		error = -EADDRNOTAVAIL;
	else
		netif_ip6_addr_set_state(nif, (s8_t)slot, IP6_ADDR_INVALID);
	UNLOCK_TCPIP_CORE();
	return error;
}

int
if_defroute(int *index, uint32_t *gw)
{
	int error = -ESRCH;

	LOCK_TCPIP_CORE();
	if (netif_default != NULL) {
		*index = netif_get_index(netif_default);
		*gw = ip4_addr_get_u32(netif_ip4_gw(netif_default));
		error = 0;
	}
	UNLOCK_TCPIP_CORE();
	return error;
}

/* Does nif's IPv4 subnet hold gw (core lock held)? */
static bool
if_onlink(struct netif *nif, const ip4_addr_t *gw)
{
	return !ip4_addr_isany_val(*netif_ip4_addr(nif)) &&
	    ip4_addr_netcmp(gw, netif_ip4_addr(nif), netif_ip4_netmask(nif));
}

int
if_setdefroute(int index, uint32_t gw)
{
	struct netif *nif = NULL, *n;
	ip4_addr_t g;
	int error = 0;

	ip4_addr_set_u32(&g, gw);
	LOCK_TCPIP_CORE();
	if (index != 0) {
		if ((nif = if_byindex(index)) == NULL)
			error = -ENODEV;
		else if (gw != 0 && !if_onlink(nif, &g))
			error = -ENETUNREACH;
	} else {
		NETIF_FOREACH(n)
			if (n != inet_lwip_loif() && if_onlink(n, &g)) {
				nif = n;
				break;
			}
		if (nif == NULL)
			error = -ENETUNREACH;
	}
	if (error == 0) {
		if (netif_default != NULL && netif_default != nif)
			netif_set_gw(netif_default, IP4_ADDR_ANY4);
		netif_set_gw(nif, &g);
		netif_set_default(nif);
	}
	UNLOCK_TCPIP_CORE();
	return error;
}

int
if_deldefroute(void)
{
	int error = 0;

	LOCK_TCPIP_CORE();
	if (netif_default == NULL)
		error = -ESRCH;
	else
		netif_set_gw(netif_default, IP4_ADDR_ANY4);
	netif_set_default(NULL);
	UNLOCK_TCPIP_CORE();
	return error;
}

int
if_route4(uint32_t dst, int *index, uint32_t *gw, uint32_t *src,
    bool *local)
{
	struct netif *nif, *n;
	ip4_addr_t d;
	int error = 0;

	ip4_addr_set_u32(&d, dst);
	*local = false;
	LOCK_TCPIP_CORE();
	NETIF_FOREACH(n)
		if (netif_is_up(n) && ip4_addr_cmp(&d, netif_ip4_addr(n)))
			*local = true;
	if (*local || ip4_addr_isloopback(&d))
		nif = inet_lwip_loif();
	else
		nif = ip4_route(&d);
	if (nif == NULL) {
		error = -ENETUNREACH;
	} else {
		*index = netif_get_index(nif);
		*gw = *local || if_onlink(nif, &d) || nif == inet_lwip_loif() ? 0 :
		    ip4_addr_get_u32(netif_ip4_gw(nif));
		*src = *local ? dst : ip4_addr_get_u32(netif_ip4_addr(nif));
		*local |= nif == inet_lwip_loif();
	}
	UNLOCK_TCPIP_CORE();
	return error;
}

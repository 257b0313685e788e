/*
 * The interface ioctls over lwIP's netifs (see if.h).  lwIP has no
 * routing table: a packet leaves by the interface whose subnet holds its
 * destination, else by the default interface towards its gateway.  So
 * SIOCADDRT and SIOCDELRT take default routes only (the gateway's
 * interface becomes the default, with that gateway); a subnet's route
 * comes with its interface's address and netmask.
 */
#include <errno.h>
#include <string.h>

#include "lwip/netif.h"
#include "lwip/tcpip.h"

#include "kern/kernel.h"
#include "kern/proc.h"
#include "kern/ucred.h"
#include "kern/uio.h"
#include "net/if.h"
#include "net/inet.h"
#include "net/inet_lwip.h"

#define CAP_NET_ADMIN	12

#define IFF_UP		0x1
#define IFF_BROADCAST	0x2
#define IFF_LOOPBACK	0x8
#define IFF_RUNNING	0x40
#define IFF_MULTICAST	0x1000

#define ARPHRD_ETHER	1
#define ARPHRD_LOOPBACK	772

#define RTF_UP		0x1
#define RTF_GATEWAY	0x2

struct linux_sockaddr {
	uint16_t sa_family;
	uint8_t sa_data[14];
};

struct linux_ifreq {
	char ifr_name[IFNAMSIZ];
	union {
		struct linux_sockaddr ifr_addr;
		struct inet_sockaddr_in ifr_sin;
		int16_t ifr_flags;
		int32_t ifr_ivalue;	/* index, metric, MTU, queue length */
		uint8_t ifr_map[24];
	};
};

struct linux_ifconf {
	int32_t ifc_len;
	uint32_t ifc_pad;
	uint64_t ifc_buf;
};

struct linux_rtentry {
	uint64_t rt_pad1;
	struct inet_sockaddr_in rt_dst, rt_gateway, rt_genmask;
	uint16_t rt_flags;
	int16_t rt_pad2;
	uint64_t rt_pad3;
	uint64_t rt_pad4;
	int16_t rt_metric;
	uint64_t rt_dev;
	uint64_t rt_mtu, rt_window;
	uint16_t rt_irtt;
};

const struct ioctl_cmd if_ioctls[] = {
	IOCTL_CMD(SIOCGIFCONF, IOCD_INOUT, sizeof(struct linux_ifconf)),
	IOCTL_CMD(SIOCGIFNAME, IOCD_INOUT, sizeof(struct linux_ifreq)),
	IOCTL_CMD(SIOCGIFFLAGS, IOCD_INOUT, sizeof(struct linux_ifreq)),
	IOCTL_CMD(SIOCSIFFLAGS, IOCD_IN, sizeof(struct linux_ifreq)),
	IOCTL_CMD(SIOCGIFADDR, IOCD_INOUT, sizeof(struct linux_ifreq)),
	IOCTL_CMD(SIOCSIFADDR, IOCD_IN, sizeof(struct linux_ifreq)),
	IOCTL_CMD(SIOCGIFDSTADDR, IOCD_INOUT, sizeof(struct linux_ifreq)),
	IOCTL_CMD(SIOCGIFBRDADDR, IOCD_INOUT, sizeof(struct linux_ifreq)),
	IOCTL_CMD(SIOCSIFBRDADDR, IOCD_IN, sizeof(struct linux_ifreq)),
	IOCTL_CMD(SIOCGIFNETMASK, IOCD_INOUT, sizeof(struct linux_ifreq)),
	IOCTL_CMD(SIOCSIFNETMASK, IOCD_IN, sizeof(struct linux_ifreq)),
	IOCTL_CMD(SIOCGIFMETRIC, IOCD_INOUT, sizeof(struct linux_ifreq)),
	IOCTL_CMD(SIOCGIFMTU, IOCD_INOUT, sizeof(struct linux_ifreq)),
	IOCTL_CMD(SIOCSIFMTU, IOCD_IN, sizeof(struct linux_ifreq)),
	IOCTL_CMD(SIOCGIFHWADDR, IOCD_INOUT, sizeof(struct linux_ifreq)),
	IOCTL_CMD(SIOCGIFINDEX, IOCD_INOUT, sizeof(struct linux_ifreq)),
	IOCTL_CMD(SIOCGIFTXQLEN, IOCD_INOUT, sizeof(struct linux_ifreq)),
	IOCTL_CMD(SIOCGIFMAP, IOCD_INOUT, sizeof(struct linux_ifreq)),
	IOCTL_CMD(SIOCADDRT, IOCD_IN, sizeof(struct linux_rtentry)),
	IOCTL_CMD(SIOCDELRT, IOCD_IN, sizeof(struct linux_rtentry)),
	IOCTL_END,
};

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

/* The interface named name (core lock held), or NULL. */
static struct netif *
if_find(const char *name)
{
	struct netif *nif;
	char buf[IFNAMSIZ], want[IFNAMSIZ];

	memcpy(want, name, IFNAMSIZ);
	want[IFNAMSIZ - 1] = 0;
	NETIF_FOREACH(nif) {
		if_name(nif, buf);
		if (strcmp(buf, want) == 0)
			return nif;
	}
	return NULL;
}

int
if_flags(struct netif *nif)
{
	int f = 0;
	if (netif_is_up(nif))
		f |= IFF_UP;
	if (netif_is_link_up(nif) && netif_is_up(nif))
		f |= IFF_RUNNING;
	if (nif == inet_lwip_loif())
		f |= IFF_LOOPBACK;
	if (nif->flags & NETIF_FLAG_BROADCAST)
		f |= IFF_BROADCAST;
	if (nif->flags & (NETIF_FLAG_IGMP | NETIF_FLAG_MLD6))
		f |= IFF_MULTICAST;
	return f;
}

static void
set_sin(struct linux_ifreq *ifr, uint32_t addr)
{
	memset(&ifr->ifr_sin, 0, sizeof(ifr->ifr_sin));
	ifr->ifr_sin.sin_family = AF_INET;
	ifr->ifr_sin.sin_addr = addr;
}

static int
get_sin(const struct linux_ifreq *ifr, ip4_addr_t *a)
{
	if (ifr->ifr_sin.sin_family != AF_INET)
		return -EINVAL;
	ip4_addr_set_u32(a, ifr->ifr_sin.sin_addr);
	return 0;
}

/* SIOCGIFCONF: each interface with an IPv4 address, as Linux lists them. */
static int
ifconf(struct linux_ifconf *ifc)
{
	struct netif *nif;
	struct linux_ifreq ifr;
	int32_t off = 0;

	if (ifc->ifc_len < 0)
		return -EINVAL;
	LOCK_TCPIP_CORE();
	NETIF_FOREACH(nif) {
		if (ip4_addr_isany_val(*netif_ip4_addr(nif)))
			continue;
		if (ifc->ifc_buf != 0) {
			if (off + (int32_t)sizeof(ifr) > ifc->ifc_len)
				break;
			memset(&ifr, 0, sizeof(ifr));
			if_name(nif, ifr.ifr_name);
			set_sin(&ifr, ip4_addr_get_u32(netif_ip4_addr(nif)));
			UNLOCK_TCPIP_CORE();
			int error = copyout(&ifr, ifc->ifc_buf + (uint64_t)off,
			    sizeof(ifr));
			LOCK_TCPIP_CORE();
			if (error < 0) {
				UNLOCK_TCPIP_CORE();
				return error;
			}
		}
		off += sizeof(ifr);
	}
	UNLOCK_TCPIP_CORE();
	ifc->ifc_len = off;
	return 0;
}

/* SIOCADDRT, SIOCDELRT: default routes (see above). */
static int
ifroute(unsigned long cmd, const struct linux_rtentry *rt)
{
	struct netif *nif;
	ip4_addr_t gw;

	if (rt->rt_dst.sin_family != AF_INET || rt->rt_dst.sin_addr != 0 ||
	    (rt->rt_genmask.sin_family == AF_INET && rt->rt_genmask.sin_addr != 0)) {
		kprintf("inet: only default routes can be set\n");
		return -EOPNOTSUPP;
	}
	ip4_addr_set_u32(&gw, (rt->rt_flags & RTF_GATEWAY) ?
	    rt->rt_gateway.sin_addr : 0);
	int error = 0;
	LOCK_TCPIP_CORE();
	if (cmd == SIOCDELRT) {
		if (netif_default == NULL)
			error = -ESRCH;
		else
			netif_set_gw(netif_default, IP4_ADDR_ANY4);
		netif_set_default(NULL);
	} else {
		error = -ENETUNREACH;
		NETIF_FOREACH(nif) {
			if (!ip4_addr_isany_val(*netif_ip4_addr(nif)) &&
			    ip4_addr_netcmp(&gw, netif_ip4_addr(nif),
			    netif_ip4_netmask(nif))) {
				netif_set_gw(nif, &gw);
				netif_set_default(nif);
				error = 0;
				break;
			}
		}
	}
	UNLOCK_TCPIP_CORE();
	return error;
}

static bool
ifadmin(struct proc *p)
{
	return (p->p_ucred->cr_capeff & (1ULL << CAP_NET_ADMIN)) != 0;
}

int
ifioctl(unsigned long cmd, void *data, struct proc *p)
{
	struct linux_ifreq *ifr = data;
	struct netif *nif;
	ip4_addr_t a;
	int error = 0;

	switch (cmd) {
	case SIOCGIFCONF:
		return ifconf(data);
	case SIOCADDRT:
	case SIOCDELRT:
		return ifadmin(p) ? ifroute(cmd, data) : -EPERM;
	case SIOCGIFNAME:
		LOCK_TCPIP_CORE();
		nif = ifr->ifr_ivalue > 0 && ifr->ifr_ivalue < 256 ?
		    netif_get_by_index((u8_t)ifr->ifr_ivalue) : NULL;
		if (nif != NULL)
			if_name(nif, ifr->ifr_name);
		UNLOCK_TCPIP_CORE();
		return nif != NULL ? 0 : -ENODEV;
	case SIOCSIFFLAGS:
	case SIOCSIFADDR:
	case SIOCSIFNETMASK:
	case SIOCSIFBRDADDR:
	case SIOCSIFMTU:
		if (!ifadmin(p))
			return -EPERM;
		break;
	}
	LOCK_TCPIP_CORE();
	if ((nif = if_find(ifr->ifr_name)) == NULL) {
		UNLOCK_TCPIP_CORE();
		return -ENODEV;
	}
	uint32_t addr = ip4_addr_get_u32(netif_ip4_addr(nif));
	uint32_t mask = ip4_addr_get_u32(netif_ip4_netmask(nif));
	switch (cmd) {
	case SIOCGIFFLAGS:
		ifr->ifr_flags = (int16_t)if_flags(nif);
		break;
	case SIOCSIFFLAGS:
		if ((ifr->ifr_flags & IFF_UP) && !netif_is_up(nif))
			netif_set_up(nif);
		else if (!(ifr->ifr_flags & IFF_UP) && netif_is_up(nif))
			netif_set_down(nif);
		break;
	case SIOCGIFADDR:
	case SIOCGIFDSTADDR:
	case SIOCGIFNETMASK:
	case SIOCGIFBRDADDR:
		if (addr == 0) {
			error = -EADDRNOTAVAIL;
			break;
		}
		set_sin(ifr, cmd == SIOCGIFNETMASK ? mask :
		    cmd == SIOCGIFBRDADDR ? ((nif->flags & NETIF_FLAG_BROADCAST) ?
		    addr | ~mask : 0) : addr);
		break;
	case SIOCSIFADDR:
		if ((error = get_sin(ifr, &a)) == 0)
			netif_set_ipaddr(nif, &a);
		break;
	case SIOCSIFNETMASK:
		if ((error = get_sin(ifr, &a)) == 0)
			netif_set_netmask(nif, &a);
		break;
	case SIOCSIFBRDADDR:
		/* lwIP derives the broadcast address from address and mask. */
		error = get_sin(ifr, &a);
		break;
	case SIOCGIFMETRIC:
		ifr->ifr_ivalue = 0;
		break;
	case SIOCGIFMTU:
		/* lwIP's MTU is 16 bits: lo's 65535 stands for Linux's 65536. */
		ifr->ifr_ivalue = nif == inet_lwip_loif() && nif->mtu == 65535 ?
		    65536 : nif->mtu;
		break;
	case SIOCSIFMTU:
		if (ifr->ifr_ivalue < 68 || ifr->ifr_ivalue > 65536)
			error = -EINVAL;
		else if (ifr->ifr_ivalue == 65536)
			nif->mtu = 65535;
		else
			nif->mtu = (u16_t)ifr->ifr_ivalue;
		break;
	case SIOCGIFHWADDR:
		memset(&ifr->ifr_addr, 0, sizeof(ifr->ifr_addr));
		ifr->ifr_addr.sa_family = nif == inet_lwip_loif() ? ARPHRD_LOOPBACK :
		    ARPHRD_ETHER;
		memcpy(ifr->ifr_addr.sa_data, nif->hwaddr,
		    MIN(nif->hwaddr_len, sizeof(ifr->ifr_addr.sa_data)));
		break;
	case SIOCGIFINDEX:
		ifr->ifr_ivalue = netif_get_index(nif);
		break;
	case SIOCGIFTXQLEN:
		ifr->ifr_ivalue = 1000;
		break;
	case SIOCGIFMAP:
		memset(ifr->ifr_map, 0, sizeof(ifr->ifr_map));
		break;
	default:
		error = -ENOTTY;
		break;
	}
	UNLOCK_TCPIP_CORE();
	return error;
}

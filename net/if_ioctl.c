/*
 * The interface ioctls (see if.h), over the interface layer
 * (if_lwip.c).  lwIP has no routing table: a packet leaves by the
 * interface whose subnet holds its destination, else by the default
 * interface towards its gateway.  So SIOCADDRT and SIOCDELRT take
 * default routes only (the gateway's interface becomes the default,
 * with that gateway); a subnet's route comes with its interface's
 * address and netmask.
 */
#include <errno.h>
#include <string.h>

#include "kern/kernel.h"
#include "kern/proc.h"
#include "kern/ucred.h"
#include "kern/uio.h"
#include "net/if.h"
#include "net/inet.h"

#define CAP_NET_ADMIN	12

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

static void
set_sin(struct linux_ifreq *ifr, uint32_t addr)
{
	memset(&ifr->ifr_sin, 0, sizeof(ifr->ifr_sin));
	ifr->ifr_sin.sin_family = AF_INET;
	ifr->ifr_sin.sin_addr = addr;
}

static int
get_sin(const struct linux_ifreq *ifr, uint32_t *a)
{
	if (ifr->ifr_sin.sin_family != AF_INET)
		return -EINVAL;
	*a = ifr->ifr_sin.sin_addr;
	return 0;
}

/* The netmask of a (network order)'s class: A, B or C. */
static uint32_t
classmask(uint32_t a)
{
	uint8_t b[4] = { 0 }, first;
	uint32_t m;

	memcpy(&first, &a, 1);
	memset(b, 0xff, first < 128 ? 1 : first < 192 ? 2 : 3);
	memcpy(&m, b, sizeof(m));
	return m;
}

/* SIOCGIFCONF: each interface with an IPv4 address, as Linux lists them. */
static int
ifconf(struct linux_ifconf *ifc)
{
	struct linux_ifreq ifr;
	struct ifstate ifs;
	int32_t off = 0;

	if (ifc->ifc_len < 0)
		return -EINVAL;
	for (int i = if_next(0); i != 0; i = if_next(i)) {
		if (if_get(i, &ifs) < 0 || ifs.ifs_addr == 0)
			continue;
		if (ifc->ifc_buf != 0) {
			if (off + (int32_t)sizeof(ifr) > ifc->ifc_len)
				break;
			memset(&ifr, 0, sizeof(ifr));
			memcpy(ifr.ifr_name, ifs.ifs_name, IFNAMSIZ);
			set_sin(&ifr, ifs.ifs_addr);
			int error = copyout(&ifr, ifc->ifc_buf + (uint64_t)off,
			    sizeof(ifr));
			if (error < 0)
				return error;
		}
		off += sizeof(ifr);
	}
	ifc->ifc_len = off;
	return 0;
}

/* SIOCADDRT, SIOCDELRT: default routes (see above). */
static int
ifroute(unsigned long cmd, const struct linux_rtentry *rt)
{
	if (rt->rt_dst.sin_family != AF_INET || rt->rt_dst.sin_addr != 0 ||
	    (rt->rt_genmask.sin_family == AF_INET && rt->rt_genmask.sin_addr != 0)) {
		kprintf("inet: only default routes can be set\n");
		return -EOPNOTSUPP;
	}
	if (cmd == SIOCDELRT)
		return if_deldefroute();
	return if_setdefroute(0, (rt->rt_flags & RTF_GATEWAY) ?
	    rt->rt_gateway.sin_addr : 0);
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
	struct ifstate ifs;
	int index, error;

	switch (cmd) {
	case SIOCGIFCONF:
		return ifconf(data);
	case SIOCADDRT:
	case SIOCDELRT:
		return ifadmin(p) ? ifroute(cmd, data) : -EPERM;
	case SIOCGIFNAME:
		if ((error = if_get(ifr->ifr_ivalue, &ifs)) == 0)
			memcpy(ifr->ifr_name, ifs.ifs_name, IFNAMSIZ);
		return error;
	case SIOCSIFFLAGS:
	case SIOCSIFADDR:
	case SIOCSIFNETMASK:
	case SIOCSIFBRDADDR:
	case SIOCSIFMTU:
		if (!ifadmin(p))
			return -EPERM;
		break;
	}
	char name[IFNAMSIZ];
	memcpy(name, ifr->ifr_name, IFNAMSIZ);
	name[IFNAMSIZ - 1] = 0;
	if ((index = if_index(name)) < 0 || (error = if_get(index, &ifs)) < 0)
		return -ENODEV;
	uint32_t addr = ifs.ifs_addr, mask = ifs.ifs_mask, a;
	switch (cmd) {
	case SIOCGIFFLAGS:
		ifr->ifr_flags = (int16_t)ifs.ifs_flags;
		return 0;
	case SIOCSIFFLAGS:
		return if_setflags(index, ifr->ifr_flags);
	case SIOCGIFADDR:
	case SIOCGIFDSTADDR:
	case SIOCGIFNETMASK:
	case SIOCGIFBRDADDR:
		if (addr == 0)
			return -EADDRNOTAVAIL;
		set_sin(ifr, cmd == SIOCGIFNETMASK ? mask :
		    cmd == SIOCGIFBRDADDR ? ((ifs.ifs_flags & IFF_BROADCAST) ?
		    addr | ~mask : 0) : addr);
		return 0;
	case SIOCSIFADDR:
		if ((error = get_sin(ifr, &a)) < 0)
			return error;
		/* A first address takes its class's netmask, as on Linux. */
		if (mask == 0)
			mask = classmask(a);
		return if_setaddr4(index, a, mask);
	case SIOCSIFNETMASK:
		if ((error = get_sin(ifr, &a)) < 0)
			return error;
		return addr != 0 ? if_setaddr4(index, addr, a) : -EADDRNOTAVAIL;
	case SIOCSIFBRDADDR:
		/* lwIP derives the broadcast address from address and mask. */
		return get_sin(ifr, &a);
	case SIOCGIFMETRIC:
		ifr->ifr_ivalue = 0;
		return 0;
	case SIOCGIFMTU:
		ifr->ifr_ivalue = ifs.ifs_mtu;
		return 0;
	case SIOCSIFMTU:
		return if_setmtu(index, ifr->ifr_ivalue);
	case SIOCGIFHWADDR:
		memset(&ifr->ifr_addr, 0, sizeof(ifr->ifr_addr));
		ifr->ifr_addr.sa_family = (uint16_t)ifs.ifs_type;
		memcpy(ifr->ifr_addr.sa_data, ifs.ifs_hwaddr,
		    MIN((size_t)ifs.ifs_hwlen, sizeof(ifr->ifr_addr.sa_data)));
		return 0;
	case SIOCGIFINDEX:
		ifr->ifr_ivalue = index;
		return 0;
	case SIOCGIFTXQLEN:
		ifr->ifr_ivalue = 1000;
		return 0;
	case SIOCGIFMAP:
		memset(ifr->ifr_map, 0, sizeof(ifr->ifr_map));
		return 0;
	default:
		return -ENOTTY;
	}
}

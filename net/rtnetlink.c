/*
 * NETLINK_ROUTE: links, addresses and routes as `ip` asks for them,
 * over the interface layer the ioctls use (if.h, if_lwip.c).
 *
 * What lwIP can hold bounds what can be set: one IPv4 address per
 * interface, IPv6 prefixes of 64 bits, no routing table (a packet leaves
 * by the interface whose subnet holds its destination, else by the
 * default interface to its gateway).  So the main table shows each up
 * interface's subnet and the one default route; a route that is not a
 * default or an interface's own subnet, a second IPv4 address, an IPv6
 * route, another table, is refused with EOPNOTSUPP and logged.
 *
 * The checks follow Linux's rtnetlink_rcv_msg: a type past RTM_MAX or
 * without a handler is EOPNOTSUPP, a payload shorter than one byte is
 * ignored, a change needs CAP_NET_ADMIN (EPERM), a family header shorter
 * than its structure or an attribute of the wrong size is EINVAL.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "kern/kernel.h"
#include "net/if.h"
#include "net/inet.h"
#include "net/netlink.h"

#define RTM_BASE	16
#define RTM_NEWLINK	16
#define RTM_DELLINK	17
#define RTM_GETLINK	18
#define RTM_SETLINK	19
#define RTM_NEWADDR	20
#define RTM_DELADDR	21
#define RTM_GETADDR	22
#define RTM_NEWROUTE	24
#define RTM_DELROUTE	25
#define RTM_GETROUTE	26
#define RTM_GETNEIGH	30
#define RTM_GETRULE	34
#define RTM_MAX		127
#define RTM_KIND_GET	2		/* (type - RTM_BASE) & 3 */

struct ifinfomsg {
	uint8_t ifi_family;
	uint8_t ifi_pad;
	uint16_t ifi_type;		/* ARPHRD_* */
	int32_t ifi_index;
	uint32_t ifi_flags;		/* IFF_* */
	uint32_t ifi_change;		/* the flags to change */
};

#define IFLA_ADDRESS		1
#define IFLA_BROADCAST		2
#define IFLA_IFNAME		3
#define IFLA_MTU		4
#define IFLA_QDISC		6
#define IFLA_STATS		7
#define IFLA_TXQLEN		13
#define IFLA_OPERSTATE		16
#define IFLA_LINKMODE		17
#define IFLA_STATS64		23
#define IFLA_GROUP		27
#define IFLA_PROMISCUITY	30
#define IFLA_NUM_TX_QUEUES	31
#define IFLA_NUM_RX_QUEUES	32
#define IFLA_CARRIER		33
#define IFLA_MIN_MTU		50
#define IFLA_MAX_MTU		51
#define IFLA_MAXTYPE		64

#define IF_OPER_UNKNOWN		0
#define IF_OPER_DOWN		2
#define IF_OPER_UP		6

/* struct rtnl_link_stats and rtnl_link_stats64: the first four counted. */
#define LINK_NSTATS		24

struct ifaddrmsg {
	uint8_t ifa_family;
	uint8_t ifa_prefixlen;
	uint8_t ifa_flags;
	uint8_t ifa_scope;
	uint32_t ifa_index;
};

#define IFA_ADDRESS		1
#define IFA_LOCAL		2
#define IFA_LABEL		3
#define IFA_BROADCAST		4
#define IFA_CACHEINFO		6
#define IFA_FLAGS		8
#define IFA_MAXTYPE		16

#define IFA_F_DEPRECATED	0x20
#define IFA_F_TENTATIVE		0x40
#define IFA_F_PERMANENT		0x80

struct ifa_cacheinfo {
	uint32_t ifa_prefered;
	uint32_t ifa_valid;
	uint32_t cstamp;
	uint32_t tstamp;
};

#define INFINITY_LIFE_TIME	0xffffffffu

struct rtmsg {
	uint8_t rtm_family;
	uint8_t rtm_dst_len;
	uint8_t rtm_src_len;
	uint8_t rtm_tos;
	uint8_t rtm_table;
	uint8_t rtm_protocol;
	uint8_t rtm_scope;
	uint8_t rtm_type;
	uint32_t rtm_flags;
};

#define RTA_DST			1
#define RTA_OIF			4
#define RTA_GATEWAY		5
#define RTA_PRIORITY		6
#define RTA_PREFSRC		7
#define RTA_TABLE		15
#define RTA_PREF		20
#define RTA_MAXTYPE		32

#define RT_TABLE_UNSPEC		0
#define RT_TABLE_MAIN		254
#define RT_TABLE_LOCAL		255
#define RTPROT_KERNEL		2
#define RTPROT_BOOT		3
#define RT_SCOPE_UNIVERSE	0
#define RT_SCOPE_LINK		253
#define RT_SCOPE_HOST		254
#define RTN_UNSPEC		0
#define RTN_UNICAST		1
#define RTN_LOCAL		2
#define RTM_F_CLONED		0x200

#define RT6_METRIC		256	/* IP6_RT_PRIO_ADDRCONF */

/* The payload of nlh: its length, and its family header if that long. */
static uint32_t
rt_paylen(const struct nlmsghdr *nlh)
{
	return nlh->nlmsg_len - NLMSG_HDRLEN;
}

static const void *
rt_payload(const struct nlmsghdr *nlh)
{
	return nlh + 1;
}

/*
 * The attributes after a family header of hdrlen bytes: -EINVAL if the
 * payload is shorter than the header or an attribute is malformed.
 */
static int
rt_attrs(const struct nlmsghdr *nlh, uint32_t hdrlen,
    const struct nlattr **at, int max)
{
	uint32_t len = rt_paylen(nlh);
	if (len < hdrlen)
		return -EINVAL;
	hdrlen = NLMSG_ALIGN(hdrlen);
	if (len <= hdrlen)
		return nla_parse(at, max, NULL, 0);
	return nla_parse(at, max, (const char *)rt_payload(nlh) + hdrlen,
	    len - hdrlen);
}

/*
 * A fixed-size attribute's payload into v: 0, or -EINVAL if it is
 * shorter (a longer one gives its first len bytes, as Linux's policy
 * minimum lengths have it).
 */
static int
nla_get(const struct nlattr *a, void *v, uint32_t len)
{
	if (nla_len(a) < len)
		return -EINVAL;
	memcpy(v, nla_data(a), len);
	return 0;
}

/* A string attribute into buf (IFNAMSIZ): 0 or -EINVAL if too long. */
static int
nla_ifname(const struct nlattr *a, char *buf)
{
	size_t n = strnlen(nla_data(a), nla_len(a));
	if (n >= IFNAMSIZ)
		return -EINVAL;
	memcpy(buf, nla_data(a), n);
	buf[n] = 0;
	return 0;
}

/* Ends a dump: NLMSG_DONE with a 0. */
static int
rt_done(struct nlreply *nr, const struct nlmsghdr *req)
{
	int32_t *v = nlr_begin(nr, req, NLMSG_DONE, NLM_F_MULTI, sizeof(*v));
	if (v != NULL) {
		*v = 0;
		nlr_end(nr);
	}
	return nr->nr_error != 0 ? nr->nr_error : NL_DUMPED;
}

/* Prefix lengths and netmasks (network order; x86-64 is little-endian). */
static int
mask_plen(uint32_t mask)
{
	return __builtin_popcount(mask);
}

static uint32_t
plen_mask(int plen)
{
	return plen == 0 ? 0 : __builtin_bswap32(~0u << (32 - plen));
}

/* Links. */

static void
link_fill(struct nlreply *nr, const struct nlmsghdr *req,
    const struct ifstate *ifs, int flags)
{
	static const uint8_t ether_bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct ifinfomsg *ifi = nlr_begin(nr, req, RTM_NEWLINK, flags,
	    sizeof(*ifi));
	bool lo = ifs->ifs_type == ARPHRD_LOOPBACK;
	uint64_t st64[LINK_NSTATS] = { ifs->ifs_rxpackets, ifs->ifs_txpackets,
	    ifs->ifs_rxbytes, ifs->ifs_txbytes };
	uint32_t st32[LINK_NSTATS];
	uint8_t bcast[6] = { 0 };

	if (ifi == NULL)
		return;
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_type = (uint16_t)ifs->ifs_type;
	ifi->ifi_index = ifs->ifs_index;
	ifi->ifi_flags = (uint32_t)ifs->ifs_flags;
	for (int i = 0; i < LINK_NSTATS; i++)
		st32[i] = (uint32_t)st64[i];
	if (!lo)
		memcpy(bcast, ether_bcast, sizeof(bcast));
	nlr_put_str(nr, IFLA_IFNAME, ifs->ifs_name);
	nlr_put_u32(nr, IFLA_TXQLEN, 1000);
	nlr_put_u8(nr, IFLA_OPERSTATE, lo ? IF_OPER_UNKNOWN :
	    (ifs->ifs_flags & (IFF_UP | IFF_LOWER_UP)) == (IFF_UP | IFF_LOWER_UP) ?
	    IF_OPER_UP : IF_OPER_DOWN);
	nlr_put_u8(nr, IFLA_LINKMODE, 0);
	nlr_put_u32(nr, IFLA_MTU, (uint32_t)ifs->ifs_mtu);
	nlr_put_u32(nr, IFLA_MIN_MTU, lo ? 0 : 68);
	nlr_put_u32(nr, IFLA_MAX_MTU, lo ? 0 : 65535);
	nlr_put_u32(nr, IFLA_GROUP, 0);
	nlr_put_u32(nr, IFLA_PROMISCUITY, 0);
	nlr_put_u32(nr, IFLA_NUM_TX_QUEUES, 1);
	nlr_put_u32(nr, IFLA_NUM_RX_QUEUES, 1);
	nlr_put_u8(nr, IFLA_CARRIER, (ifs->ifs_flags & IFF_LOWER_UP) != 0);
	/* No queueing discipline: frames go straight to the driver. */
	nlr_put_str(nr, IFLA_QDISC, "noqueue");
	nlr_put(nr, IFLA_ADDRESS, ifs->ifs_hwaddr, (uint32_t)ifs->ifs_hwlen);
	nlr_put(nr, IFLA_BROADCAST, bcast, sizeof(bcast));
	nlr_put(nr, IFLA_STATS64, st64, sizeof(st64));
	nlr_put(nr, IFLA_STATS, st32, sizeof(st32));
	nlr_end(nr);
}

static int
link_dump(const struct nlmsghdr *nlh, struct nlreply *nr)
{
	struct ifstate ifs;

	for (int i = if_next(0); i != 0; i = if_next(i))
		if (if_get(i, &ifs) == 0)
			link_fill(nr, nlh, &ifs, NLM_F_MULTI);
	return rt_done(nr, nlh);
}

/* The interface a link request names, by index or IFLA_IFNAME. */
static int
link_target(const struct ifinfomsg *ifi, const struct nlattr **at)
{
	char name[IFNAMSIZ];

	if (ifi->ifi_index > 0)
		return if_get(ifi->ifi_index, &(struct ifstate){ 0 }) == 0 ?
		    ifi->ifi_index : -ENODEV;
	if (at[IFLA_IFNAME] == NULL)
		return -EINVAL;
	if (nla_ifname(at[IFLA_IFNAME], name) < 0)
		return -EINVAL;
	return if_index(name);
}

static int
link_get(const struct nlmsghdr *nlh, struct nlreply *nr)
{
	const struct nlattr *at[IFLA_MAXTYPE];
	struct ifinfomsg ifi;
	struct ifstate ifs;
	int error, index;

	if ((error = rt_attrs(nlh, sizeof(ifi), at, IFLA_MAXTYPE)) < 0)
		return error;
	memcpy(&ifi, rt_payload(nlh), sizeof(ifi));
	if ((index = link_target(&ifi, at)) < 0)
		return index;
	if ((error = if_get(index, &ifs)) < 0)
		return error;
	link_fill(nr, nlh, &ifs, 0);
	return nr->nr_error;
}

/* RTM_NEWLINK and RTM_SETLINK on an existing interface: up, down, MTU. */
static int
link_set(const struct nlmsghdr *nlh)
{
	const struct nlattr *at[IFLA_MAXTYPE];
	struct ifinfomsg ifi;
	struct ifstate ifs;
	char name[IFNAMSIZ];
	uint32_t mtu;
	int error, index;

	if ((error = rt_attrs(nlh, sizeof(ifi), at, IFLA_MAXTYPE)) < 0)
		return error;
	memcpy(&ifi, rt_payload(nlh), sizeof(ifi));
	if ((index = link_target(&ifi, at)) < 0) {
		if (index == -ENODEV && (nlh->nlmsg_flags & NLM_F_CREATE)) {
			kprintf_ratelimited("netlink: interfaces cannot be "
			    "created\n");
			return -EOPNOTSUPP;
		}
		return index;
	}
	if ((error = if_get(index, &ifs)) < 0)
		return error;
	if (ifi.ifi_index > 0 && at[IFLA_IFNAME] != NULL) {
		if ((error = nla_ifname(at[IFLA_IFNAME], name)) < 0)
			return error;
		if (strcmp(name, ifs.ifs_name) != 0) {
			kprintf_ratelimited("netlink: %s cannot be renamed\n",
			    ifs.ifs_name);
			return -EOPNOTSUPP;
		}
	}
	if (at[IFLA_ADDRESS] != NULL) {
		kprintf_ratelimited("netlink: %s's hardware address cannot be "
		    "changed\n", ifs.ifs_name);
		return -EOPNOTSUPP;
	}
	if (at[IFLA_MTU] != NULL) {
		if ((error = nla_get(at[IFLA_MTU], &mtu, sizeof(mtu))) < 0 ||
		    (error = if_setmtu(index, mtu > INT32_MAX ? 0 : (int)mtu)) < 0)
			return error;
	}
	/* Linux's rtnl_dev_combine_flags: ifi_change 0 changes every flag. */
	uint32_t change = ifi.ifi_change != 0 ? ifi.ifi_change : ~0u;
	if (ifi.ifi_flags == 0 && ifi.ifi_change == 0)
		return 0;
	uint32_t flags = (ifi.ifi_flags & change) |
	    ((uint32_t)ifs.ifs_flags & ~change);
	uint32_t other = (flags ^ (uint32_t)ifs.ifs_flags) & change &
	    ~(IFF_UP | IFF_RUNNING | IFF_LOWER_UP | IFF_LOOPBACK);
	if (other != 0)
		kprintf_ratelimited("netlink: %s: flags %#x cannot be changed "
		    "(ignored)\n", ifs.ifs_name, other);
	if ((flags ^ (uint32_t)ifs.ifs_flags) & IFF_UP)
		return if_setflags(index, (int)flags);
	return 0;
}

/* Addresses. */

static void
addr_cacheinfo(struct nlreply *nr)
{
	struct ifa_cacheinfo ci = { INFINITY_LIFE_TIME, INFINITY_LIFE_TIME, 0, 0 };
	nlr_put(nr, IFA_CACHEINFO, &ci, sizeof(ci));
}

static void
addr_fill4(struct nlreply *nr, const struct nlmsghdr *req,
    const struct ifstate *ifs, int type, int flags)
{
	struct ifaddrmsg *ifa = nlr_begin(nr, req, type, flags, sizeof(*ifa));
	int plen = mask_plen(ifs->ifs_mask);

	if (ifa == NULL)
		return;
	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = (uint8_t)plen;
	ifa->ifa_flags = IFA_F_PERMANENT;
	ifa->ifa_scope = (ifs->ifs_flags & IFF_LOOPBACK) ? RT_SCOPE_HOST :
	    RT_SCOPE_UNIVERSE;
	ifa->ifa_index = (uint32_t)ifs->ifs_index;
	nlr_put(nr, IFA_ADDRESS, &ifs->ifs_addr, 4);
	nlr_put(nr, IFA_LOCAL, &ifs->ifs_addr, 4);
	if ((ifs->ifs_flags & IFF_BROADCAST) && plen < 31) {
		uint32_t brd = ifs->ifs_addr | ~ifs->ifs_mask;
		nlr_put(nr, IFA_BROADCAST, &brd, 4);
	}
	nlr_put_str(nr, IFA_LABEL, ifs->ifs_name);
	nlr_put_u32(nr, IFA_FLAGS, IFA_F_PERMANENT);
	addr_cacheinfo(nr);
	nlr_end(nr);
}

static void
addr_fill6(struct nlreply *nr, const struct nlmsghdr *req, int index,
    const struct ifaddr6 *ia, int flags)
{
	struct ifaddrmsg *ifa = nlr_begin(nr, req, RTM_NEWADDR, flags,
	    sizeof(*ifa));
	uint32_t f = IFA_F_PERMANENT;

	if (ifa == NULL)
		return;
	if (ia->ia6_tentative)
		f |= IFA_F_TENTATIVE;
	if (ia->ia6_deprecated)
		f |= IFA_F_DEPRECATED;
	ifa->ifa_family = AF_INET6;
	ifa->ifa_prefixlen = (uint8_t)ia->ia6_plen;
	ifa->ifa_flags = (uint8_t)f;
	ifa->ifa_scope = (uint8_t)ia->ia6_scope;
	ifa->ifa_index = (uint32_t)index;
	nlr_put(nr, IFA_ADDRESS, ia->ia6_addr, 16);
	addr_cacheinfo(nr);
	nlr_put_u32(nr, IFA_FLAGS, f);
	nlr_end(nr);
}

/* The family a dump asks for (its header's first byte), and its index filter. */
static void
dump_filter(struct socket *so, const struct nlmsghdr *nlh, size_t idxoff,
    int *family, int *index)
{
	const uint8_t *pl = rt_payload(nlh);
	*family = pl[0];
	*index = 0;
	/* Linux reads the header's filters under NETLINK_GET_STRICT_CHK only. */
	if ((sotonlpcb(so)->nl_flags & NLF_STRICT) &&
	    rt_paylen(nlh) >= idxoff + sizeof(int32_t))
		memcpy(index, pl + idxoff, sizeof(int32_t));
}

static int
addr_dump(struct socket *so, const struct nlmsghdr *nlh, struct nlreply *nr)
{
	struct ifstate ifs;
	struct ifaddr6 ia[IF_ADDR6_MAX];
	int family, only;

	dump_filter(so, nlh, offsetof(struct ifaddrmsg, ifa_index), &family,
	    &only);
	for (int i = if_next(0); i != 0; i = if_next(i)) {
		if ((only != 0 && i != only) ||
		    (family != AF_UNSPEC && family != AF_INET))
			continue;
		if (if_get(i, &ifs) == 0 && ifs.ifs_addr != 0)
			addr_fill4(nr, nlh, &ifs, RTM_NEWADDR, NLM_F_MULTI);
	}
	for (int i = if_next(0); i != 0; i = if_next(i)) {
		if ((only != 0 && i != only) ||
		    (family != AF_UNSPEC && family != AF_INET6))
			continue;
		int n = if_addrs6(i, ia, IF_ADDR6_MAX);
		for (int j = 0; j < n; j++)
			addr_fill6(nr, nlh, i, &ia[j], NLM_F_MULTI);
	}
	return rt_done(nr, nlh);
}

/*
 * The address of a NEWADDR or DELADDR: IFA_LOCAL, else IFA_ADDRESS, of
 * alen bytes.  0, 1 if there is none, -EINVAL for a wrong size.
 */
static int
addr_arg(const struct nlattr **at, void *addr, uint32_t alen)
{
	const struct nlattr *a = at[IFA_LOCAL] != NULL ? at[IFA_LOCAL] :
	    at[IFA_ADDRESS];
	if (a == NULL)
		return 1;
	return nla_get(a, addr, alen);
}

static int
addr_new4(const struct nlmsghdr *nlh, const struct ifaddrmsg *ifa,
    const struct nlattr **at, const struct ifstate *ifs)
{
	uint32_t addr, peer;
	int error;

	if ((error = addr_arg(at, &addr, 4)) != 0 || ifa->ifa_prefixlen > 32)
		return -EINVAL;
	if (at[IFA_LOCAL] != NULL && at[IFA_ADDRESS] != NULL &&
	    (nla_get(at[IFA_ADDRESS], &peer, 4) < 0 || peer != addr)) {
		kprintf_ratelimited("netlink: %s: point-to-point peers are not "
		    "supported\n", ifs->ifs_name);
		return -EOPNOTSUPP;
	}
	if (ifs->ifs_addr == addr) {
		if ((nlh->nlmsg_flags & NLM_F_EXCL) ||
		    !(nlh->nlmsg_flags & NLM_F_REPLACE))
			return -EEXIST;
	} else if (ifs->ifs_addr != 0) {
		kprintf_ratelimited("netlink: %s holds one IPv4 address (lwIP): "
		    "delete the one it has first\n", ifs->ifs_name);
		return -EOPNOTSUPP;
	}
	return if_setaddr4(ifs->ifs_index, addr, plen_mask(ifa->ifa_prefixlen));
}

static int
addr_new6(const struct nlmsghdr *nlh, const struct ifaddrmsg *ifa,
    const struct nlattr **at, const struct ifstate *ifs)
{
	uint8_t addr[16];
	int error;

	if ((error = addr_arg(at, addr, 16)) != 0 || ifa->ifa_prefixlen > 128)
		return -EINVAL;
	if (ifa->ifa_prefixlen != 64) {
		kprintf_ratelimited("netlink: %s: lwIP's IPv6 prefixes are 64 "
		    "bits, not %d\n", ifs->ifs_name, ifa->ifa_prefixlen);
		return -EOPNOTSUPP;
	}
	error = if_addaddr6(ifs->ifs_index, addr);
	if (error == -EEXIST && !(nlh->nlmsg_flags & NLM_F_EXCL) &&
	    (nlh->nlmsg_flags & NLM_F_REPLACE))
		return 0;
	if (error == -ENOSPC)
		kprintf_ratelimited("netlink: %s has no free IPv6 address slot "
		    "(lwIP holds %d)\n", ifs->ifs_name, IF_ADDR6_MAX);
	return error;
}

static int
addr_del4(const struct ifaddrmsg *ifa, const struct nlattr **at,
    const struct ifstate *ifs)
{
	uint32_t addr = 0;
	int error;

	if (ifs->ifs_addr == 0)
		return -EADDRNOTAVAIL;
	if ((error = addr_arg(at, &addr, 4)) < 0)
		return error;
	if (error == 0 && addr != ifs->ifs_addr)
		return -EADDRNOTAVAIL;
	/* As Linux: a given IFA_ADDRESS must match the prefix too. */
	if (at[IFA_ADDRESS] != NULL &&
	    ifa->ifa_prefixlen != mask_plen(ifs->ifs_mask))
		return -EADDRNOTAVAIL;
	return if_setaddr4(ifs->ifs_index, 0, 0);
}

/* RTM_NEWADDR and RTM_DELADDR. */
static int
addr_change(const struct nlmsghdr *nlh)
{
	const struct nlattr *at[IFA_MAXTYPE];
	struct ifaddrmsg ifa;
	struct ifstate ifs;
	uint8_t a6[16];
	int error;

	if ((error = rt_attrs(nlh, sizeof(ifa), at, IFA_MAXTYPE)) < 0)
		return error;
	memcpy(&ifa, rt_payload(nlh), sizeof(ifa));
	if (ifa.ifa_index > INT32_MAX || if_get((int)ifa.ifa_index, &ifs) < 0)
		return -ENODEV;
	bool add = nlh->nlmsg_type == RTM_NEWADDR;
	switch (ifa.ifa_family) {
	case AF_INET:
		return add ? addr_new4(nlh, &ifa, at, &ifs) :
		    addr_del4(&ifa, at, &ifs);
	case AF_INET6:
		if (add)
			return addr_new6(nlh, &ifa, at, &ifs);
		if ((error = addr_arg(at, a6, 16)) != 0)
			return -EINVAL;
		return if_deladdr6(ifs.ifs_index, a6);
	default:
		return -EAFNOSUPPORT;
	}
}

/* Routes. */

static struct rtmsg *
route_begin(struct nlreply *nr, const struct nlmsghdr *req, int family)
{
	struct rtmsg *rtm = nlr_begin(nr, req, RTM_NEWROUTE, NLM_F_MULTI,
	    sizeof(*rtm));
	if (rtm == NULL)
		return NULL;
	rtm->rtm_family = (uint8_t)family;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_KERNEL;
	rtm->rtm_type = RTN_UNICAST;
	nlr_put_u32(nr, RTA_TABLE, RT_TABLE_MAIN);
	return rtm;
}

static void
route_dump4(const struct nlmsghdr *nlh, struct nlreply *nr)
{
	struct ifstate ifs;
	struct rtmsg *rtm;
	uint32_t gw;
	int dindex;

	if (if_defroute(&dindex, &gw) == 0 &&
	    if_get(dindex, &ifs) == 0 && (ifs.ifs_flags & IFF_UP) &&
	    (rtm = route_begin(nr, nlh, AF_INET)) != NULL) {
		rtm->rtm_protocol = RTPROT_BOOT;
		rtm->rtm_scope = gw != 0 ? RT_SCOPE_UNIVERSE : RT_SCOPE_LINK;
		if (gw != 0)
			nlr_put(nr, RTA_GATEWAY, &gw, 4);
		nlr_put_u32(nr, RTA_OIF, (uint32_t)dindex);
		nlr_end(nr);
	}
	for (int i = if_next(0); i != 0; i = if_next(i)) {
		/* lo's 127/8 lives in Linux's local table, not main. */
		if (if_get(i, &ifs) < 0 || ifs.ifs_addr == 0 || !(ifs.ifs_flags & IFF_UP) ||
		    (ifs.ifs_flags & IFF_LOOPBACK))
			continue;
		if ((rtm = route_begin(nr, nlh, AF_INET)) == NULL)
			return;
		uint32_t net = ifs.ifs_addr & ifs.ifs_mask;
		rtm->rtm_dst_len = (uint8_t)mask_plen(ifs.ifs_mask);
		rtm->rtm_scope = RT_SCOPE_LINK;
		nlr_put(nr, RTA_DST, &net, 4);
		nlr_put(nr, RTA_PREFSRC, &ifs.ifs_addr, 4);
		nlr_put_u32(nr, RTA_OIF, (uint32_t)i);
		nlr_end(nr);
	}
}

static void
route_dump6(const struct nlmsghdr *nlh, struct nlreply *nr)
{
	struct ifstate ifs;
	struct ifaddr6 ia[IF_ADDR6_MAX];
	struct rtmsg *rtm;

	for (int i = if_next(0); i != 0; i = if_next(i)) {
		/* ::1's route is in the local table on Linux 6. */
		if (if_get(i, &ifs) < 0 || !(ifs.ifs_flags & IFF_UP) ||
		    (ifs.ifs_flags & IFF_LOOPBACK))
			continue;
		int n = if_addrs6(i, ia, IF_ADDR6_MAX);
		for (int j = 0; j < n; j++) {
			uint8_t dst[16] = { 0 };
			int plen = ia[j].ia6_plen;
			memcpy(dst, ia[j].ia6_addr, (size_t)plen / 8);
			/* One route a prefix, however many addresses share it. */
			bool seen = false;
			for (int k = 0; k < j; k++)
				seen |= ia[k].ia6_plen == plen &&
				    memcmp(ia[k].ia6_addr, dst, (size_t)plen / 8) == 0;
			if (seen || (rtm = route_begin(nr, nlh, AF_INET6)) == NULL)
				continue;
			rtm->rtm_dst_len = (uint8_t)plen;
			nlr_put(nr, RTA_DST, dst, 16);
			nlr_put_u32(nr, RTA_PRIORITY, RT6_METRIC);
			nlr_put_u32(nr, RTA_OIF, (uint32_t)i);
			nlr_put_u8(nr, RTA_PREF, 0);
			nlr_end(nr);
		}
	}
}

static int
route_dump(const struct nlmsghdr *nlh, struct nlreply *nr)
{
	int family = ((const uint8_t *)rt_payload(nlh))[0];

	/* The whole main table: `ip` filters by device itself. */
	if (family == AF_UNSPEC || family == AF_INET)
		route_dump4(nlh, nr);
	if (family == AF_UNSPEC || family == AF_INET6)
		route_dump6(nlh, nr);
	return rt_done(nr, nlh);
}

/* RTM_GETROUTE for one IPv4 destination (`ip route get`): lwIP's choice. */
static int
route_get(const struct nlmsghdr *nlh, struct nlreply *nr)
{
	const struct nlattr *at[RTA_MAXTYPE];
	struct rtmsg rtm;
	uint32_t dst = 0, gw, src;
	int error, index;
	bool local;

	if ((error = rt_attrs(nlh, sizeof(rtm), at, RTA_MAXTYPE)) < 0)
		return error;
	memcpy(&rtm, rt_payload(nlh), sizeof(rtm));
	if (rtm.rtm_family != AF_INET) {
		kprintf_ratelimited("netlink: route lookups are IPv4 only\n");
		return -EOPNOTSUPP;
	}
	if (at[RTA_DST] != NULL && nla_get(at[RTA_DST], &dst, 4) < 0)
		return -EINVAL;
	if ((error = if_route4(dst, &index, &gw, &src, &local)) < 0)
		return error;
	struct rtmsg *r = nlr_begin(nr, nlh, RTM_NEWROUTE, 0, sizeof(*r));
	if (r == NULL)
		return nr->nr_error;
	r->rtm_family = AF_INET;
	r->rtm_dst_len = 32;
	r->rtm_table = local ? RT_TABLE_LOCAL : RT_TABLE_MAIN;
	r->rtm_scope = local ? RT_SCOPE_HOST : RT_SCOPE_UNIVERSE;
	r->rtm_type = local ? RTN_LOCAL : RTN_UNICAST;
	r->rtm_flags = RTM_F_CLONED;
	nlr_put_u32(nr, RTA_TABLE, r->rtm_table);
	nlr_put(nr, RTA_DST, &dst, 4);
	nlr_put_u32(nr, RTA_OIF, (uint32_t)index);
	nlr_put(nr, RTA_PREFSRC, &src, 4);
	if (gw != 0)
		nlr_put(nr, RTA_GATEWAY, &gw, 4);
	nlr_end(nr);
	return nr->nr_error;
}

/* RTM_NEWROUTE and RTM_DELROUTE, in what lwIP can express (above). */
static int
route_change(const struct nlmsghdr *nlh)
{
	const struct nlattr *at[RTA_MAXTYPE];
	struct rtmsg rtm;
	struct ifstate ifs;
	uint32_t dst = 0, gw = 0, oif = 0, table, cgw;
	int error, dindex;
	bool add = nlh->nlmsg_type == RTM_NEWROUTE;

	if ((error = rt_attrs(nlh, sizeof(rtm), at, RTA_MAXTYPE)) < 0)
		return error;
	memcpy(&rtm, rt_payload(nlh), sizeof(rtm));
	table = rtm.rtm_table;
	if (at[RTA_TABLE] != NULL &&
	    (error = nla_get(at[RTA_TABLE], &table, 4)) < 0)
		return error;
	if (rtm.rtm_family == AF_INET6) {
		kprintf_ratelimited("netlink: IPv6 routes cannot be changed "
		    "(lwIP routes IPv6 by prefix and router advertisements)\n");
		return -EOPNOTSUPP;
	}
	if (rtm.rtm_family != AF_INET)
		return -EAFNOSUPPORT;
	if (rtm.rtm_dst_len > 32)
		return -EINVAL;
	if ((at[RTA_DST] != NULL && nla_get(at[RTA_DST], &dst, 4) < 0) ||
	    (at[RTA_GATEWAY] != NULL && nla_get(at[RTA_GATEWAY], &gw, 4) < 0) ||
	    (at[RTA_OIF] != NULL && nla_get(at[RTA_OIF], &oif, 4) < 0))
		return -EINVAL;
	if (oif > INT32_MAX || (oif != 0 && if_get((int)oif, &ifs) < 0))
		return -ENODEV;
	if (table != RT_TABLE_MAIN && table != RT_TABLE_UNSPEC) {
		kprintf_ratelimited("netlink: routing table %u: there is only "
		    "the main table\n", table);
		return -EOPNOTSUPP;
	}
	if (add && rtm.rtm_type != RTN_UNICAST && rtm.rtm_type != RTN_UNSPEC) {
		kprintf_ratelimited("netlink: routes of type %d are not "
		    "supported\n", rtm.rtm_type);
		return -EOPNOTSUPP;
	}
	bool have = if_defroute(&dindex, &cgw) == 0;
	if (rtm.rtm_dst_len == 0) {
		if (!add) {
			if (!have || (gw != 0 && gw != cgw) ||
			    (oif != 0 && (int)oif != dindex))
				return -ESRCH;
			return if_deldefroute();
		}
		if (gw == 0 && oif == 0)
			return -EINVAL;
		if (have && (nlh->nlmsg_flags & NLM_F_EXCL))
			return -EEXIST;
		if (have && !(nlh->nlmsg_flags & NLM_F_REPLACE)) {
			kprintf_ratelimited("netlink: there is one default "
			    "route (lwIP): replace it\n");
			return -EOPNOTSUPP;
		}
		if (!have && !(nlh->nlmsg_flags & NLM_F_CREATE))
			return -ESRCH;
		return if_setdefroute((int)oif, gw);
	}
	/* An interface's own subnet: there as long as its address is. */
	for (int i = if_next(0); i != 0; i = if_next(i)) {
		if (if_get(i, &ifs) < 0 || ifs.ifs_addr == 0 ||
		    (ifs.ifs_flags & IFF_LOOPBACK) ||
		    mask_plen(ifs.ifs_mask) != rtm.rtm_dst_len ||
		    (ifs.ifs_addr & ifs.ifs_mask) != (dst & ifs.ifs_mask) ||
		    (oif != 0 && (int)oif != i) || gw != 0)
			continue;
		if (add)
			return (nlh->nlmsg_flags & NLM_F_EXCL) ? -EEXIST : 0;
		kprintf_ratelimited("netlink: %s's subnet route goes with its "
		    "address: delete the address\n", ifs.ifs_name);
		return -EOPNOTSUPP;
	}
	if (!add)
		return -ESRCH;
	kprintf_ratelimited("netlink: lwIP routes by its interfaces' subnets "
	    "and one default gateway: a route to a /%d cannot be added\n",
	    rtm.rtm_dst_len);
	return -EOPNOTSUPP;
}

int
rtnetlink_rcv(struct socket *so, const struct nlmsghdr *nlh,
    struct nlreply *nr, struct proc *p)
{
	int type = nlh->nlmsg_type;

	if (type > RTM_MAX)
		return -EOPNOTSUPP;
	/* Every message has at least a family byte (rtgenmsg). */
	if (rt_paylen(nlh) < 1)
		return 0;
	bool get = ((type - RTM_BASE) & 3) == RTM_KIND_GET;
	if (!get && !nl_admin(p))
		return -EPERM;
	if (get && (nlh->nlmsg_flags & NLM_F_DUMP)) {
		switch (type) {
		case RTM_GETLINK:
			return link_dump(nlh, nr);
		case RTM_GETADDR:
			return addr_dump(so, nlh, nr);
		case RTM_GETROUTE:
			return route_dump(nlh, nr);
		case RTM_GETNEIGH:
		case RTM_GETRULE:
			/* No neighbours to show; the default rules are implied. */
			return rt_done(nr, nlh);
		}
	} else {
		switch (type) {
		case RTM_GETLINK:
			return link_get(nlh, nr);
		case RTM_NEWLINK:
		case RTM_SETLINK:
			return link_set(nlh);
		case RTM_NEWADDR:
		case RTM_DELADDR:
			return addr_change(nlh);
		case RTM_NEWROUTE:
		case RTM_DELROUTE:
			return route_change(nlh);
		case RTM_GETROUTE:
			return route_get(nlh, nr);
		}
	}
	kprintf_ratelimited("netlink: route message type %d%s not implemented\n",
	    type, get && (nlh->nlmsg_flags & NLM_F_DUMP) ? " (dump)" : "");
	return -EOPNOTSUPP;
}

/*
 * Network interfaces as Linux programs see them: the SIOC* ioctls of any
 * socket (ifconfig, route, ip's ioctl fallbacks), interface names and
 * indexes, and the /proc/net files (net/if_ioctl.c, net/inet_proc.c).
 * lwIP-free: the socket layer and procfs include it.
 */
#ifndef NET_IF_H
#define NET_IF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>	/* SIOC*: the host's numbers are Linux's */

#include "fs/ioctl.h"

struct netif;
struct proc;

#ifndef IFNAMSIZ
#define IFNAMSIZ	16
#endif


/* The interface ioctls, for a socket's table. */
extern const struct ioctl_cmd if_ioctls[];

/*
 * One of if_ioctls on data (the argument, copied in and out by
 * kern_ioctl; SIOCGIFCONF copies its array itself).  0 or a negative
 * errno: -ENODEV (no such interface), -EPERM (a change without
 * CAP_NET_ADMIN), -EFAULT, -EINVAL.
 */
int ifioctl(unsigned long cmd, void *data, struct proc *p);

/*
 * Names interface nif as Linux would ("vke0"); lwIP's own names have two
 * letters and a number.  At boot or with the big lock; name is copied
 * (at most IFNAMSIZ - 1 bytes).
 */
void if_setname(struct netif *nif, const char *name);

/* nif's Linux name into buf (IFNAMSIZ bytes) (core lock held). */
void if_name(struct netif *nif, char *buf);

/*
 * The interface layer (if_lwip.c): what the ioctls and rtnetlink both
 * read and change, by interface index, over lwIP's netifs.  Each call
 * takes lwIP's core lock itself (never held across a sleep); the
 * answers are snapshots.  Changes are the caller's to permit
 * (CAP_NET_ADMIN).  lwIP has one IPv4 address per interface, IPv6
 * prefixes of 64 bits, no routing table: a packet leaves by the
 * interface whose subnet holds its destination, else by the default
 * interface to its gateway (docs/net.md).
 */

/* Linux's IFF_* flags as the interface layer reports them. */
#define IFF_UP		0x1
#define IFF_BROADCAST	0x2
#define IFF_LOOPBACK	0x8
#define IFF_RUNNING	0x40
#define IFF_MULTICAST	0x1000
#define IFF_LOWER_UP	0x10000

#define ARPHRD_ETHER	1
#define ARPHRD_LOOPBACK	772

#define IF_HWADDR_MAX	8

/* One interface. */
struct ifstate {
	int ifs_index;
	char ifs_name[IFNAMSIZ];
	int ifs_flags;			/* IFF_* (LOWER_UP: the link is up) */
	int ifs_mtu;			/* Linux's (lo: 65536) */
	int ifs_type;			/* ARPHRD_* */
	uint8_t ifs_hwaddr[IF_HWADDR_MAX];
	int ifs_hwlen;
	uint32_t ifs_addr;		/* IPv4, network order; 0: none */
	uint32_t ifs_mask;
	uint64_t ifs_rxpackets, ifs_rxbytes, ifs_txpackets, ifs_txbytes;
};

/* The interface of index into *ifs: 0 or -ENODEV. */
int if_get(int index, struct ifstate *ifs);

/* The smallest interface index above after (0 to start), 0 past the last. */
int if_next(int after);

/* The index of the interface named name (NUL-terminated), or -ENODEV. */
int if_index(const char *name);

/* Brings the interface up (IFF_UP in flags) or down: 0 or -ENODEV. */
int if_setflags(int index, int flags);

/* The MTU (68..65536): 0, -ENODEV, -EINVAL. */
int if_setmtu(int index, int mtu);

/*
 * The IPv4 address and netmask (network order).  An address of 0
 * removes it, and with it the interface's gateway and its place as the
 * default route (as Linux drops the routes through an interface that
 * lost its last address).  0, -ENODEV, or -EINVAL for a mask that is
 * not ones then zeros (Linux's bad_mask: prefix lengths are read off it).
 */
int if_setaddr4(int index, uint32_t addr, uint32_t mask);

/* One IPv6 address of an interface. */
struct ifaddr6 {
	uint8_t ia6_addr[16];
	int ia6_plen;			/* 128 for ::1, else lwIP's 64 */
	int ia6_scope;			/* RT_SCOPE_*: 0, link 253, host 254 */
	bool ia6_tentative;		/* duplicate address detection runs */
	bool ia6_deprecated;
};

#define IF_ADDR6_MAX	8

/* The IPv6 addresses of interface index: at most max, the count, or -ENODEV. */
int if_addrs6(int index, struct ifaddr6 *out, int max);

/*
 * Adds an IPv6 address: 0, -ENODEV, -EEXIST, -ENOSPC (every slot used),
 * -EADDRNOTAVAIL for one no interface may hold (Linux's ipv6_add_addr:
 * ::, a multicast address, ::1 but on lo).
 */
int if_addaddr6(int index, const uint8_t addr[16]);

/* Removes one: 0, -ENODEV, -EADDRNOTAVAIL. */
int if_deladdr6(int index, const uint8_t addr[16]);

/*
 * The default route: 0 with *index the default interface and *gw its
 * gateway (network order, 0: none), or -ESRCH if there is none.
 */
int if_defroute(int *index, uint32_t *gw);

/*
 * Makes gw (network order) the default gateway, through interface index
 * or (index 0) through the interface whose subnet holds gw; gw 0 makes
 * index the default interface without a gateway.  0, -ENODEV,
 * -ENETUNREACH (gw is on no interface's subnet, or not on index's).
 */
int if_setdefroute(int index, uint32_t gw);

/* Removes the default route: 0 or -ESRCH (there was none). */
int if_deldefroute(void);

/*
 * The way lwIP would send to dst (IPv4, network order): the interface
 * *index, the gateway *gw (0: on the link), the source address *src, and
 * *local if dst is one of this machine's addresses (it then goes by lo).
 * 0, or -ENETUNREACH.
 */
int if_route4(uint32_t dst, int *index, uint32_t *gw, uint32_t *src,
    bool *local);

/* /proc/net files (inet_proc.c). */
enum inet_procfile {
	INET_PROC_DEV,
	INET_PROC_ROUTE,
	INET_PROC_IF_INET6,
	INET_PROC_TCP,
	INET_PROC_TCP6,
	INET_PROC_UDP,
	INET_PROC_UDP6,
	INET_PROC_UNIX,
	INET_PROC_RAW,
	INET_PROC_RAW6,
	INET_PROC_ICMP,		/* ping sockets */
	INET_PROC_ICMP6,
};

/* The text of a /proc/net file, kmalloc'd, *len bytes; NULL: no memory. */
char *inet_proc_text(enum inet_procfile which, size_t *len);

#endif /* NET_IF_H */

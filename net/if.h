/*
 * Network interfaces as Linux programs see them: the SIOC* ioctls of any
 * socket (ifconfig, route, ip's ioctl fallbacks), interface names and
 * indexes, and the /proc/net files (net/if_ioctl.c, net/inet_proc.c).
 * lwIP-free: the socket layer and procfs include it.
 */
#ifndef NET_IF_H
#define NET_IF_H

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

/* nif's Linux name into buf (IFNAMSIZ bytes); its IFF_* flags. */
void if_name(struct netif *nif, char *buf);
int if_flags(struct netif *nif);

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

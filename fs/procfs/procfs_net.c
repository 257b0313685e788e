/*
 * /proc/net: the network stack's tables, as the socket layer makes them
 * (net/inet_proc.c) in Linux's formats.
 */
#include <errno.h>

#include "fs/procfs/procfs.h"
#include "kern/kmem.h"
#include "net/if.h"

static int
net_file(struct sbuf *sb, enum inet_procfile which)
{
	size_t len;
	char *text = inet_proc_text(which, &len);
	if (text == NULL)
		return -ENOMEM;
	sbuf_bcat(sb, text, len);
	kfree(text);
	return 0;
}

int
procfs_net_dev(struct sbuf *sb, struct proc *p)
{
	(void)p;
	return net_file(sb, INET_PROC_DEV);
}

int
procfs_net_route(struct sbuf *sb, struct proc *p)
{
	(void)p;
	return net_file(sb, INET_PROC_ROUTE);
}

int
procfs_net_if_inet6(struct sbuf *sb, struct proc *p)
{
	(void)p;
	return net_file(sb, INET_PROC_IF_INET6);
}

int
procfs_net_tcp(struct sbuf *sb, struct proc *p)
{
	(void)p;
	return net_file(sb, INET_PROC_TCP);
}

int
procfs_net_tcp6(struct sbuf *sb, struct proc *p)
{
	(void)p;
	return net_file(sb, INET_PROC_TCP6);
}

int
procfs_net_udp(struct sbuf *sb, struct proc *p)
{
	(void)p;
	return net_file(sb, INET_PROC_UDP);
}

int
procfs_net_udp6(struct sbuf *sb, struct proc *p)
{
	(void)p;
	return net_file(sb, INET_PROC_UDP6);
}

int
procfs_net_unix(struct sbuf *sb, struct proc *p)
{
	(void)p;
	return net_file(sb, INET_PROC_UNIX);
}

int
procfs_net_raw(struct sbuf *sb, struct proc *p)
{
	(void)p;
	return net_file(sb, INET_PROC_RAW);
}

int
procfs_net_raw6(struct sbuf *sb, struct proc *p)
{
	(void)p;
	return net_file(sb, INET_PROC_RAW6);
}

int
procfs_net_icmp(struct sbuf *sb, struct proc *p)
{
	(void)p;
	return net_file(sb, INET_PROC_ICMP);
}

int
procfs_net_icmp6(struct sbuf *sb, struct proc *p)
{
	(void)p;
	return net_file(sb, INET_PROC_ICMP6);
}

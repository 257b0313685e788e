/*
 * lwIP's compile-time options for vkernel (docs/net.md, "lwIP's build").
 *
 * The Makefile builds lwIP 2.1.3 from Debian's own source package with
 * this file, instead of linking Debian's liblwip, because Debian's build
 * (made for the Hurd) fixes TCP's window and send buffer at 64 KiB and
 * its segments at 1460 bytes: one connection then carries at most 64 KiB
 * per round trip, and a round trip through the host's threads is long.
 * Everything else follows Debian's build, which the kernel was written
 * against: a threaded stack (NO_SYS 0) whose core the kernel takes with
 * LOCK_TCPIP_CORE, malloc for every allocation, IPv4 and IPv6, raw
 * sockets' PCBs, loopback through any interface and no loopif of lwIP's.
 * The port (arch/cc.h, sys_arch.c: pthreads) is the package's.
 */
#ifndef VKERNEL_LWIPOPTS_H
#define VKERNEL_LWIPOPTS_H

/* The stack runs on its own thread; the kernel calls the raw API only. */
#define NO_SYS				0
#define LWIP_TCPIP_CORE_LOCKING		1
#define LWIP_NETCONN			0
#define LWIP_SOCKET			0

void sys_check_core_locking(void);
void sys_mark_tcpip_thread(void);
void sys_lock_tcpip_core(void);
void sys_unlock_tcpip_core(void);
#define LWIP_ASSERT_CORE_LOCKED()	sys_check_core_locking()
#define LWIP_MARK_TCPIP_THREAD()	sys_mark_tcpip_thread()
#define LOCK_TCPIP_CORE()		sys_lock_tcpip_core()
#define UNLOCK_TCPIP_CORE()		sys_unlock_tcpip_core()

/* The host's malloc for memory and every pool: no fixed limits. */
#define MEM_LIBC_MALLOC			1
#define MEMP_MEM_MALLOC			1
#define MEM_USE_POOLS			0
#define MEM_ALIGNMENT			8

/* Modules. */
#define LWIP_ARP			1
#define LWIP_ETHERNET			1
#define LWIP_IPV4			1
#define LWIP_ICMP			1
#define LWIP_IGMP			1
#define LWIP_RAW			1
#define LWIP_UDP			1
#define LWIP_UDPLITE			1
#define LWIP_TCP			1
#define LWIP_IPV6			1
#define LWIP_ICMP6			1
#define LWIP_IPV6_MLD			1
#define LWIP_STATS			0
#define LWIP_TCP_KEEPALIVE		1
#define SO_REUSE			1
#define LWIP_MULTICAST_TX_OPTIONS	1
#define LWIP_RANDOMIZE_INITIAL_LOCAL_PORTS 1
#define LWIP_NOASSERT_ON_ERROR		1

/* if_vke.c receives into its own pbufs (pbuf_alloced_custom). */
#define LWIP_SUPPORT_CUSTOM_PBUF	1
#define LWIP_NETIF_TX_SINGLE_PBUF	1
/*
 * lwIP's PBUF_POOL pbufs (it clones a broadcast for each receiver into
 * them) hold an ethernet frame; lwIP would size them from TCP_MSS, past
 * the 16 bits of a pool's size.
 */
#define PBUF_POOL_BUFSIZE		1536

/*
 * Linux's default TTL and hop limit (net.ipv4.ip_default_ttl and
 * net.ipv6.conf.*.hop_limit), where lwIP's are 255: every pcb starts
 * so, and so do its ICMP echo replies and errors (ICMP_TTL follows
 * IP_DEFAULT_TTL).  Neighbour discovery keeps its own 255 (ND6_HOPLIM).
 */
#define IP_DEFAULT_TTL			64
#define LWIP_ICMP6_HL			64

/* Several packets leave during an ARP resolution. */
#define ARP_QUEUEING			1
#define ARP_QUEUE_LEN			10

/* lo is the kernel's (inet_lwip.c), through lwIP's per-interface loopback. */
#define LWIP_NETIF_LOOPBACK		1
#define LWIP_HAVE_LOOPIF		0

#define IP_FORWARD			1
#define LWIP_IPV6_FORWARD		1
#define LWIP_IPV6_DUP_DETECT_ATTEMPTS	1
#define LWIP_IPV6_SEND_ROUTER_SOLICIT	1
#define LWIP_IPV6_AUTOCONFIG		1
#define LWIP_IPV6_NUM_ADDRESSES		6
#define MEMP_NUM_MLD6_GROUP		16

/*
 * TCP.  The window is 1 MiB, scaled (the largest shift lwIP's 2.1 takes
 * for it is 14; 5 covers 2 MiB), and the send buffer as much, so one
 * connection keeps 1 MiB in flight: at the ~0.5 ms round trip of a frame
 * through the host's threads that is 2 GB/s, where Debian's 64 KiB was
 * 130 MB/s.  The unread data of all sockets together stays bounded by
 * INET_RCVMAX (inet_pcb.h), not by the window.
 *
 * The MSS lwIP may use is as large as lo's MTU allows (65535 less the
 * IPv4 and TCP headers): lwIP offers and uses the smaller of it and what
 * the interface's MTU leaves (TCP_CALCULATE_EFF_SEND_MSS), so lo carries
 * 64 KiB segments and a 1500-byte ethernet 1460.  The segment queue is
 * sized for the small ones, which need the most.
 */
#define TCP_MSS				65495
#define LWIP_WND_SCALE			1
#define TCP_RCV_SCALE			5
#define TCP_WND				(1024 * 1024)
#define TCP_SND_BUF			(1024 * 1024)
#define TCP_SND_QUEUELEN		(4 * TCP_SND_BUF / 1460)
/*
 * A window update goes out once reading has opened the window by this
 * much (lwIP uses it in tcp_recved only, where pcb is the connection).
 * lwIP's default, a quarter of TCP_WND, is past the 64 KiB of a
 * connection without window scaling (slirp's TCP has none): the window
 * would open and never be announced, and the sender stall; such a
 * connection announces every 4 segments of 1460.  A scaled one keeps
 * the quarter: with 4 * 1460 every 64 KiB read sent an update of its
 * own beside the ACKs of the data (which announce the window too), each
 * a frame that runs the host's receive path and wakes its sender.
 */
#define TCP_WND_UPDATE_THRESHOLD \
	((pcb)->rcv_scale != 0 ? TCP_WND / 4 : 4 * 1460)
#define LWIP_CHECKSUM_ON_COPY		1
/* vke leaves TCP's checksums to a tap that takes them (net/if_vke.c). */
#define LWIP_CHECKSUM_CTRL_PER_NETIF	1
/* The checksum itself: eight bytes a step (net/inet_cksum.c). */
unsigned short inet_cksum(const void *data, int len);
#define LWIP_CHKSUM			inet_cksum
/*
 * lwIP's TCP sanity checks (init.c) would refuse an MSS past 16 KiB for
 * TCP_SNDLOWAT's sake, a bound only its netconn API uses, which is not
 * built; the window, buffer and queue hold what the others ask.
 */
#define LWIP_DISABLE_TCP_SANITY_CHECKS	1

#endif /* VKERNEL_LWIPOPTS_H */

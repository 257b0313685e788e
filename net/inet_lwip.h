/*
 * The TCP/IP stack: lwIP (Debian's liblwip, NO_SYS=0 with core locking),
 * running its own host thread, the tcpip thread, for its timers and for
 * the packets its interfaces receive.  Kernel code calls lwIP's raw API
 * (tcp_*, udp_*, raw_*, netif_*) between LOCK_TCPIP_CORE() and
 * UNLOCK_TCPIP_CORE(), never sleeping in between: the lock is a host
 * mutex, and a kernel thread that slept holding it would stall the stack
 * and, on the same virtual CPU, deadlock.  lwIP's own callbacks run with
 * the lock held, on the tcpip thread or on a CPU taking frames in
 * (net/if_vke.c); they never touch kernel state beyond queueing for an
 * interrupt (net/inet_*.c).
 *
 * This header is lwIP-free: files that call lwIP include its headers
 * themselves (compiled with its headers: the Makefile's LWIP_CFLAGS).
 */
#ifndef NET_INET_LWIP_H
#define NET_INET_LWIP_H

#include <stdint.h>

struct netif;

/*
 * Starts lwIP once: its tcpip thread, created with every host signal
 * blocked (the vkernel's CPUs take their ticks and IPIs as signals), and
 * the loopback interface lo (127.0.0.1/8, ::1/128, up).  Later calls do
 * nothing.  At boot, before network devices attach (they add their
 * netifs under LOCK_TCPIP_CORE after calling this), or with the big
 * lock.  Returns 0 or a negative errno.
 */
int inet_lwip_start(void);

/*
 * Delivers the packets lo has queued, in the calling thread (the core
 * lock held): a kernel thread that just sent over the loopback takes its
 * own packets in at once rather than handing them to the tcpip thread
 * and waiting for its interrupt, which halves a loopback round trip.
 */
void inet_lwip_loflush(void);

/*
 * A network device's counters for /proc/net/dev (core lock held): a
 * driver counts in its netif's state what it received and sent; without
 * a driver's say (inet_if_setcounts), zeros.
 */
void inet_if_counts(struct netif *nif, uint64_t *rxpackets,
    uint64_t *rxbytes, uint64_t *txpackets, uint64_t *txbytes);

/*
 * Registers fn as the counters of interface nif (a driver's, called at
 * attach under the core lock).
 */
typedef void inet_if_counts_fn(struct netif *nif, uint64_t *rxpackets,
    uint64_t *rxbytes, uint64_t *txpackets, uint64_t *txbytes);
void inet_if_setcounts(struct netif *nif, inet_if_counts_fn *fn);

/*
 * The network interrupt's work, in kernel context with the big lock and
 * without the core lock: wakes the sockets lwIP's callbacks queued news
 * for.  A driver that ran the stack's input on a CPU calls it at once,
 * rather than waiting for the interrupt those callbacks posted.
 */
void inet_lwip_deliver(void);

/* The loopback interface; NULL before inet_lwip_start. */
struct netif *inet_lwip_loif(void);

#endif /* NET_INET_LWIP_H */

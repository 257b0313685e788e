/*
 * lwIP's start-up and the loopback interface (see inet_lwip.h).
 *
 * lwIP is built with LWIP_HAVE_LOOPIF=0 and LWIP_NETIF_LOOPBACK=1: it has
 * no loopback interface of its own, but any interface may send packets
 * to itself (netif_loop_output), which the tcpip thread then takes in as
 * received.  lo is an interface whose every packet goes that way.
 */
#include <errno.h>
#include <stdbool.h>

#include "lwip/ip_addr.h"
#include "lwip/netif.h"
#include "lwip/tcpip.h"

#include "host/sigmask.h"
#include "kern/kernel.h"
#include "net/inet_lwip.h"

/* Linux's lo has 65536; lwIP's MTU is 16 bits. */
#define LO_MTU		65535

static bool lwip_started;
static struct netif loif;

static err_t
lo_output4(struct netif *nif, struct pbuf *p, const ip4_addr_t *dst)
{
	(void)dst;
	return netif_loop_output(nif, p);
}

static err_t
lo_output6(struct netif *nif, struct pbuf *p, const ip6_addr_t *dst)
{
	(void)dst;
	return netif_loop_output(nif, p);
}

static err_t
lo_init(struct netif *nif)
{
	nif->name[0] = 'l';
	nif->name[1] = 'o';
	nif->output = lo_output4;
	nif->output_ip6 = lo_output6;
	nif->mtu = LO_MTU;
	return ERR_OK;
}

/* Adds lo; with the core lock. */
static int
lo_attach(void)
{
	ip4_addr_t addr, mask, gw;

	IP4_ADDR(&addr, 127, 0, 0, 1);
	IP4_ADDR(&mask, 255, 0, 0, 0);
	ip4_addr_set_zero(&gw);
	if (netif_add(&loif, &addr, &mask, &gw, NULL, lo_init,
	    tcpip_input) == NULL)
		return -ENOMEM;
	ip6_addr_t lo6;
	ip6_addr_set_loopback(&lo6);
	netif_ip6_addr_set(&loif, 0, &lo6);
	netif_ip6_addr_set_state(&loif, 0, IP6_ADDR_VALID);
	netif_set_link_up(&loif);
	netif_set_up(&loif);
	return 0;
}

int
inet_lwip_start(void)
{
	if (lwip_started)
		return 0;
	/* The tcpip thread inherits this mask; it must take no signal. */
	struct host_sigmask old;
	host_sigmask_block_all(&old);
	tcpip_init(NULL, NULL);
	host_sigmask_restore(&old);
	lwip_started = true;

	LOCK_TCPIP_CORE();
	int error = lo_attach();
	UNLOCK_TCPIP_CORE();
	if (error < 0) {
		kprintf("inet: cannot add lo (%d)\n", error);
		return error;
	}
	return 0;
}

struct netif *
inet_lwip_loif(void)
{
	return lwip_started ? &loif : NULL;
}

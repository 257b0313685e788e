/*
 * lwIP's start-up and the loopback interface (see inet_lwip.h).
 *
 * lwIP is built with LWIP_HAVE_LOOPIF=0 and LWIP_NETIF_LOOPBACK=1: it has
 * no loopback interface of its own, but any interface may send packets
 * to itself (netif_loop_output), which the tcpip thread then takes in as
 * received.  lo is an interface whose every packet goes that way.
 *
 * The network interrupt: lwIP's callbacks (on the tcpip thread, or on a
 * CPU whose driver takes frames in) put the inpcbs with news on a pending
 * list and post INTR_DEVICE to CPU 0 once (inet_posted); the handler, in
 * kernel context, takes the list and wakes each socket's readers or
 * writers (inet_pcb.h); a driver on a CPU does so at once
 * (inet_lwip_deliver).  INTR_DEVICE is shared
 * with the console and the network devices: the flag tells the handler
 * whether the interrupt was its own.
 */
#include <errno.h>
#include <stdbool.h>

#include "lwip/ip_addr.h"
#include "lwip/netif.h"
#include "lwip/tcpip.h"

#include "host/cpu.h"
#include "host/sigmask.h"
#include "kern/interrupt.h"
#include "kern/kernel.h"
#include "net/inet_lwip.h"
#include "net/inet_pcb.h"

/* Linux's lo has 65536; lwIP's MTU is 16 bits. */
#define LO_MTU		65535

static bool lwip_started;
static struct netif loif;
static inet_if_counts_fn *if_countfn[256];	/* by netif index */

static TAILQ_HEAD(, inpcb) inp_pendq = TAILQ_HEAD_INITIALIZER(inp_pendq);
static uint32_t inet_posted;	/* atomic: the interrupt is on its way */

void
inp_notify(struct inpcb *inp, uint32_t events)
{
	if (inp->inp_socket == NULL)
		return;
	inp->inp_events |= events;
	if (!inp->inp_pending) {
		TAILQ_INSERT_TAIL(&inp_pendq, inp, inp_plink);
		inp->inp_pending = true;
	}
	if (__atomic_exchange_n(&inet_posted, 1, __ATOMIC_ACQ_REL) == 0)
		cpu_post_id(0, INTR_DEVICE);
}

void
inp_unpend(struct inpcb *inp)
{
	if (inp->inp_pending) {
		TAILQ_REMOVE(&inp_pendq, inp, inp_plink);
		inp->inp_pending = false;
	}
	inp->inp_events = 0;
}

void
inp_sync(struct inpcb *inp)
{
	if (inp->inp_error != 0 && inp->inp_socket != NULL) {
		inp->inp_socket->so_error = inp->inp_error;
		inp->inp_error = 0;
	}
}

/*
 * The network interrupt's work, also done at once by a driver that took
 * frames in on a CPU: each pending socket's error to so_error, then
 * its sleepers and pollers woken.  The wake-ups run without the core
 * lock (a poller's callback may poll the socket again, which takes it);
 * the big lock keeps the socket from going meanwhile.
 */
void
inet_lwip_deliver(void)
{
	if (__atomic_exchange_n(&inet_posted, 0, __ATOMIC_ACQ_REL) == 0)
		return;
	for (;;) {
		LOCK_TCPIP_CORE();
		struct inpcb *inp = TAILQ_FIRST(&inp_pendq);
		uint32_t events = 0;
		struct socket *so = NULL;
		if (inp != NULL) {
			events = inp->inp_events;
			so = inp->inp_socket;
			inp_sync(inp);
			inp_unpend(inp);
		}
		UNLOCK_TCPIP_CORE();
		if (inp == NULL)
			break;
		if (events & INP_EV_READ)
			sowakeup(&so->so_rcv);
		if (events & INP_EV_WRITE)
			sowakeup(&so->so_snd);
	}
}

static void
inet_intr(void *arg, uint32_t bits)
{
	(void)arg, (void)bits;
	inet_lwip_deliver();
}

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

void
inet_if_setcounts(struct netif *nif, inet_if_counts_fn *fn)
{
	if_countfn[netif_get_index(nif)] = fn;
}

void
inet_if_counts(struct netif *nif, uint64_t *rxpackets, uint64_t *rxbytes,
    uint64_t *txpackets, uint64_t *txbytes)
{
	inet_if_counts_fn *fn = if_countfn[netif_get_index(nif)];
	*rxpackets = *rxbytes = *txpackets = *txbytes = 0;
	if (fn != NULL)
		fn(nif, rxpackets, rxbytes, txpackets, txbytes);
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
	netif_ip6_addr_set_state(&loif, 0, IP6_ADDR_PREFERRED);
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
	int error = intr_establish(INTR_DEVICE, inet_intr, NULL);
	if (error < 0)
		return error;

	LOCK_TCPIP_CORE();
	error = lo_attach();
	if (error == 0)
		error = icmp_err_start();
	UNLOCK_TCPIP_CORE();
	if (error < 0) {
		kprintf("inet: cannot add lo or the ICMP error pcbs (%d)\n",
		    error);
		return error;
	}
	return 0;
}

void
inet_lwip_loflush(void)
{
	if (lwip_started)
		netif_poll(&loif);
}

struct netif *
inet_lwip_loif(void)
{
	return lwip_started ? &loif : NULL;
}

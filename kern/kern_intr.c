/*
 * Interrupt dispatch (see interrupt.h): the bits posted to a CPU, as
 * taken by sched_interrupts.  The tick audits the guests believed stopped
 * (vmspace_audit); device bits go to the handlers drivers registered;
 * signals sent to the vkernel process go to the handler registered for
 * each: the console's (its foreground group, the window size, raw mode
 * again after SIGCONT), the process layer's for SIGTERM and SIGHUP
 * (shutdown).
 */
#include <errno.h>
#include <signal.h>

#include "host/cpu.h"
#include "host/hostsig.h"
#include "host/vmspace.h"
#include "kern/init.h"
#include "kern/interrupt.h"
#include "kern/kernel.h"
#include "kern/msgbuf.h"
#include "kern/thread.h"

#define INTR_KERNEL	(INTR_TICK | INTR_KICK | INTR_HALT | INTR_SIGNAL)

static struct intrhand {
	uint32_t ih_bit;
	intr_handler_t *ih_fn;
	void *ih_arg;
} intrhand[INTR_NHANDLERS];
static int nintrhand;
static void (*intr_signal_fn[64])(int sig);	/* by signal number */

int
intr_establish(uint32_t bit, intr_handler_t *fn, void *arg)
{
	if (bit == 0 || (bit & (bit - 1)) != 0 || (bit & INTR_KERNEL) != 0)
		return -EINVAL;
	for (int i = 0; i < nintrhand; i++)
		if (intrhand[i].ih_bit == bit && intrhand[i].ih_fn == fn &&
		    intrhand[i].ih_arg == arg)
			return 0;
	if (nintrhand == INTR_NHANDLERS)
		return -ENOSPC;
	intrhand[nintrhand++] = (struct intrhand){ bit, fn, arg };
	return 0;
}

void
intr_signal_establish(int sig, void (*fn)(int sig))
{
	KASSERT(sig > 0 && sig < 64, "intr_signal_establish: bad signal");
	intr_signal_fn[sig] = fn;
}

int
intr_handler(int i, uint32_t *bit, intr_handler_t **fn, void **arg)
{
	if (i < 0 || i >= nintrhand)
		return -1;
	*bit = intrhand[i].ih_bit;
	*fn = intrhand[i].ih_fn;
	*arg = intrhand[i].ih_arg;
	return 0;
}

void
(*intr_signal_handler(int sig))(int)
{
	return sig > 0 && sig < 64 ? intr_signal_fn[sig] : NULL;
}

static void
intr_signals(void)
{
	uint64_t sigs = host_signals_take();
	for (int sig = 1; sig < 64; sig++)
		if ((sigs & (1ULL << sig)) && intr_signal_fn[sig] != NULL)
			intr_signal_fn[sig](sig);
}

static void
kern_intr(struct vcpu *cpu, uint32_t bits)
{
	(void)cpu;
	if (bits & INTR_TICK) {
		vmspace_audit();
		msgbuf_wakeup();	/* readers of the log, woken where it is safe */
	}
	for (int i = 0; i < nintrhand; i++)
		if (bits & intrhand[i].ih_bit)
			intrhand[i].ih_fn(intrhand[i].ih_arg, bits);
	if (bits & INTR_SIGNAL)
		intr_signals();
}

int
intr_init(void)
{
	sched_intr_hook = kern_intr;
	return host_signals_init();
}

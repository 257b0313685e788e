/*
 * Interrupt dispatch: the bits posted to a CPU, as taken by
 * sched_interrupts.  The tick audits the guests believed stopped
 * (vmspace_audit); devices; disk completions; host vmspaces gone (their
 * exiting owners wait, kern_exit); and signals sent to the
 * vkernel process: the terminal's go to the console (its foreground
 * group, the window size, raw mode again after SIGCONT), SIGTERM and
 * SIGHUP shut the machine down by killing init.
 */
#include <signal.h>

#include "dev/console.h"
#include "dev/vkd.h"
#include "host/cpu.h"
#include "host/hostsig.h"
#include "host/vmspace.h"
#include "kern/proc.h"
#include "kern/signal.h"
#include "vm/pmap.h"

static void
kern_intr(struct vcpu *cpu, uint32_t bits)
{
	(void)cpu;
	if (bits & INTR_TICK)
		vmspace_audit();
	if (bits & INTR_DEVICE)
		console_intr(bits);
	if (bits & INTR_DISK)
		vkd_intr();
	if (bits & INTR_VMSPACE)
		pmap_reaped();
	if (bits & INTR_SIGNAL) {
		uint64_t sigs = host_signals_take();
		for (int sig = 1; sig < 64; sig++) {
			if (!(sigs & (1ULL << sig)))
				continue;
			if (sig == SIGTERM || sig == SIGHUP) {
				kprintf("vkernel: %s: shutting down\n",
				    sig == SIGTERM ? "SIGTERM" : "SIGHUP");
				if (initproc != NULL)
					psignal_proc(initproc, SIGKILL);
			} else {
				console_signal(sig);
			}
		}
	}
}

/* Installs the dispatcher and catches the vkernel's own signals. */
int
intr_init(void)
{
	sched_intr_hook = kern_intr;
	return host_signals_init();
}

/*
 * Interrupt handlers.  Host threads post interrupt bits to a CPU
 * (INTR_* of host/cpu.h); the CPU takes them in sched_interrupts, with
 * the big lock held, and calls every handler registered for a bit it
 * took.  Drivers register their own: the console and a network device
 * share INTR_DEVICE (a host fd became ready, host/intr.h), disks take
 * INTR_DISK, pmap INTR_VMSPACE.  The kernel keeps INTR_TICK (the guest
 * audit) and INTR_SIGNAL (the vkernel's own signals) for itself.
 */
#ifndef KERN_INTERRUPT_H
#define KERN_INTERRUPT_H

#include <stdint.h>

#define INTR_NHANDLERS	16

/* Called with the bits the CPU took (at least the one registered for). */
typedef void intr_handler_t(void *arg, uint32_t bits);

/*
 * Registers fn(arg, bits) for the interrupt bit `bit` (one INTR_* bit
 * other than TICK, KICK, HALT and SIGNAL).  Handlers of a bit are called
 * in the order registered; registering the same fn and arg again does
 * nothing.  At boot or with the big lock held.  Returns 0, -EINVAL for a
 * bit that is not a device's, -ENOSPC past INTR_NHANDLERS.
 */
int intr_establish(uint32_t bit, intr_handler_t *fn, void *arg);

/*
 * Who hears the vkernel process's signal sig (one host_signals_init
 * catches, host/hostsig.h): the console the terminal's signals and
 * window size, the process layer SIGTERM and SIGHUP (which shut the
 * machine down).  One handler a signal, called with the big lock held;
 * a later one replaces it.  A signal nobody registered for is dropped.
 */
void intr_signal_establish(int sig, void (*fn)(int sig));

/*
 * For the debugger: the i-th handler registered (its bit, function and
 * argument), or -1 past the last; intr_signal_handler the handler of
 * signal sig, or NULL.
 */
int intr_handler(int i, uint32_t *bit, intr_handler_t **fn, void **arg);
void (*intr_signal_handler(int sig))(int);

#endif /* KERN_INTERRUPT_H */

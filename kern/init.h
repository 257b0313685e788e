/*
 * Booting and stopping the kernel proper, on top of the host layer.
 */
#ifndef KERN_INIT_H
#define KERN_INIT_H

#include <stdbool.h>

struct boot_args {
	const char *initramfs;		/* host path of a cpio newc archive */
	char *const *init_argv;		/* PID 1's argv; argv[0] is its path */
	int ddb;			/* -D: enter the debugger at boot */
};

/*
 * Boots: memory, files, the console, PID 1, then runs the CPUs until PID 1
 * exits.  Returns PID 1's wait status, or -1 if booting failed.
 */
int kernel_main(const struct boot_args *ba);

/* Interrupt dispatch and the vkernel's own signals (kern_intr.c). */
int intr_init(void);

/*
 * PID 1 exited with wait status xstat: kills every other process,
 * unmounts the file systems and halts the CPUs (kern_shutdown.c).  Runs
 * in PID 1's exiting thread.
 */
void kern_shutdown(int xstat);

/*
 * reboot(2) by the calling process: PID 1 is killed, so the machine shuts
 * down (kern_shutdown); the caller exits too.  Then vkernel exits with 0
 * (halt, power off) or, with restart, boots again (kern_shutdown_restart).
 */
void kern_reboot(bool restart) __attribute__((noreturn));

/*
 * The same without an exiting caller (the debugger's reboot): PID 1 is
 * killed, and the machine halts or, with restart, boots again.  A second
 * request changes nothing.
 */
void shutdown_request(bool restart);

/*
 * Makes the vkernel process's SIGTERM and SIGHUP shut the machine down
 * (PID 1 is killed), as intr_signal_establish handlers (kern_shutdown.c).
 */
void shutdown_signals_init(void);

/* What vkernel exits with: PID 1's wait status, or 0 after reboot(2). */
int kern_shutdown_status(void);

/*
 * After kernel_main returned: true if reboot(2) asked for a restart, so
 * that the host side boots the machine again (boot/main.c re-executes
 * the vkernel with the same arguments, as DragonFly's does).
 */
bool kern_shutdown_restart(void);

#endif /* KERN_INIT_H */

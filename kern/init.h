/*
 * Booting and stopping the kernel proper, on top of the host layer.
 */
#ifndef KERN_INIT_H
#define KERN_INIT_H

struct boot_args {
	const char *initramfs;		/* host path of a cpio newc archive */
	char *const *init_argv;		/* PID 1's argv; argv[0] is its path */
};

/*
 * Boots: memory, files, the console, PID 1, then runs the CPUs until PID 1
 * exits.  Returns PID 1's wait status, or -1 if booting failed.
 */
int kernel_main(const struct boot_args *ba);

/* Interrupt dispatch and the vkernel's own signals (kern_intr.c). */
int intr_init(void);

/* The machine's exit status once reboot(2) asked for it, else -1. */
extern int reboot_status;

/* PID 1 exited with wait status xstat: shut down. */
void init_exited(int xstat);

#endif /* KERN_INIT_H */

/*
 * The console: the terminal (or pipe) the vkernel was started from.
 */
#ifndef DEV_CONSOLE_H
#define DEV_CONSOLE_H

#include <stdint.h>

/*
 * Registers /dev/console and /dev/tty, makes their nodes, puts the host
 * terminal in raw mode if it is ours (see host/cons_host.h), has the
 * event thread watch the host's standard input, and registers the
 * console's interrupt handler (INTR_DEVICE) and signal handler.  0 or a negative errno.
 */
int console_init(void);

#endif /* DEV_CONSOLE_H */

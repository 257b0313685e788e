/*
 * The console: the terminal (or pipe) the vkernel was started from.
 */
#ifndef DEV_CONSOLE_H
#define DEV_CONSOLE_H

#include <stdint.h>

/*
 * Registers /dev/console and /dev/tty, makes their nodes, puts the host
 * terminal in raw mode if it is ours (see host/cons_host.h), and has the
 * event thread watch the host's standard input.  0 or a negative errno.
 */
int console_init(void);

/* The console's interrupt: input arrived (INTR_DEVICE). */
void console_intr(uint32_t bits);

/*
 * A host signal for the console: SIGWINCH (new window size), SIGCONT
 * (raw mode again); others (^C, ^\, ^Z from a cooked host terminal, or
 * kill) go to the console's foreground group.
 */
void console_signal(int sig);

#endif /* DEV_CONSOLE_H */

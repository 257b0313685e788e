/*
 * The console: the terminal (or pipe) the vkernel was started from.
 */
#ifndef DEV_CONSOLE_H
#define DEV_CONSOLE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Registers /dev/console and /dev/tty, makes their nodes, puts the host
 * terminal in raw mode if it is ours (see host/cons_host.h), has the
 * event thread watch the host's standard input, and registers the
 * console's interrupt handler (INTR_DEVICE) and signal handler.  0 or a negative errno.
 */
int console_init(void);

/*
 * The console as the debugger uses it (cngetc, cnputs: BSD's), raw, to
 * and from the host, bypassing the tty.  cngetc waits for a byte and
 * returns it, or -1 at end of input.  cnputs writes s, each "\n" as
 * "\r\n" at a raw terminal.  cn_interactive: the console is our own
 * terminal (raw), where a person can answer the debugger.
 */
int cngetc(void);
void cnputs(const char *s);
bool cn_interactive(void);

#endif /* DEV_CONSOLE_H */

/*
 * The console: the terminal (or pipe) the vkernel was started from.
 */
#ifndef DEV_CONSOLE_H
#define DEV_CONSOLE_H

/*
 * Registers /dev/console and /dev/tty, makes their nodes, and has the
 * event thread watch the host's standard input.  0 or a negative errno.
 */
int console_init(void);

#endif /* DEV_CONSOLE_H */

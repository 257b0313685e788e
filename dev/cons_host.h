/*
 * The console's host side: the terminal (or pipe, or file) the vkernel
 * was started on.  The only code that changes the host terminal's modes.
 */
#ifndef DEV_CONS_HOST_H
#define DEV_CONS_HOST_H

#include <stdbool.h>
#include <sys/ioctl.h>

enum cons_mode {
	CONS_PIPE,	/* stdin is no terminal: pass-through */
	CONS_BGTTY,	/* a terminal we are in the background of: untouched */
	CONS_TTY,	/* our terminal, now raw: the guest's line discipline */
};

/*
 * Looks at standard input.  In CONS_TTY mode saves its termios, makes it
 * raw, and arranges for the saved termios to come back on every exit:
 * exit() and return from main (after drain(), which writes the output
 * still queued), and the fatal signals (panic's abort, faults, SIGPIPE),
 * which then take their course.
 */
enum cons_mode cons_host_init(void (*drain)(void));

/* Puts the saved termios back (async-signal safe; idempotent). */
void cons_host_restore(void);

/* After the vkernel was stopped and continued: raw again if in front. */
void cons_host_resume(void);

/* The host terminal's window size; false if it has none. */
bool cons_host_winsize(struct winsize *ws);

#endif /* DEV_CONS_HOST_H */

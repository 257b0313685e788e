/*
 * The console's host side: the terminal (or pipe, or file) the vkernel
 * was started on.  The only code that changes the host terminal's modes.
 */
#ifndef HOST_CONS_HOST_H
#define HOST_CONS_HOST_H

#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/types.h>

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

/*
 * What exit does for the console: writes out the output still queued
 * (drain), then puts the saved termios back.  Before a reboot's re-exec.
 */
void cons_host_finish(void);

/* After the vkernel was stopped and continued: raw again if in front. */
void cons_host_resume(void);

/* The host terminal's window size; false if it has none. */
bool cons_host_winsize(struct winsize *ws);

/*
 * Reads up to n bytes of standard input without blocking.  Returns the
 * count, 0 at end of file, -EAGAIN if nothing is there now, or -errno.
 */
ssize_t cons_host_read(void *buf, size_t n);

/*
 * Waits up to timeout_ms (0: not at all) for standard output to take
 * bytes.  Returns 1 if it does, 0 if not yet, -EIO if it is broken.
 */
int cons_host_writable(int timeout_ms);

/*
 * Waits up to timeout_ms (-1: no limit) for a byte of standard input and
 * reads it: the byte, -EAGAIN if none came, -EIO at end of file or on an
 * error.  For the debugger, which reads the console while the machine
 * stands still.
 */
int cons_host_getc(int timeout_ms);

/* Writes up to n bytes to standard output: the count or -errno. */
ssize_t cons_host_write(const void *buf, size_t n);

/*
 * False if standard output is a regular file or a device other than a
 * terminal (/dev/null): those always take output, so no poll is needed.
 */
bool cons_host_out_blocks(void);

#endif /* HOST_CONS_HOST_H */

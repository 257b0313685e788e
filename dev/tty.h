/*
 * Terminals: the tty layer between a terminal driver (the console) and
 * the processes that read and write it, with Linux's termios semantics as
 * guests see them.
 *
 * A tty has an input queue that the line discipline (tty_ldisc.c) fills
 * from the driver's bytes, an output queue that writes and echoes fill and
 * the driver drains (tsw_start), a termios, a window size, and the session
 * it is the controlling terminal of.  tty.c holds the read, write and poll
 * paths with job control; tty_ioctl.c the ioctls.
 *
 * Pass-through mode (TF_PASSTHRU): no line discipline at all.  Input is
 * queued as it came, output goes out unchanged, nothing is echoed; the
 * termios is kept (TCGETS returns what TCSETS stored) but not applied.
 * The console uses it when the vkernel's standard input is not a terminal
 * it controls, so piped input and captured output stay byte-exact.
 *
 * Locking: the big kernel lock.  Reads, writes and some ioctls sleep.
 */
#ifndef DEV_TTY_H
#define DEV_TTY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <termios.h>

#include "fs/ioctl.h"
#include "fs/poll.h"

struct file;
struct proc;
struct session;
struct tty;
struct uio;

/* Linux's kernel termios (asm-generic/termbits.h), what TCGETS copies. */
#define LINUX_NCCS	19
struct linux_termios {
	uint32_t c_iflag, c_oflag, c_cflag, c_lflag;
	uint8_t c_line;
	uint8_t c_cc[LINUX_NCCS];
};

#define TTY_QSIZE	4096		/* each queue; a power of two */

/* A terminal driver. */
struct ttydevsw {
	/* Output was queued: send what the device takes now. */
	void (*tsw_start)(struct tty *tp);
	/*
	 * A reader found too little input: fetch what the device has, or
	 * arrange to be told (optional; a driver that feeds the tty from its
	 * interrupt needs none).  Also called when reading made room.
	 */
	void (*tsw_inwant)(struct tty *tp);
};

struct tty {
	struct linux_termios t_termios;
	struct winsize t_winsize;
	int t_flags;			/* TF_* */
	int t_state;			/* TS_* */

	/*
	 * Input: a ring of t_incount bytes from t_inhead.  The first
	 * t_incommit are readable; the rest is the canonical line being
	 * edited.  t_delim marks the bytes that end a line (t_nlines of
	 * them are committed), t_eof those that are a VEOF, not data.
	 */
	uint8_t t_in[TTY_QSIZE];
	uint8_t t_delim[TTY_QSIZE / 8], t_eof[TTY_QSIZE / 8];
	uint32_t t_inhead, t_incount, t_incommit, t_nlines;
	int t_lncol;			/* output column where the line began */

	/* Output: a ring of t_outcount bytes from t_outhead. */
	uint8_t t_out[TTY_QSIZE];
	uint32_t t_outhead, t_outcount;
	int t_column;			/* the cursor's column, for erase */

	struct session *t_session;	/* referenced; NULL: nobody's */
	pid_t t_fgpgid;			/* last foreground group set */

	struct selinfo t_rsel, t_wsel;
	const struct ttydevsw *t_dev;
	void *t_sc;			/* the driver's */
};

#define TF_PASSTHRU	0x01		/* no line discipline (see above) */

#define TS_LNEXT	0x01		/* the next byte is literal (VLNEXT) */
#define TS_STOPPED	0x02		/* output stopped (VSTOP, TCOOFF) */
#define TS_EOF		0x04		/* the device has no more input */
#define TS_EOF1		0x08		/* ... only once (a cooked host tty) */
#define TS_OERROR	0x10		/* the device cannot take output */

/* Linux's default termios (tty_std_termios). */
extern const struct linux_termios tty_std_termios;

/* A new tty for driver dev, with the default termios; NULL if no memory. */
struct tty *tty_alloc(const struct ttydevsw *dev, void *sc, int flags);
void tty_free(struct tty *tp);

/*
 * The file operations' halves (see struct fileops).  fflags are the open
 * file's flags (O_NONBLOCK, O_NOCTTY).  read and write return 0 or a
 * negative errno with the uio advanced by what moved.
 */
int tty_open(struct tty *tp, int fflags);
int tty_read(struct tty *tp, struct uio *uio, int fflags);
int tty_write(struct tty *tp, struct uio *uio, int fflags);
int tty_poll(struct tty *tp, int events, struct pollwaiter *pw);
int tty_ioctl(struct tty *tp, unsigned long cmd, void *data, int fflags);
/* The commands tty_ioctl knows (fs/ioctl.h). */
extern const struct ioctl_cmd tty_ioctls[];

/* The line discipline (tty_ldisc.c). */

/* One byte from the device: edits, echoes, signals, queues. */
void tty_input(struct tty *tp, uint8_t c);
/* Room left in the input queue: how many bytes the driver may feed. */
uint32_t tty_inroom(const struct tty *tp);
/* The device has no more input (once: a cooked host terminal's ^D). */
void tty_input_eof(struct tty *tp, bool once);
/* Bytes a read could take now (FIONREAD): in canonical mode, whole lines. */
uint32_t tty_readable(const struct tty *tp);
/* Whether a read would return now without waiting. */
bool tty_input_ready(const struct tty *tp);
/*
 * Moves readable input to buf (at most n bytes, up to the end of a line
 * in canonical mode) and returns how many; *endl is set if that ended a
 * line (a VEOF ends one and is not data).
 */
uint32_t tty_dequeue(struct tty *tp, uint8_t *buf, uint32_t n, bool *endl);
/* Discards all input. */
void tty_flush_input(struct tty *tp);
/* The termios changed from old: adapts the queue to ICANON changes. */
void tty_ldisc_termios(struct tty *tp, const struct linux_termios *old);

/*
 * Queues c for output with OPOST processing.  false (and nothing queued)
 * if the output queue lacks room for what c becomes.
 */
bool tty_output(struct tty *tp, uint8_t c);
/* True if output goes out unchanged (pass-through, or no OPOST). */
bool tty_output_plain(const struct tty *tp);
/* Queues n bytes unchanged; the caller made sure they fit. */
void tty_output_bulk(struct tty *tp, const uint8_t *buf, uint32_t n);
/* Room in the output queue. */
uint32_t tty_outroom(const struct tty *tp);
/* Copies up to n queued output bytes for the device; returns how many. */
uint32_t tty_peekout(const struct tty *tp, uint8_t *buf, uint32_t n);
/* The device took n of them. */
void tty_outconsume(struct tty *tp, uint32_t n);
/* The device took output (or failed: error): wakes writers, pollers. */
void tty_outdone(struct tty *tp, bool error);
/* Asks the driver to send queued output unless stopped. */
void tty_start(struct tty *tp);

/* Job control and sessions (tty.c). */

/* Sends sig to the foreground process group, if there is one. */
void tty_signal_fg(struct tty *tp, int sig);
/* The window size changed: stores it and sends SIGWINCH if it differs. */
void tty_set_winsize(struct tty *tp, const struct winsize *ws);
/* Drops the session if its leader exited or no process is left in it. */
void tty_session_check(struct tty *tp);
/* True if tp is p's controlling terminal. */
bool tty_is_ctty(struct tty *tp, const struct proc *p);
/*
 * The rules for a background process changing the terminal (TCSETS,
 * TOSTOP writes): 0 to go on, -EINTR after sending SIGTTOU, -EIO.
 */
int tty_check_change(struct tty *tp);
/* Makes tp the controlling terminal of p's session, p's group in front. */
void tty_set_ctty(struct tty *tp, struct proc *p);
/* Sleeps until the output queue drained: 0, -EINTR, -EIO. */
int tty_drain(struct tty *tp);

#endif /* DEV_TTY_H */

/*
 * The console: a tty (dev/tty.h) over the vkernel's standard input and
 * output, and /dev/tty, the caller's controlling terminal.
 *
 * Three modes, chosen at boot by cons_host_init:
 *   CONS_TTY   stdin is our terminal, made raw: the guest's line
 *              discipline edits, echoes and signals.  Input is read
 *              as soon as the event thread reports it, so ^C reaches
 *              the foreground group while nobody reads.
 *   CONS_PIPE  stdin is a pipe, a file or /dev/null; CONS_BGTTY a
 *              terminal we are in the background of.  Pass-through:
 *              bytes in and out unchanged, nothing echoed (the termios
 *              is kept but not applied), so piped input and captured
 *              output stay byte-exact.  Input is read only when a guest
 *              wants it, as a plain pipe would be.
 *
 * Nothing here blocks the virtual CPU in the host: input is read after
 * poll says it is there, output is written while poll says the host
 * takes it, and otherwise the event thread tells us (INTR_DEVICE).
 */
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <sys/epoll.h>
#include <sys/stat.h>

#include "host/cons_host.h"
#include "dev/console.h"
#include "dev/tty.h"
#include "fs/cdev.h"
#include "fs/file.h"
#include "fs/namei.h"
#include "fs/vfs.h"
#include "fs/vnode.h"
#include "host/cpu.h"
#include "host/intr.h"
#include "kern/interrupt.h"
#include "kern/proc.h"
#include "kern/signal.h"
#include "kern/ucred.h"
#include "kern/uio.h"

#define CONS_CHUNK	512

static struct tty *cons_tp;
static enum cons_mode cons_mode;
static struct intr_src *cons_in, *cons_out;
static bool cons_in_armed, cons_out_armed;
static bool cons_out_blocks;	/* stdout may block: a pipe, a terminal */

/*
 * The escape to the debugger at a raw console, after ssh's: at the start
 * of a line (after a typed CR or LF, or the first byte), "~" then ^B
 * ("break", which on a BSD serial console enters ddb).  "~~" gives one
 * "~"; "~" and any other byte give both.  The "~" waits for the byte
 * after it, as in ssh.  An escape sequence that comes in at the start
 * of a line leaves it there: busybox's shell asks the terminal where the
 * cursor is after each prompt (ESC [ 6 n), and the terminal's answer
 * (ESC [ row ; col R) arrives before anything typed.
 */
#define CONS_ESC_BOL	1	/* at the start of a line */
#define CONS_ESC_TILDE	2	/* "~" seen there, held back */
#define CONS_ESC_SEQ	3	/* in an escape sequence at the start of a line */
#define CONS_ESC_BREAK	0x02	/* ^B */
static int cons_esc = CONS_ESC_BOL;

static void
cons_input(struct tty *tp, uint8_t c)
{
	if (cons_esc == CONS_ESC_TILDE) {
		cons_esc = 0;
		if (c == CONS_ESC_BREAK) {
			cons_esc = CONS_ESC_BOL;
			kdb_enter("console escape ~^B");
			return;
		}
		tty_input(tp, '~');
		if (c == '~')
			return;
	} else if (cons_esc == CONS_ESC_BOL && c == '~') {
		cons_esc = CONS_ESC_TILDE;
		return;
	} else if (cons_esc == CONS_ESC_BOL && c == 0x1b) {
		cons_esc = CONS_ESC_SEQ;
		tty_input(tp, c);
		return;
	} else if (cons_esc == CONS_ESC_SEQ) {
		/* A CSI's final byte (or any byte but '[' and the parameters). */
		if (!(c == '[' || (c >= 0x20 && c <= 0x3f)))
			cons_esc = CONS_ESC_BOL;
		tty_input(tp, c);
		return;
	}
	cons_esc = c == '\r' || c == '\n' ? CONS_ESC_BOL : 0;
	tty_input(tp, c);
}

/* Reads what the host has for us, as much as the tty takes. */
static void
cons_pull(struct tty *tp)
{
	uint8_t buf[CONS_CHUNK];

	while (tty_inroom(tp) > 0 && !(tp->t_state & TS_EOF)) {
		ssize_t n = cons_host_read(buf, MIN(sizeof(buf), tty_inroom(tp)));
		if (n == -EAGAIN)
			return;
		if (n <= 0) {
			/* A cooked terminal's ^D ends one read, not all. */
			tty_input_eof(tp, n == 0 && cons_mode == CONS_BGTTY);
			return;
		}
		for (ssize_t i = 0; i < n; i++) {
			if (cons_mode == CONS_TTY)
				cons_input(tp, buf[i]);
			else
				tty_input(tp, buf[i]);
		}
	}
}

static void
cons_arm_input(void)
{
	if (cons_in != NULL && !cons_in_armed && intr_rearm(cons_in) == 0)
		cons_in_armed = true;
}

/*
 * The tty wants input (a reader waits) or has room again.  In CONS_TTY
 * mode input comes from the interrupt; the source is only re-armed if
 * a full queue had left it off.
 */
static void
cons_inwant(struct tty *tp)
{
	if (cons_mode != CONS_TTY && !tty_input_ready(tp))
		cons_pull(tp);
	if (tp->t_state & TS_EOF)
		return;
	if (cons_mode == CONS_TTY ? tty_inroom(tp) > 0 : !tty_input_ready(tp))
		cons_arm_input();
}

/* Waits for the host to take output: the event thread will say. */
static bool
cons_wait_output(void)
{
	if (cons_out_armed)
		return true;
	if (cons_out == NULL)
		cons_out = intr_register(STDOUT_FILENO, EPOLLOUT, cpu_get(0));
	else if (intr_rearm(cons_out) < 0)
		return false;
	cons_out_armed = cons_out != NULL;
	return cons_out_armed;
}

/* Writes queued output while the host takes it without blocking. */
static void
cons_start(struct tty *tp)
{
	uint8_t buf[CONS_CHUNK];

	while (tp->t_outcount > 0 && !cons_out_armed) {
		int r = cons_out_blocks ? cons_host_writable(0) : 1;
		if (r == 0 && cons_wait_output())
			break;
		if (r < 0) {
			tty_outdone(tp, true);
			return;
		}
		uint32_t n = tty_peekout(tp, buf, sizeof(buf));
		ssize_t w = cons_host_write(buf, n);
		if (w == -EINTR)
			continue;
		if (w == -EAGAIN) {
			if (cons_wait_output())
				break;
			continue;	/* no event thread for it: retry */
		}
		if (w <= 0) {
			tty_outdone(tp, true);
			return;
		}
		tty_outconsume(tp, (uint32_t)w);
	}
	tty_outdone(tp, false);
}

/* At exit: what the guest wrote last, within a bound, before restoring. */
static void
cons_drain(void)
{
	uint8_t buf[CONS_CHUNK];
	struct tty *tp = cons_tp;

	for (int tries = 0; tp != NULL && tp->t_outcount > 0 && tries < 20; ) {
		int r = cons_host_writable(100);
		if (r == 0) {
			tries++;
			continue;
		}
		if (r < 0)
			break;
		ssize_t w = cons_host_write(buf, tty_peekout(tp, buf, sizeof(buf)));
		if (w == -EINTR || w == -EAGAIN)
			continue;
		if (w <= 0)
			break;
		tty_outconsume(tp, (uint32_t)w);
	}
}

static const struct ttydevsw cons_ttysw = {
	.tsw_start = cons_start,
	.tsw_inwant = cons_inwant,
};

/* The console's interrupt: input arrived or output drained (INTR_DEVICE). */
static void
console_intr(void *arg, uint32_t bits)
{
	struct tty *tp = cons_tp;

	(void)arg;
	if (!(bits & INTR_DEVICE) || tp == NULL)
		return;
	if (cons_in != NULL && intr_fired(cons_in)) {
		cons_in_armed = false;
		if (cons_mode == CONS_TTY) {
			cons_pull(tp);
			if (tty_inroom(tp) > 0 && !(tp->t_state & TS_EOF))
				cons_arm_input();
		} else {
			/* Readers and pollers look again and pull (cons_inwant). */
			wakeup(&tp->t_in);
			selwakeup(&tp->t_rsel);
		}
	}
	if (cons_out != NULL && intr_fired(cons_out)) {
		cons_out_armed = false;
		tty_start(tp);
		tty_outdone(tp, false);
	}
}

/*
 * A host signal for the console: SIGWINCH (new window size), SIGCONT
 * (raw mode again); others (^C, ^\, ^Z from a cooked host terminal, or
 * kill) go to the console's foreground group.
 */
static void
console_signal(int sig)
{
	struct tty *tp = cons_tp;
	struct winsize ws;

	switch (sig) {
	case SIGWINCH:
		if (tp != NULL && cons_host_winsize(&ws))
			tty_set_winsize(tp, &ws);
		return;
	case SIGCONT:
		cons_host_resume();
		return;
	}
	/*
	 * SIGINT is the debugger's (the article: "SIGINT will drop the user
	 * to the in-kernel debugger"), when there is one.  ^\, ^Z typed at a
	 * cooked host terminal, or sent with kill, are the guest's.
	 */
	if (sig == SIGINT && kdb_hook != NULL) {
		kdb_enter("SIGINT");
		return;
	}
	if (tp != NULL && tp->t_session != NULL)
		tty_signal_fg(tp, sig);
	else if (initproc != NULL && initproc->p_pgrp != NULL)
		pgsignal(initproc->p_pgrp, sig);
}

/*
 * The debugger's console (BSD's cngetc and cnputc): straight to the
 * host, around the tty and its queues, which stay as the guest left
 * them.
 */
int
cngetc(void)
{
	int c = cons_host_getc(-1);
	return c < 0 ? -1 : c;
}

void
cnputs(const char *s)
{
	while (*s != '\0') {
		/* A raw terminal does no output processing: our ONLCR. */
		size_t n = strcspn(s, "\n");
		const char *chunk = s;
		if (n == 0) {
			chunk = cons_mode == CONS_TTY ? "\r\n" : "\n";
			n = strlen(chunk);
			s++;
		} else {
			s += n;
		}
		while (n > 0) {
			if (cons_out_blocks && cons_host_writable(1000) <= 0)
				return;
			ssize_t w = cons_host_write(chunk, n);
			if (w == -EINTR || w == -EAGAIN)
				continue;
			if (w <= 0)
				return;
			chunk += w;
			n -= (size_t)w;
		}
	}
}

bool
cn_interactive(void)
{
	return cons_mode == CONS_TTY;
}

/* /dev/console */

static int
cons_open(struct file *fp)
{
	return tty_open(cons_tp, fp->f_flag);
}

static int
cons_read(struct file *fp, struct uio *uio)
{
	return tty_read(cons_tp, uio, fp->f_flag);
}

static int
cons_write(struct file *fp, struct uio *uio)
{
	return tty_write(cons_tp, uio, fp->f_flag);
}

static int
cons_ioctl(struct file *fp, unsigned long cmd, void *data)
{
	return tty_ioctl(cons_tp, cmd, data, fp->f_flag);
}

static int
cons_poll(struct file *fp, int events, struct pollwaiter *pw)
{
	(void)fp;
	return tty_poll(cons_tp, events, pw);
}

/*
 * /dev/tty: the caller's controlling terminal, ENXIO without one.  The
 * console is the only terminal, so the operations are the console's.
 */
static int
ctty_open(struct file *fp)
{
	struct proc *p = curproc;
	(void)fp;
	tty_session_check(cons_tp);
	if (p == NULL || !tty_is_ctty(cons_tp, p))
		return -ENXIO;
	return 0;
}

static const struct cdevsw cons_sw = {
	.d_name = "console", .d_major = 5, .d_minor = 1, .d_mode = 0600,
	.d_open = cons_open,
	.d_read = cons_read, .d_write = cons_write,
	.d_ioctls = tty_ioctls, .d_ioctl = cons_ioctl,
	.d_poll = cons_poll,
};

static const struct cdevsw tty_sw = {
	.d_name = "tty", .d_major = 5, .d_minor = 0, .d_mode = 0666,
	.d_open = ctty_open,
	.d_read = cons_read, .d_write = cons_write,
	.d_ioctls = tty_ioctls, .d_ioctl = cons_ioctl,
	.d_poll = cons_poll,
};

int
console_init(void)
{
	struct fsproc fsp;
	struct ucred *cr = crget();
	struct nameidata nd;
	struct winsize ws;
	int error;

	if (cr == NULL || fsproc_init(&fsp, rootvnode) < 0) {
		if (cr != NULL)
			crfree(cr);
		return -ENOMEM;
	}
	cons_mode = cons_host_init(cons_drain);
	/* Files and /dev/null always take output: no poll before each write. */
	cons_out_blocks = cons_host_out_blocks();
	cons_tp = tty_alloc(&cons_ttysw, NULL,
	    cons_mode == CONS_TTY ? 0 : TF_PASSTHRU);
	error = -ENOMEM;
	if (cons_tp == NULL)
		goto out;
	if (cons_host_winsize(&ws) && ws.ws_row != 0)
		cons_tp->t_winsize = ws;
	if ((error = intr_establish(INTR_DEVICE, console_intr, NULL)) < 0)
		goto out;
	static const int cons_sigs[] = { SIGINT, SIGQUIT, SIGTSTP, SIGWINCH,
	    SIGCONT };
	for (size_t i = 0; i < nitems(cons_sigs); i++)
		intr_signal_establish(cons_sigs[i], console_signal);
	if ((error = cdev_register(&cons_sw)) < 0 ||
	    (error = cdev_register(&tty_sw)) < 0)
		goto out;
	error = kern_mkdirat(&fsp, cr, AT_FDCWD, "/dev", 0755);
	if (error < 0 && error != -EEXIST)
		goto out;
	if ((error = namei_at(&fsp, cr, AT_FDCWD, "/dev", NI_FOLLOW, &nd)) < 0)
		goto out;
	error = devfs_populate(nd.ni_vp);
	namei_done(&nd);
	if (error < 0)
		goto out;
	/* A file or /dev/null as stdin cannot be watched: it is always ready. */
	cons_in = intr_register(STDIN_FILENO, EPOLLIN, cpu_get(0));
	cons_in_armed = cons_in != NULL;
	error = 0;
out:
	fsproc_exit(&fsp);
	crfree(cr);
	return error;
}

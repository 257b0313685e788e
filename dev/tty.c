/*
 * Terminals (see tty.h): reading with the canonical and VMIN/VTIME rules,
 * writing through the output queue, poll, and job control: who may read
 * or change a terminal, the controlling terminal of a session and its
 * foreground process group.
 */
#include <fcntl.h>
#include <signal.h>

#include "dev/tty.h"
#include "kern/kernel.h"
#include "kern/proc.h"
#include "kern/signal.h"
#include "kern/thread.h"
#include "kern/uio.h"
#include "kern/kmem.h"

#define TTY_CHUNK	1024		/* bytes moved per uiomove */
#define TTY_LOWAT	256		/* output room that makes a tty writable */

const struct linux_termios tty_std_termios = {
	.c_iflag = ICRNL | IXON,
	.c_oflag = OPOST | ONLCR,
	.c_cflag = B38400 | CS8 | CREAD | HUPCL,
	.c_lflag = ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE |
	    IEXTEN,
	.c_cc = {
		[VINTR] = 003, [VQUIT] = 034, [VERASE] = 0177, [VKILL] = 025,
		[VEOF] = 004, [VTIME] = 0, [VMIN] = 1, [VSTART] = 021,
		[VSTOP] = 023, [VSUSP] = 032, [VREPRINT] = 022,
		[VDISCARD] = 017, [VWERASE] = 027, [VLNEXT] = 026,
	},
};

struct tty *
tty_alloc(const struct ttydevsw *dev, void *sc, int flags)
{
	struct tty *tp = kmalloc(sizeof(*tp), KM_ZERO);
	if (tp == NULL)
		return NULL;
	tp->t_termios = tty_std_termios;
	tp->t_winsize = (struct winsize){ .ws_row = 24, .ws_col = 80 };
	tp->t_flags = flags;
	tp->t_dev = dev;
	tp->t_sc = sc;
	selinfo_init(&tp->t_rsel);
	selinfo_init(&tp->t_wsel);
	return tp;
}

void
tty_free(struct tty *tp)
{
	if (tp->t_session != NULL) {
		tp->t_session->s_ttyp = NULL;
		session_rele(tp->t_session);
	}
	seldrain(&tp->t_rsel);
	seldrain(&tp->t_wsel);
	wakeup(&tp->t_in);
	wakeup(&tp->t_out);
	kfree(tp);
}

/* Job control */

/*
 * A session loses its terminal when its leader exits (exit1 clears
 * s_leader), as on Linux; its foreground group gets SIGHUP and SIGCONT,
 * here at the terminal's next use rather than at the exit itself.  When
 * our reference is the last, every process of the session is gone.
 */
void
tty_session_check(struct tty *tp)
{
	struct session *s = tp->t_session;
	if (s == NULL || (s->s_ref > 1 && s->s_leader != NULL))
		return;
	if (s->s_ref > 1) {
		tty_signal_fg(tp, SIGHUP);
		tty_signal_fg(tp, SIGCONT);
	}
	s->s_ttyp = NULL;
	tp->t_session = NULL;
	session_rele(s);
}

bool
tty_is_ctty(struct tty *tp, const struct proc *p)
{
	return p != NULL && p->p_pgrp != NULL && tp->t_session != NULL &&
	    p->p_pgrp->pg_session == tp->t_session;
}

void
tty_set_ctty(struct tty *tp, struct proc *p)
{
	struct session *s = p->p_pgrp->pg_session;
	if (tp->t_session == s)
		return;
	if (tp->t_session != NULL) {
		tp->t_session->s_ttyp = NULL;
		session_rele(tp->t_session);
	}
	s->s_ref++;
	s->s_ttyp = tp;
	s->s_fgpgrp = p->p_pgrp;
	tp->t_session = s;
	tp->t_fgpgid = p->p_pgrp->pg_id;
}

void
tty_signal_fg(struct tty *tp, int sig)
{
	if (tp->t_session != NULL && tp->t_session->s_fgpgrp != NULL)
		pgsignal(tp->t_session->s_fgpgrp, sig);
}

void
tty_set_winsize(struct tty *tp, const struct winsize *ws)
{
	if (memcmp(&tp->t_winsize, ws, sizeof(*ws)) == 0)
		return;
	tp->t_winsize = *ws;
	tty_signal_fg(tp, SIGWINCH);
}

/*
 * A process group is orphaned when no member has a parent in another
 * group of the same session: nobody is left to continue it if it stops,
 * so the terminal refuses it with EIO instead of stopping it.
 */
static bool
pgrp_orphaned(const struct pgrp *pg)
{
	const struct proc *q;
	TAILQ_FOREACH(q, &pg->pg_members, p_pglist) {
		const struct proc *par = q->p_pptr;
		if (par != NULL && par->p_pgrp != NULL && par->p_pgrp != pg &&
		    par->p_pgrp->pg_session == pg->pg_session)
			return false;
	}
	return true;
}

static bool
sig_refused(const struct lwp *lp, int sig)
{
	return (lp->lwp_sigmask & SIGBIT(sig)) ||
	    lp->lwp_proc->p_sigacts->ps_act[sig - 1].lsa_handler ==
	    (uint64_t)SIG_IGN;
}

/* The caller, if it is in a background group of tp's session. */
static struct lwp *
tty_bg_caller(struct tty *tp)
{
	struct lwp *lp = curlwp;
	if (lp == NULL || !tty_is_ctty(tp, lp->lwp_proc) ||
	    lp->lwp_proc->p_pgrp == tp->t_session->s_fgpgrp)
		return NULL;
	return lp;
}

/*
 * A background read: SIGTTIN to the group, which stops it; the read
 * restarts when it continues (ERESTARTSYS).  A group that cannot be
 * stopped gets EIO.
 */
static int
tty_check_read(struct tty *tp)
{
	struct lwp *lp = tty_bg_caller(tp);
	if (lp == NULL)
		return 0;
	if (sig_refused(lp, SIGTTIN) || pgrp_orphaned(lp->lwp_proc->p_pgrp))
		return -EIO;
	pgsignal(lp->lwp_proc->p_pgrp, SIGTTIN);
	return -ERESTARTSYS;
}

int
tty_check_change(struct tty *tp)
{
	struct lwp *lp = tty_bg_caller(tp);
	if (lp == NULL || sig_refused(lp, SIGTTOU))
		return 0;
	if (pgrp_orphaned(lp->lwp_proc->p_pgrp))
		return -EIO;
	pgsignal(lp->lwp_proc->p_pgrp, SIGTTOU);
	return -ERESTARTSYS;
}

/* Open, read, write, poll */

int
tty_open(struct tty *tp, int fflags)
{
	struct proc *p = curproc;
	tty_session_check(tp);
	if (p == NULL || p->p_pgrp == NULL || (fflags & O_NOCTTY))
		return 0;
	/* A session leader without a terminal acquires a free one. */
	struct session *s = p->p_pgrp->pg_session;
	if (s->s_leader == p && s->s_sid == p->p_pid && s->s_ttyp == NULL &&
	    tp->t_session == NULL)
		tty_set_ctty(tp, p);
	return 0;
}

/* Lets the driver fetch input; true if a read could now go on. */
static bool
tty_want_input(struct tty *tp)
{
	if (tty_input_ready(tp) || (tp->t_state & TS_EOF))
		return true;
	if (tp->t_dev->tsw_inwant != NULL)
		tp->t_dev->tsw_inwant(tp);
	return tty_input_ready(tp) || (tp->t_state & TS_EOF);
}

/* End of input: a read returns 0, once if the device said so. */
static int
tty_read_eof(struct tty *tp)
{
	if (tp->t_state & TS_EOF1)
		tp->t_state &= ~(TS_EOF | TS_EOF1);
	return 0;
}

/* Canonical (and pass-through) reads: one line, or what is there. */
static int
tty_read_line(struct tty *tp, struct uio *uio, int fflags, bool line)
{
	uint8_t buf[TTY_CHUNK];
	int error;

	for (;;) {
		if (tty_input_ready(tp)) {
			bool endl;
			do {
				uint32_t n = tty_dequeue(tp, buf,
				    (uint32_t)MIN(sizeof(buf), uio->uio_resid), &endl);
				if ((error = uiomove(buf, n, uio)) < 0)
					return error;
			} while (line && !endl && uio->uio_resid > 0 &&
			    tp->t_incommit > 0);
			return 0;
		}
		if (tp->t_state & TS_EOF)
			return tty_read_eof(tp);
		if (tty_want_input(tp))
			continue;
		if (fflags & O_NONBLOCK)
			return -EAGAIN;
		if (tsleep(&tp->t_in, PCATCH, "ttyin", 0) != 0)
			return -ERESTARTSYS;
		if ((error = tty_check_read(tp)) < 0)
			return error;
	}
}

/*
 * Non-canonical reads (VMIN, VTIME in tenths of a second):
 *   MIN 0, TIME 0: what is there, maybe nothing;
 *   MIN 0, TIME t: the first byte, or nothing after t;
 *   MIN m, TIME 0: at least m bytes (or the whole request if smaller);
 *   MIN m, TIME t: m bytes, or fewer once t passes without a new byte.
 */
static int
tty_read_raw(struct tty *tp, struct uio *uio, int fflags)
{
	uint8_t buf[TTY_CHUNK];
	uint64_t vmin = tp->t_termios.c_cc[VMIN];
	uint64_t vtime = tp->t_termios.c_cc[VTIME] * 100000000ULL;
	uint64_t want = MIN(vmin, uio->uio_resid), got = 0;
	uint64_t deadline = vtime != 0 && vmin == 0 ? nanouptime() + vtime : 0;
	int error;

	for (;;) {
		while (tp->t_incommit > 0 && uio->uio_resid > 0) {
			bool endl;
			uint32_t n = tty_dequeue(tp, buf,
			    (uint32_t)MIN(sizeof(buf), uio->uio_resid), &endl);
			if ((error = uiomove(buf, n, uio)) < 0)
				return error;
			got += n;
			if (vmin != 0 && vtime != 0)
				deadline = nanouptime() + vtime;	/* inter-byte */
		}
		if (uio->uio_resid == 0 || (got >= want && (got > 0 || vtime == 0)))
			return 0;
		if (tp->t_state & TS_EOF)
			return tty_read_eof(tp);
		if (tty_want_input(tp))
			continue;
		if (fflags & O_NONBLOCK)
			return got > 0 ? 0 : -EAGAIN;
		uint64_t timo = 0;
		if (deadline != 0) {
			uint64_t now = nanouptime();
			if (now >= deadline)
				return 0;
			timo = deadline - now;
		}
		error = tsleep(&tp->t_in, PCATCH, "ttyin", timo);
		if (error == EWOULDBLOCK)
			return 0;
		if (error != 0)
			return got > 0 ? 0 : -ERESTARTSYS;
		if ((error = tty_check_read(tp)) < 0)
			return got > 0 ? 0 : error;
	}
}

int
tty_read(struct tty *tp, struct uio *uio, int fflags)
{
	int error;
	tty_session_check(tp);
	if ((error = tty_check_read(tp)) < 0)
		return error;
	if (uio->uio_resid == 0)
		return 0;
	if (tp->t_flags & TF_PASSTHRU)
		return tty_read_line(tp, uio, fflags, false);
	if (tp->t_termios.c_lflag & ICANON)
		return tty_read_line(tp, uio, fflags, true);
	return tty_read_raw(tp, uio, fflags);
}

void
tty_start(struct tty *tp)
{
	if (tp->t_outcount > 0 && !(tp->t_state & TS_STOPPED))
		tp->t_dev->tsw_start(tp);
}

void
tty_outdone(struct tty *tp, bool error)
{
	if (error) {
		tp->t_state |= TS_OERROR;
		tp->t_outcount = 0;
	}
	wakeup(&tp->t_out);
	selwakeup(&tp->t_wsel);
}

/* The bytes of a write that surely fit in the output queue. */
static uint32_t
tty_outfit(const struct tty *tp)
{
	if (tty_output_plain(tp))
		return tty_outroom(tp);
	return tty_outroom(tp) / 2;
}

int
tty_write(struct tty *tp, struct uio *uio, int fflags)
{
	uint8_t buf[TTY_CHUNK];
	int error;

	tty_session_check(tp);
	if (!(tp->t_flags & TF_PASSTHRU) && (tp->t_termios.c_lflag & TOSTOP) &&
	    (error = tty_check_change(tp)) < 0)
		return error;
	while (uio->uio_resid > 0) {
		if (tp->t_state & TS_OERROR)
			return -EIO;
		/* Take no more than surely fits: ONLCR doubles a newline. */
		uint32_t fit = tty_outfit(tp);
		if (fit == 0) {
			tty_start(tp);
			if (tty_outfit(tp) > 0 || (tp->t_state & TS_OERROR))
				continue;
			if (fflags & O_NONBLOCK)
				return -EAGAIN;
			if (tsleep(&tp->t_out, PCATCH, "ttyout", 0) != 0)
				return -ERESTARTSYS;
			continue;
		}
		/* Queue all that fits, then hand the device one batch. */
		while (fit > 0 && uio->uio_resid > 0) {
			size_t n = MIN(MIN(sizeof(buf), uio->uio_resid), fit);
			if ((error = uiomove(buf, n, uio)) < 0) {
				tty_start(tp);
				return error;
			}
			if (tty_output_plain(tp))
				tty_output_bulk(tp, buf, (uint32_t)n);
			else
				for (size_t i = 0; i < n; i++)
					(void)tty_output(tp, buf[i]);
			fit = tty_outfit(tp);
		}
		tty_start(tp);
	}
	return 0;
}

int
tty_drain(struct tty *tp)
{
	while (tp->t_outcount > 0) {
		tty_start(tp);
		if (tp->t_outcount == 0)
			break;
		if (tp->t_state & TS_OERROR)
			return -EIO;
		if (tsleep(&tp->t_out, PCATCH, "ttydrain", 0) != 0)
			return -ERESTARTSYS;
	}
	return 0;
}

int
tty_poll(struct tty *tp, int events, struct pollwaiter *pw)
{
	int revents = 0;

	if (events & (POLLIN | POLLRDNORM)) {
		bool ready = tty_want_input(tp);
		/* As Linux: VMIN bytes when there is no timer. */
		const struct linux_termios *t = &tp->t_termios;
		if (ready && !(tp->t_flags & TF_PASSTHRU) &&
		    !(t->c_lflag & ICANON) && t->c_cc[VTIME] == 0 &&
		    t->c_cc[VMIN] > 1 && !(tp->t_state & TS_EOF))
			ready = tp->t_incommit >= t->c_cc[VMIN];
		if (ready)
			revents |= events & (POLLIN | POLLRDNORM);
	}
	if ((events & (POLLOUT | POLLWRNORM)) &&
	    (tty_outroom(tp) >= TTY_LOWAT || (tp->t_state & TS_OERROR)))
		revents |= events & (POLLOUT | POLLWRNORM);
	if (tp->t_state & TS_OERROR)
		revents |= POLLERR;
	/* Recorded even when ready: epoll keeps the record for later. */
	if (pw != NULL) {
		if (events & (POLLIN | POLLRDNORM))
			selrecord(pw, &tp->t_rsel);
		if (events & (POLLOUT | POLLWRNORM))
			selrecord(pw, &tp->t_wsel);
	}
	return revents;
}

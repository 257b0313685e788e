/*
 * Terminal ioctls (see tty.h).  data is the kernel copy of the argument
 * that the system-call layer moves in and out as tty_ioctls declares;
 * for the commands whose argument is a value (TIOCSCTTY, TCFLSH, TCXONC,
 * TCSBRK), data holds that value as an int.
 */
#include <fcntl.h>
#include <signal.h>

#include "dev/tty.h"
#include "kern/kernel.h"
#include "kern/proc.h"
#include "kern/signal.h"
#include "kern/ucred.h"

#ifndef TIOCGSID
#define TIOCGSID	0x5429
#endif

static int
get_int(const void *data)
{
	int v;
	memcpy(&v, data, sizeof(v));
	return v;
}

static void
put_int(void *data, int v)
{
	memcpy(data, &v, sizeof(v));
}

/* TCSETS, TCSETSW (drain output first), TCSETSF (and flush input). */
static int
tty_set_termios(struct tty *tp, unsigned long cmd, const void *data)
{
	struct linux_termios old = tp->t_termios;
	int error;

	if ((error = tty_check_change(tp)) < 0)
		return error;
	if (cmd != TCSETS && (error = tty_drain(tp)) < 0)
		return error;
	if (cmd == TCSETSF)
		tty_flush_input(tp);
	memcpy(&tp->t_termios, data, sizeof(tp->t_termios));
	if (!(tp->t_flags & TF_PASSTHRU))
		tty_ldisc_termios(tp, &old);
	return 0;
}

/* The caller's controlling terminal is tp, in the same session. */
static struct proc *
ctty_caller(struct tty *tp)
{
	struct proc *p = curproc;
	return tty_is_ctty(tp, p) ? p : NULL;
}

/* TIOCSPGRP: a group of the caller's session goes to the foreground. */
static int
tty_set_pgrp(struct tty *tp, pid_t pgid)
{
	struct proc *p = ctty_caller(tp);
	int error;

	if ((error = tty_check_change(tp)) < 0)
		return error;
	if (p == NULL)
		return -ENOTTY;
	if (pgid < 0)
		return -EINVAL;
	struct pgrp *pg = pgfind(pgid);
	if (pg == NULL)
		return -ESRCH;
	if (pg->pg_session != tp->t_session)
		return -EPERM;
	tp->t_session->s_fgpgrp = pg;
	tp->t_fgpgid = pgid;
	return 0;
}

/*
 * PID 1's session holds the console from boot so that a shell as PID 1
 * has job control, but Linux's init never holds it (the kernel opens the
 * console for init without making it init's terminal), and init's
 * children take it with TIOCSCTTY without stealing (busybox init's
 * "-/bin/sh").  So PID 1's session yields it to a child of PID 1.
 */
static bool
tty_init_yields(struct tty *tp, const struct proc *p)
{
	return initproc != NULL && initproc->p_pgrp != NULL &&
	    tp->t_session == initproc->p_pgrp->pg_session &&
	    p->p_pptr == initproc;
}

/* TIOCSCTTY: a session leader without a terminal takes this one. */
static int
tty_sctty(struct tty *tp, int steal)
{
	struct proc *p = curproc;
	if (p == NULL || p->p_pgrp == NULL)
		return -EPERM;
	struct session *s = p->p_pgrp->pg_session;
	if (s == tp->t_session && s->s_leader == p)
		return 0;
	if (s->s_leader != p || s->s_sid != p->p_pid || s->s_ttyp != NULL)
		return -EPERM;
	if (tp->t_session != NULL && !tty_init_yields(tp, p) &&
	    (steal != 1 || p->p_ucred == NULL || !cred_is_root(p->p_ucred)))
		return -EPERM;
	tty_set_ctty(tp, p);
	return 0;
}

/*
 * TIOCNOTTY: the session leader gives up its terminal; its foreground
 * group gets SIGHUP and SIGCONT as on Linux.  Other members of the
 * session cannot lose it alone here (the terminal belongs to the
 * session), so for them it only succeeds.
 */
static int
tty_notty(struct tty *tp)
{
	struct proc *p = ctty_caller(tp);
	if (p == NULL)
		return -ENOTTY;
	struct session *s = tp->t_session;
	if (s->s_leader == p) {
		tty_signal_fg(tp, SIGHUP);
		tty_signal_fg(tp, SIGCONT);
		s->s_ttyp = NULL;
		s->s_fgpgrp = NULL;
		tp->t_session = NULL;
		session_rele(s);
	}
	return 0;
}

/* TCFLSH: TCIFLUSH, TCOFLUSH or TCIOFLUSH. */
static int
tty_flush(struct tty *tp, int which)
{
	int error;
	if ((error = tty_check_change(tp)) < 0)
		return error;
	if (which != TCIFLUSH && which != TCOFLUSH && which != TCIOFLUSH)
		return -EINVAL;
	if (which != TCOFLUSH)
		tty_flush_input(tp);
	if (which != TCIFLUSH) {
		tp->t_outcount = 0;
		tty_outdone(tp, false);
	}
	return 0;
}

/* TCXONC: suspend or resume output; the input ones are accepted. */
static int
tty_xonc(struct tty *tp, int action)
{
	int error;
	if ((error = tty_check_change(tp)) < 0)
		return error;
	switch (action) {
	case TCOOFF:
		tp->t_state |= TS_STOPPED;
		return 0;
	case TCOON:
		tp->t_state &= ~TS_STOPPED;
		tty_start(tp);
		return 0;
	case TCIOFF:
	case TCION:
		return 0;
	}
	return -EINVAL;
}

const struct ioctl_cmd tty_ioctls[] = {
	/* Linux's kernel termios: 36 bytes, not libc's 60. */
	IOCTL_CMD(TCGETS, IOCD_OUT, sizeof(struct linux_termios)),
	IOCTL_CMD(TCSETS, IOCD_IN, sizeof(struct linux_termios)),
	IOCTL_CMD(TCSETSW, IOCD_IN, sizeof(struct linux_termios)),
	IOCTL_CMD(TCSETSF, IOCD_IN, sizeof(struct linux_termios)),
	IOCTL_CMD(TIOCGWINSZ, IOCD_OUT, sizeof(struct winsize)),
	IOCTL_CMD(TIOCSWINSZ, IOCD_IN, sizeof(struct winsize)),
	IOCTL_CMD(TIOCGPGRP, IOCD_OUT, sizeof(int)),
	IOCTL_CMD(TIOCSPGRP, IOCD_IN, sizeof(int)),
	IOCTL_CMD(TIOCGSID, IOCD_OUT, sizeof(int)),
	IOCTL_CMD(TIOCSCTTY, IOCD_VALUE, 0),
	IOCTL_CMD(TIOCNOTTY, IOCD_NONE, 0),
	IOCTL_CMD(FIONREAD, IOCD_OUT, sizeof(int)),
	IOCTL_CMD(TIOCOUTQ, IOCD_OUT, sizeof(int)),
	IOCTL_CMD(TCFLSH, IOCD_VALUE, 0),
	IOCTL_CMD(TCXONC, IOCD_VALUE, 0),
	IOCTL_CMD(TCSBRK, IOCD_VALUE, 0),
	IOCTL_CMD(TCSBRKP, IOCD_VALUE, 0),
	IOCTL_END,
};

int
tty_ioctl(struct tty *tp, unsigned long cmd, void *data, int fflags)
{
	(void)fflags;
	tty_session_check(tp);
	switch (cmd) {
	case TCGETS:
		memcpy(data, &tp->t_termios, sizeof(tp->t_termios));
		return 0;
	case TCSETS:
	case TCSETSW:
	case TCSETSF:
		return tty_set_termios(tp, cmd, data);
	case TIOCGWINSZ:
		memcpy(data, &tp->t_winsize, sizeof(tp->t_winsize));
		return 0;
	case TIOCSWINSZ: {
		struct winsize ws;
		memcpy(&ws, data, sizeof(ws));
		tty_set_winsize(tp, &ws);
		return 0;
	}
	case TIOCGPGRP:
		if (ctty_caller(tp) == NULL)
			return -ENOTTY;
		put_int(data, tp->t_session->s_fgpgrp != NULL ?
		    tp->t_session->s_fgpgrp->pg_id : tp->t_fgpgid);
		return 0;
	case TIOCSPGRP:
		return tty_set_pgrp(tp, get_int(data));
	case TIOCGSID:
		if (ctty_caller(tp) == NULL)
			return -ENOTTY;
		put_int(data, tp->t_session->s_sid);
		return 0;
	case TIOCSCTTY:
		return tty_sctty(tp, get_int(data));
	case TIOCNOTTY:
		return tty_notty(tp);
	case FIONREAD:		/* TIOCINQ */
		if (!tty_input_ready(tp) && tp->t_dev->tsw_inwant != NULL)
			tp->t_dev->tsw_inwant(tp);
		put_int(data, (int)tty_readable(tp));
		return 0;
	case TIOCOUTQ:
		put_int(data, (int)tp->t_outcount);
		return 0;
	case TCFLSH:
		return tty_flush(tp, get_int(data));
	case TCXONC:
		return tty_xonc(tp, get_int(data));
	case TCSBRK:
	case TCSBRKP:
		/* tcdrain and tcsendbreak: wait for the output; no breaks. */
		return tty_drain(tp);
	}
	return -ENOTTY;		/* tty_ioctls and this switch differ */
}

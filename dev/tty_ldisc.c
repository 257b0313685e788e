/*
 * The line discipline (see tty.h): what a byte from the terminal does
 * (input translation, signals, canonical editing, echo), and output
 * post-processing.  It follows Linux's n_tty as a guest sees it: the same
 * special characters, the same echo bytes, the same erase rules.
 *
 * The input ring keeps the committed input (readable) ahead of the line
 * being edited; erase only ever removes bytes of the latter.
 */
#include <ctype.h>
#include <signal.h>

#include "dev/tty.h"
#include "kern/kernel.h"
#include "kern/thread.h"

#define QMASK		(TTY_QSIZE - 1)
#define L(tp, f)	((tp)->t_termios.c_lflag & (f))
#define I(tp, f)	((tp)->t_termios.c_iflag & (f))
#define O(tp, f)	((tp)->t_termios.c_oflag & (f))
#define CC(tp, i)	((tp)->t_termios.c_cc[i])

/* c is the special character i, which a NUL disables (_POSIX_VDISABLE). */
static inline bool
is_cc(const struct tty *tp, uint8_t c, int i)
{
	return CC(tp, i) != 0 && c == CC(tp, i);
}

static inline bool
bit_get(const uint8_t *map, uint32_t i)
{
	return map[(i & QMASK) / 8] & (1u << (i % 8));
}

static inline void
bit_set(uint8_t *map, uint32_t i, bool v)
{
	i &= QMASK;
	if (v)
		map[i / 8] |= (uint8_t)(1u << (i % 8));
	else
		map[i / 8] &= (uint8_t)~(1u << (i % 8));
}

static inline uint8_t
in_at(const struct tty *tp, uint32_t off)
{
	return tp->t_in[(tp->t_inhead + off) & QMASK];
}

/* A UTF-8 continuation byte, erased with the character it belongs to. */
static inline bool
is_cont(const struct tty *tp, uint8_t c)
{
	return I(tp, IUTF8) && (c & 0xc0) == 0x80;
}

/* Output */

uint32_t
tty_outroom(const struct tty *tp)
{
	return TTY_QSIZE - tp->t_outcount;
}

static void
out_put(struct tty *tp, uint8_t c)
{
	tp->t_out[(tp->t_outhead + tp->t_outcount++) & QMASK] = c;
}

bool
tty_output(struct tty *tp, uint8_t c)
{
	if (tty_outroom(tp) < 2)
		return false;
	if ((tp->t_flags & TF_PASSTHRU) || !O(tp, OPOST)) {
		out_put(tp, c);
		return true;
	}
	switch (c) {
	case '\n':
		if (O(tp, ONLCR)) {
			out_put(tp, '\r');
			tp->t_column = 0;
		}
		if (O(tp, ONLRET))
			tp->t_column = 0;
		break;
	case '\r':
		if (O(tp, ONOCR) && tp->t_column == 0)
			return true;
		if (O(tp, OCRNL)) {
			c = '\n';
			if (O(tp, ONLRET))
				tp->t_column = 0;
			break;
		}
		tp->t_column = 0;
		break;
	case '\t':
		tp->t_column = (tp->t_column | 7) + 1;
		break;
	case '\b':
		if (tp->t_column > 0)
			tp->t_column--;
		break;
	default:
		if (O(tp, OLCUC) && islower(c))
			c = (uint8_t)toupper(c);
		if (!iscntrl(c) && !is_cont(tp, c))
			tp->t_column++;
		break;
	}
	out_put(tp, c);
	return true;
}

bool
tty_output_plain(const struct tty *tp)
{
	return (tp->t_flags & TF_PASSTHRU) || !O(tp, OPOST);
}

void
tty_output_bulk(struct tty *tp, const uint8_t *buf, uint32_t n)
{
	KASSERT(n <= tty_outroom(tp), "tty output overflow");
	uint32_t at = (tp->t_outhead + tp->t_outcount) & QMASK;
	uint32_t first = MIN(n, TTY_QSIZE - at);
	memcpy(tp->t_out + at, buf, first);
	memcpy(tp->t_out, buf + first, n - first);
	tp->t_outcount += n;
}

uint32_t
tty_peekout(const struct tty *tp, uint8_t *buf, uint32_t n)
{
	n = MIN(n, tp->t_outcount);
	for (uint32_t i = 0; i < n; i++)
		buf[i] = tp->t_out[(tp->t_outhead + i) & QMASK];
	return n;
}

void
tty_outconsume(struct tty *tp, uint32_t n)
{
	n = MIN(n, tp->t_outcount);
	tp->t_outhead = (tp->t_outhead + n) & QMASK;
	tp->t_outcount -= n;
}

/* Echo: a full output queue loses echoes, never input. */
static void
echo_raw(struct tty *tp, uint8_t c)
{
	(void)tty_output(tp, c);
}

/* Echoes c, a control character as ^X under ECHOCTL (not tab, newline). */
static void
echo_char(struct tty *tp, uint8_t c)
{
	if (L(tp, ECHOCTL) && iscntrl(c) && c != '\t' && c != '\n') {
		echo_raw(tp, '^');
		echo_raw(tp, c ^ 0100);
	} else {
		echo_raw(tp, c);
	}
}

/* Input */

uint32_t
tty_inroom(const struct tty *tp)
{
	return TTY_QSIZE - tp->t_incount;
}

/* Appends c to the line being edited (or the readable input if raw). */
static void
in_put(struct tty *tp, uint8_t c, bool delim, bool eof)
{
	uint32_t i = (tp->t_inhead + tp->t_incount) & QMASK;
	tp->t_in[i] = c;
	bit_set(tp->t_delim, i, delim);
	bit_set(tp->t_eof, i, eof);
	tp->t_incount++;
}

/* Makes everything queued readable; with delim, as one more line. */
static void
in_commit(struct tty *tp, bool delim)
{
	if (delim)
		tp->t_nlines++;
	tp->t_incommit = tp->t_incount;
	wakeup(&tp->t_in);
	selwakeup(&tp->t_rsel);
}

void
tty_flush_input(struct tty *tp)
{
	tp->t_inhead = tp->t_incount = tp->t_incommit = tp->t_nlines = 0;
	tp->t_state &= ~TS_LNEXT;
	memset(tp->t_delim, 0, sizeof(tp->t_delim));
	memset(tp->t_eof, 0, sizeof(tp->t_eof));
	if (tp->t_dev->tsw_inwant != NULL)
		tp->t_dev->tsw_inwant(tp);	/* there is room again */
}

/* The column at the end of the edited line, to erase a tab exactly. */
static int
line_column(const struct tty *tp, uint32_t end)
{
	int col = tp->t_lncol;
	for (uint32_t off = tp->t_incommit; off < end; off++) {
		uint8_t c = in_at(tp, off);
		if (c == '\t')
			col = (col | 7) + 1;
		else if (iscntrl(c))
			col += L(tp, ECHOCTL) ? 2 : 0;
		else if (!is_cont(tp, c))
			col++;
	}
	return col;
}

/* Backs the cursor over n columns, wiping them unless it is a tab. */
static void
echo_rubout(struct tty *tp, int n, bool wipe)
{
	for (int i = 0; i < n; i++) {
		echo_raw(tp, '\b');
		if (wipe) {
			echo_raw(tp, ' ');
			echo_raw(tp, '\b');
		}
	}
}

/*
 * VERASE, VWERASE and VKILL (kind), typed as c: removes the last
 * character, word or the whole line being edited, and echoes the
 * rubout as Linux does (ECHOE, ECHOK, ECHOKE, ECHOCTL).
 */
static void
ldisc_erase(struct tty *tp, int kind, uint8_t c)
{
	if (tp->t_incount == tp->t_incommit)
		return;
	if (kind == VKILL && L(tp, ECHO) &&
	    !(L(tp, ECHOK) && L(tp, ECHOKE) && L(tp, ECHOE))) {
		tp->t_incount = tp->t_incommit;
		echo_char(tp, c);
		if (L(tp, ECHOK))
			echo_raw(tp, '\n');
		return;
	}
	int alnums = 0;
	while (tp->t_incount > tp->t_incommit) {
		uint32_t end = tp->t_incount, start = end;
		uint8_t ch;
		do
			ch = in_at(tp, --start);
		while (is_cont(tp, ch) && start > tp->t_incommit);
		if (kind == VWERASE) {
			/* Trailing blanks and punctuation go, then one word. */
			if (isalnum(ch) || ch == '_')
				alnums++;
			else if (alnums > 0)
				break;
		}
		tp->t_incount = start;
		if (L(tp, ECHO)) {
			if (kind == VERASE && !L(tp, ECHOE))
				echo_char(tp, CC(tp, VERASE));
			else if (ch == '\t')
				echo_rubout(tp, line_column(tp, end) -
				    line_column(tp, start), false);
			else if (iscntrl(ch))
				echo_rubout(tp, L(tp, ECHOCTL) ? 2 : 0, true);
			else
				echo_rubout(tp, 1, true);
		}
		if (kind == VERASE)
			break;
	}
}

/* VINTR, VQUIT, VSUSP: flush (unless NOFLSH), signal, echo. */
static void
ldisc_signal(struct tty *tp, int sig, uint8_t c)
{
	if (!L(tp, NOFLSH)) {
		tty_flush_input(tp);
		tp->t_outcount = 0;
		tty_outdone(tp, false);
	}
	tty_signal_fg(tp, sig);
	if (I(tp, IXON))
		tp->t_state &= ~TS_STOPPED;
	if (L(tp, ECHO))
		echo_char(tp, c);
}

/* The special characters of canonical mode; true if c was one. */
static bool
ldisc_canon_special(struct tty *tp, uint8_t c)
{
	if (is_cc(tp, c, VERASE)) {
		ldisc_erase(tp, VERASE, c);
		return true;
	}
	if (is_cc(tp, c, VKILL)) {
		ldisc_erase(tp, VKILL, c);
		return true;
	}
	if (L(tp, IEXTEN) && is_cc(tp, c, VWERASE)) {
		ldisc_erase(tp, VWERASE, c);
		return true;
	}
	if (L(tp, IEXTEN) && is_cc(tp, c, VREPRINT) && L(tp, ECHO)) {
		echo_char(tp, c);
		echo_raw(tp, '\n');
		tp->t_lncol = tp->t_column;
		for (uint32_t off = tp->t_incommit; off < tp->t_incount; off++)
			echo_char(tp, in_at(tp, off));
		return true;
	}
	bool eof = is_cc(tp, c, VEOF);
	if (c == '\n' || eof || is_cc(tp, c, VEOL) ||
	    (L(tp, IEXTEN) && is_cc(tp, c, VEOL2))) {
		if (tty_inroom(tp) == 0)
			return true;	/* lost: the queue is full */
		if (c == '\n' ? L(tp, ECHO | ECHONL) : (!eof && L(tp, ECHO)))
			echo_char(tp, c);
		in_put(tp, c, true, eof);
		in_commit(tp, true);
		return true;
	}
	return false;
}

void
tty_input(struct tty *tp, uint8_t c)
{
	if (tp->t_flags & TF_PASSTHRU) {
		if (tty_inroom(tp) > 0) {
			in_put(tp, c, false, false);
			in_commit(tp, false);
		}
		return;
	}
	bool canon = L(tp, ICANON);
	if (I(tp, ISTRIP))
		c &= 0x7f;
	if (tp->t_state & TS_LNEXT) {
		/* Its echo overwrites the "^" shown for VLNEXT. */
		tp->t_state &= ~TS_LNEXT;
		goto literal;
	}
	if (I(tp, IXON)) {
		if (is_cc(tp, c, VSTOP)) {
			tp->t_state |= TS_STOPPED;
			return;
		}
		if (is_cc(tp, c, VSTART)) {
			tp->t_state &= ~TS_STOPPED;
			tty_start(tp);
			return;
		}
		if ((tp->t_state & TS_STOPPED) && I(tp, IXANY)) {
			tp->t_state &= ~TS_STOPPED;
			tty_start(tp);
		}
	}
	if (L(tp, ISIG)) {
		int sig = is_cc(tp, c, VINTR) ? SIGINT : is_cc(tp, c, VQUIT) ?
		    SIGQUIT : is_cc(tp, c, VSUSP) ? SIGTSTP : 0;
		if (sig != 0) {
			ldisc_signal(tp, sig, c);
			tty_start(tp);
			return;
		}
	}
	if (c == '\r') {
		if (I(tp, IGNCR))
			return;
		if (I(tp, ICRNL))
			c = '\n';
	} else if (c == '\n' && I(tp, INLCR)) {
		c = '\r';
	}
	if (canon && L(tp, IEXTEN) && is_cc(tp, c, VLNEXT)) {
		tp->t_state |= TS_LNEXT;
		if (L(tp, ECHO) && L(tp, ECHOCTL)) {
			echo_raw(tp, '^');
			echo_raw(tp, '\b');
			tty_start(tp);
		}
		return;
	}
	if (canon) {
		bool special = ldisc_canon_special(tp, c);
		tty_start(tp);
		if (special)
			return;
	}
literal:
	/* A canonical line keeps one slot for what ends it, as Linux does. */
	if (tty_inroom(tp) <= (canon ? 1u : 0u))
		return;
	if (tp->t_incount == tp->t_incommit)
		tp->t_lncol = tp->t_column;	/* a new line starts here */
	if (L(tp, ECHO)) {
		echo_char(tp, c);
		tty_start(tp);
	} else if (c == '\n' && canon && L(tp, ECHONL)) {
		echo_raw(tp, c);
		tty_start(tp);
	}
	in_put(tp, c, false, false);
	if (!canon)
		in_commit(tp, false);
}

void
tty_input_eof(struct tty *tp, bool once)
{
	tp->t_state |= TS_EOF | (once ? TS_EOF1 : 0);
	/* A line being edited is readable now, as a last line without end. */
	tp->t_incommit = tp->t_incount;
	wakeup(&tp->t_in);
	selwakeup(&tp->t_rsel);
}

uint32_t
tty_readable(const struct tty *tp)
{
	if ((tp->t_flags & TF_PASSTHRU) || !L(tp, ICANON))
		return tp->t_incommit;
	uint32_t n = tp->t_incommit;
	for (uint32_t off = 0; off < tp->t_incommit; off++)
		if (bit_get(tp->t_eof, tp->t_inhead + off))
			n--;		/* a VEOF is no data */
	return n;
}

bool
tty_input_ready(const struct tty *tp)
{
	if (tp->t_flags & TF_PASSTHRU)
		return tp->t_incommit > 0;
	if (L(tp, ICANON))
		return tp->t_nlines > 0 ||
		    ((tp->t_state & TS_EOF) && tp->t_incommit > 0);
	return tp->t_incommit > 0;
}

uint32_t
tty_dequeue(struct tty *tp, uint8_t *buf, uint32_t n, bool *endl)
{
	bool canon = !(tp->t_flags & TF_PASSTHRU) && L(tp, ICANON);
	uint32_t got = 0, used = 0;

	*endl = false;
	while (used < tp->t_incommit && got < n) {
		uint32_t i = tp->t_inhead + used;
		bool delim = bit_get(tp->t_delim, i);
		used++;
		if (!bit_get(tp->t_eof, i))
			buf[got++] = tp->t_in[i & QMASK];
		if (delim) {
			if (tp->t_nlines > 0)
				tp->t_nlines--;
			if (canon) {
				*endl = true;
				break;
			}
		}
	}
	tp->t_inhead = (tp->t_inhead + used) & QMASK;
	tp->t_incount -= used;
	tp->t_incommit -= used;
	if (used > 0 && tp->t_dev->tsw_inwant != NULL)
		tp->t_dev->tsw_inwant(tp);	/* room for more */
	return got;
}

/* Drops the VEOF marks of the readable input: raw mode has no EOF byte. */
static void
in_strip_eof(struct tty *tp)
{
	uint32_t keep = 0;
	for (uint32_t off = 0; off < tp->t_incount; off++) {
		uint32_t from = tp->t_inhead + off;
		if (off < tp->t_incommit && bit_get(tp->t_eof, from))
			continue;
		uint32_t to = tp->t_inhead + keep;
		tp->t_in[to & QMASK] = tp->t_in[from & QMASK];
		keep++;
	}
	tp->t_incommit -= tp->t_incount - keep;
	tp->t_incount = keep;
	memset(tp->t_eof, 0, sizeof(tp->t_eof));
}

void
tty_ldisc_termios(struct tty *tp, const struct linux_termios *old)
{
	bool was = old->c_lflag & ICANON, now = L(tp, ICANON);

	if (was && !now) {
		/* The line being edited becomes readable, as on Linux. */
		in_strip_eof(tp);
		memset(tp->t_delim, 0, sizeof(tp->t_delim));
		tp->t_nlines = 0;
		tp->t_incommit = tp->t_incount;
	} else if (!was && now) {
		/* Pending raw input becomes one line. */
		memset(tp->t_delim, 0, sizeof(tp->t_delim));
		memset(tp->t_eof, 0, sizeof(tp->t_eof));
		tp->t_nlines = 0;
		if (tp->t_incount > 0) {
			bit_set(tp->t_delim, tp->t_inhead + tp->t_incount - 1, true);
			tp->t_nlines = 1;
		}
		tp->t_incommit = tp->t_incount;
	}
	if (!I(tp, IXON) && (tp->t_state & TS_STOPPED)) {
		tp->t_state &= ~TS_STOPPED;
		tty_start(tp);
	}
	tp->t_state &= ~TS_LNEXT;
	/* VMIN, VTIME or the mode changed: readers look again. */
	wakeup(&tp->t_in);
	selwakeup(&tp->t_rsel);
}

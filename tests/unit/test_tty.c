/*
 * The tty layer and its line discipline, fed bytes directly: canonical
 * editing and its echo bytes, ISIG to the foreground group, input and
 * output translation, VEOF, FIONREAD and poll readiness, TCSETS, the
 * pass-through mode, and VMIN/VTIME reads in a kernel thread.
 */
#include <fcntl.h>
#include <signal.h>

#include "dev/tty.h"
#include "host/cpu.h"
#include "kern/proc.h"
#include "kern/thread.h"
#include "kern/uio.h"
#include "tests/unit/unit.h"
#include "tests/unit/vmtest.h"
#include "kern/kmem.h"

/* The test "device": output lands in scr, as on a screen. */
static char scr[8192];
static size_t scrlen, scrtotal;

static void
scr_start(struct tty *tp)
{
	uint8_t buf[256];
	uint32_t n;
	while ((n = tty_peekout(tp, buf, sizeof(buf))) > 0) {
		if (scrlen + n < sizeof(scr)) {
			memcpy(scr + scrlen, buf, n);
			scrlen += n;
		}
		scrtotal += n;
		tty_outconsume(tp, n);
	}
	tty_outdone(tp, false);
}

static const struct ttydevsw scr_sw = { .tsw_start = scr_start };

static struct tty *
mktty(int flags)
{
	vmt_ram();
	scrlen = 0;
	memset(scr, 0, sizeof(scr));
	return tty_alloc(&scr_sw, NULL, flags);
}

static void
feed(struct tty *tp, const char *s)
{
	while (*s != '\0')
		tty_input(tp, (uint8_t)*s++);
}

/* The screen shows exactly s since the last call; clears it. */
static bool
screen_is(const char *s)
{
	bool ok = scrlen == strlen(s) && memcmp(scr, s, scrlen) == 0;
	if (!ok)
		fprintf(stderr, "    screen: \"%.*s\" (%zu bytes)\n", (int)scrlen, scr,
		    scrlen);
	scrlen = 0;
	return ok;
}

/* A read of up to n bytes into buf (NUL-terminated): bytes or errno. */
static int64_t
rd(struct tty *tp, char *buf, size_t n, int fflags)
{
	struct uio uio;
	struct kiovec iov;
	uio_init_kernel(&uio, &iov, buf, n, 0, UIO_READ);
	int error = tty_read(tp, &uio, fflags);
	int64_t got = (int64_t)(n - uio.uio_resid);
	if (got >= 0 && (size_t)got < n)
		buf[got] = '\0';
	return got > 0 ? got : error;
}

static int64_t
wr(struct tty *tp, const char *s)
{
	struct uio uio;
	struct kiovec iov;
	size_t n = strlen(s);
	uio_init_kernel(&uio, &iov, (void *)s, n, 0, UIO_WRITE);
	int error = tty_write(tp, &uio, 0);
	return error < 0 ? error : (int64_t)(n - uio.uio_resid);
}

static int
fionread(struct tty *tp)
{
	int n = -1;
	CHECK_EQ(tty_ioctl(tp, FIONREAD, &n, 0), 0);
	return n;
}

static void
set_lflag(struct tty *tp, uint32_t on, uint32_t off)
{
	struct linux_termios t;
	CHECK_EQ(tty_ioctl(tp, TCGETS, &t, 0), 0);
	t.c_lflag = (t.c_lflag | on) & ~off;
	CHECK_EQ(tty_ioctl(tp, TCSETS, &t, 0), 0);
}

TEST(tty_default_termios)
{
	struct tty *tp = mktty(0);
	REQUIRE(tp != NULL);
	struct linux_termios t;
	_Static_assert(sizeof(t) == 36, "Linux's kernel termios");
	CHECK_EQ(tty_ioctl(tp, TCGETS, &t, 0), 0);
	CHECK_EQ(t.c_iflag, ICRNL | IXON);
	CHECK_EQ(t.c_oflag, OPOST | ONLCR);
	CHECK_EQ(t.c_cflag, B38400 | CS8 | CREAD | HUPCL);
	CHECK_EQ(t.c_lflag, ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHOCTL |
	    ECHOKE | IEXTEN);
	CHECK_EQ(t.c_cc[VINTR], 3);
	CHECK_EQ(t.c_cc[VERASE], 0177);
	CHECK_EQ(t.c_cc[VMIN], 1);
	CHECK_EQ(tty_ioctl(tp, 0x54ff, &t, 0), -ENOTTY);
	tty_free(tp);
}

TEST(tty_erase_kill_werase)
{
	struct tty *tp = mktty(0);
	char buf[64];
	REQUIRE(tp != NULL);
	feed(tp, "helo\177\177llo wrld\027world\r");
	CHECK(screen_is("helo\b \b\b \bllo wrld\b \b\b \b\b \b\b \bworld\r\n"));
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 12);
	CHECK(strcmp(buf, "hello world\n") == 0);
	/* ^W takes trailing punctuation, then one word. */
	feed(tp, "cd /usr/lib/\027\027x\n");
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 6);
	CHECK(strcmp(buf, "cd /x\n") == 0);
	scrlen = 0;
	/* ECHOKE wipes the killed line. */
	feed(tp, "junk\025ok\n");
	CHECK(screen_is("junk\b \b\b \b\b \b\b \bok\r\n"));
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 3);
	CHECK(strcmp(buf, "ok\n") == 0);
	/* Without ECHOKE: the kill character and a newline (ECHOK). */
	set_lflag(tp, 0, ECHOKE);
	feed(tp, "ab\025c\n");
	CHECK(screen_is("ab^U\r\nc\r\n"));
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 2);
	CHECK(strcmp(buf, "c\n") == 0);
	/* Without ECHOE, erase echoes the erase character. */
	set_lflag(tp, 0, ECHOE);
	feed(tp, "ab\177\n");
	CHECK(screen_is("ab^?\r\n"));
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 2);
	CHECK(strcmp(buf, "a\n") == 0);
	/* A tab rubs out to where it began; a control char is two wide. */
	set_lflag(tp, ECHOE | ECHOKE, 0);
	feed(tp, "a\tb\177\177\001\177\n");
	CHECK(screen_is("a\tb\b \b\b\b\b\b\b\b\b^A\b \b\b \b\r\n"));
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 2);
	CHECK(strcmp(buf, "a\n") == 0);
	/* Erase never reaches into a committed line. */
	feed(tp, "x\n\177\177y\n");
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 2);
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 2);
	CHECK(strcmp(buf, "y\n") == 0);
	/* With IUTF8 a multibyte character goes at once. */
	struct linux_termios t;
	tty_ioctl(tp, TCGETS, &t, 0);
	t.c_iflag |= IUTF8;
	tty_ioctl(tp, TCSETS, &t, 0);
	feed(tp, "a\xc3\xa9\177b\n");
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 3);
	CHECK(strcmp(buf, "ab\n") == 0);
	/* ^V quotes: the erase character goes in as data. */
	feed(tp, "\026\177\n");
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 2);
	CHECK(strcmp(buf, "\177\n") == 0);
	tty_free(tp);
}

/* A process alone in its group and session, to take tty signals. */
struct fakeproc {
	struct proc p;
	struct pgrp pg;
	struct session *s;	/* kmalloc'd: the tty may free it */
	struct sigacts sa;
};

static void
fakeproc_init(struct fakeproc *f, pid_t pid)
{
	memset(f, 0, sizeof(*f));
	f->p.p_pid = pid;
	f->p.p_state = PRS_NORMAL;
	f->p.p_sigacts = &f->sa;
	TAILQ_INIT(&f->p.p_lwps);
	TAILQ_INIT(&f->pg.pg_members);
	TAILQ_INSERT_TAIL(&f->pg.pg_members, &f->p, p_pglist);
	f->pg.pg_id = pid;
	f->s = kmalloc(sizeof(*f->s), KM_ZERO);
	f->pg.pg_session = f->s;
	f->s->s_ref = 1;
	f->s->s_sid = pid;
	f->s->s_leader = &f->p;
	f->p.p_pgrp = &f->pg;
}

TEST(tty_isig)
{
	struct tty *tp = mktty(0);
	struct fakeproc f;
	char buf[16];
	REQUIRE(tp != NULL);
	fakeproc_init(&f, 4242);
	REQUIRE(f.s != NULL);
	f.sa.ps_act[SIGWINCH - 1].lsa_handler = 0x1000;	/* caught */
	tty_set_ctty(tp, &f.p);
	CHECK(f.s->s_ttyp == tp);
	CHECK_EQ(f.s->s_ref, 2);
	CHECK(f.s->s_fgpgrp == &f.pg);

	/* ^C: SIGINT to the foreground group, input flushed, "^C" shown. */
	feed(tp, "abc\003");
	CHECK(f.p.p_siglist & SIGBIT(SIGINT));
	CHECK(screen_is("abc^C"));
	feed(tp, "\n");
	CHECK_EQ(rd(tp, buf, sizeof(buf), O_NONBLOCK), 1);
	feed(tp, "\034\032");
	CHECK(f.p.p_siglist & SIGBIT(SIGQUIT));
	CHECK(f.p.p_siglist & SIGBIT(SIGTSTP));
	/* NOFLSH keeps the input. */
	f.p.p_siglist = 0;
	set_lflag(tp, NOFLSH, 0);
	feed(tp, "ab\003\n");
	CHECK(f.p.p_siglist & SIGBIT(SIGINT));
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 3);
	CHECK(strcmp(buf, "ab\n") == 0);
	/* Without ISIG ^C is data. */
	f.p.p_siglist = 0;
	set_lflag(tp, 0, ISIG);
	feed(tp, "\003\n");
	CHECK_EQ(f.p.p_siglist, 0);
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 2);
	CHECK_EQ(buf[0], 3);
	/* A new window size: SIGWINCH, once. */
	struct winsize ws = { .ws_row = 50, .ws_col = 132 };
	CHECK_EQ(tty_ioctl(tp, TIOCSWINSZ, &ws, 0), 0);
	CHECK(f.p.p_siglist & SIGBIT(SIGWINCH));
	f.p.p_siglist = 0;
	CHECK_EQ(tty_ioctl(tp, TIOCSWINSZ, &ws, 0), 0);
	CHECK_EQ(f.p.p_siglist, 0);
	memset(&ws, 0, sizeof(ws));
	CHECK_EQ(tty_ioctl(tp, TIOCGWINSZ, &ws, 0), 0);
	CHECK_EQ(ws.ws_col, 132);
	/* Once the session has no processes, the terminal is free again. */
	f.s->s_ref--;
	tty_session_check(tp);		/* and frees the session */
	CHECK(tp->t_session == NULL);
	tty_free(tp);
}

TEST(tty_input_translation)
{
	struct tty *tp = mktty(0);
	struct linux_termios t;
	char buf[16];
	REQUIRE(tp != NULL);
	/* ICRNL: return ends the line as a newline. */
	feed(tp, "a\r");
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 2);
	CHECK(strcmp(buf, "a\n") == 0);
	/* IGNCR drops it; INLCR makes newline a return (raw mode here). */
	tty_ioctl(tp, TCGETS, &t, 0);
	t.c_iflag |= IGNCR;
	tty_ioctl(tp, TCSETS, &t, 0);
	feed(tp, "b\r\n");
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 2);
	CHECK(strcmp(buf, "b\n") == 0);
	t.c_iflag = INLCR;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	tty_ioctl(tp, TCSETS, &t, 0);
	feed(tp, "c\n\r");
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 3);
	CHECK(memcmp(buf, "c\r\r", 3) == 0);
	/* ISTRIP clears the eighth bit. */
	t.c_iflag = ISTRIP;
	tty_ioctl(tp, TCSETS, &t, 0);
	feed(tp, "\xe1");
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 1);
	CHECK_EQ(buf[0], 'a');
	tty_free(tp);
}

TEST(tty_output_processing)
{
	struct tty *tp = mktty(0);
	struct linux_termios t;
	REQUIRE(tp != NULL);
	CHECK_EQ(wr(tp, "a\nb\n"), 4);
	CHECK(screen_is("a\r\nb\r\n"));
	tty_ioctl(tp, TCGETS, &t, 0);
	t.c_oflag = OPOST | OCRNL | ONOCR;
	tty_ioctl(tp, TCSETS, &t, 0);
	CHECK_EQ(wr(tp, "\rx\ry\n"), 5);
	CHECK(screen_is("x\ny\n"));
	t.c_oflag = ONLCR;		/* no OPOST: nothing happens */
	tty_ioctl(tp, TCSETS, &t, 0);
	CHECK_EQ(wr(tp, "a\n"), 2);
	CHECK(screen_is("a\n"));
	/* A big write goes through the queue in pieces, all of it. */
	static char big[20001];
	memset(big, 'z', sizeof(big) - 1);
	scrtotal = 0;
	CHECK_EQ(wr(tp, big), 20000);
	CHECK_EQ(scrtotal, 20000);
	int n = -1;
	CHECK_EQ(tty_ioctl(tp, TIOCOUTQ, &n, 0), 0);
	CHECK_EQ(n, 0);
	/* Stopped output (^S) waits in the queue until ^Q. */
	scrlen = 0;
	t.c_oflag = OPOST | ONLCR;
	t.c_iflag = IXON;
	tty_ioctl(tp, TCSETS, &t, 0);
	feed(tp, "\023");
	CHECK_EQ(wr(tp, "held"), 4);
	CHECK_EQ(scrlen, 0);
	CHECK_EQ(tty_ioctl(tp, TIOCOUTQ, &n, 0), 0);
	CHECK_EQ(n, 4);
	feed(tp, "\021");
	CHECK(screen_is("held"));
	tty_free(tp);
}

TEST(tty_eof_fionread_poll)
{
	struct tty *tp = mktty(0);
	char buf[16];
	REQUIRE(tp != NULL);
	set_lflag(tp, 0, ECHO);
	/* A line being edited is not readable yet. */
	feed(tp, "abc");
	CHECK_EQ(fionread(tp), 0);
	CHECK_EQ(tty_poll(tp, POLLIN | POLLOUT, NULL), POLLOUT);
	CHECK_EQ(rd(tp, buf, sizeof(buf), O_NONBLOCK), -EAGAIN);
	feed(tp, "\nde\n");
	CHECK_EQ(fionread(tp), 7);
	CHECK_EQ(tty_poll(tp, POLLIN, NULL), POLLIN);
	/* One line per read; a short read leaves the rest of it. */
	CHECK_EQ(rd(tp, buf, 2, 0), 2);
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 2);
	CHECK(strcmp(buf, "c\n") == 0);
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 3);
	/* ^D sends a partial line as it is; alone it is end of file. */
	feed(tp, "xy\004\004");
	CHECK_EQ(fionread(tp), 2);		/* a VEOF is no data */
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 2);
	CHECK(strcmp(buf, "xy") == 0);
	CHECK_EQ(tty_poll(tp, POLLIN, NULL), POLLIN);
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 0);
	CHECK_EQ(rd(tp, buf, sizeof(buf), O_NONBLOCK), -EAGAIN);
	/* VEOL ends a line too, and is data. */
	struct linux_termios t;
	tty_ioctl(tp, TCGETS, &t, 0);
	t.c_cc[VEOL] = ';';
	tty_ioctl(tp, TCSETS, &t, 0);
	feed(tp, "a;");
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 2);
	CHECK(strcmp(buf, "a;") == 0);
	/* Raw mode: every byte counts; the line being edited is released. */
	feed(tp, "pq");
	set_lflag(tp, 0, ICANON);
	CHECK_EQ(fionread(tp), 2);
	feed(tp, "\004r");
	CHECK_EQ(fionread(tp), 4);
	/* Poll waits for VMIN bytes when there is no timer. */
	tty_ioctl(tp, TCGETS, &t, 0);
	t.c_cc[VMIN] = 5;
	tty_ioctl(tp, TCSETS, &t, 0);
	CHECK_EQ(tty_poll(tp, POLLIN, NULL), 0);
	feed(tp, "s");
	CHECK_EQ(tty_poll(tp, POLLIN, NULL), POLLIN);
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 5);
	CHECK(memcmp(buf, "pq\004rs", 5) == 0);
	/* Back to canonical: pending bytes make one line. */
	feed(tp, "uv");
	set_lflag(tp, ICANON, 0);
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 2);
	CHECK(strcmp(buf, "uv") == 0);
	/* TCFLSH drops input. */
	feed(tp, "gone\n");
	int which = TCIFLUSH;
	CHECK_EQ(tty_ioctl(tp, TCFLSH, &which, 0), 0);
	CHECK_EQ(fionread(tp), 0);
	which = 7;
	CHECK_EQ(tty_ioctl(tp, TCFLSH, &which, 0), -EINVAL);
	tty_free(tp);
}

TEST(tty_passthrough)
{
	struct tty *tp = mktty(TF_PASSTHRU);
	char buf[16];
	REQUIRE(tp != NULL);
	/* Bytes as they came, nothing echoed, no signal, no newline fix. */
	feed(tp, "a\177\003\r\004");
	CHECK_EQ(scrlen, 0);
	CHECK_EQ(fionread(tp), 5);
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 5);
	CHECK(memcmp(buf, "a\177\003\r\004", 5) == 0);
	CHECK_EQ(wr(tp, "x\ny"), 3);
	CHECK(screen_is("x\ny"));
	/* The termios is kept for TCGETS but changes nothing. */
	set_lflag(tp, 0, ICANON);
	struct linux_termios t;
	tty_ioctl(tp, TCGETS, &t, 0);
	CHECK_EQ(t.c_lflag & ICANON, 0);
	/* End of input: reads return 0 (once, if the device says so). */
	CHECK_EQ(rd(tp, buf, sizeof(buf), O_NONBLOCK), -EAGAIN);
	feed(tp, "z");
	tty_input_eof(tp, true);
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 1);
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 0);
	CHECK_EQ(rd(tp, buf, sizeof(buf), O_NONBLOCK), -EAGAIN);
	tty_input_eof(tp, false);
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 0);
	CHECK_EQ(rd(tp, buf, sizeof(buf), 0), 0);
	tty_free(tp);
}

/* VMIN and VTIME need sleeps: a reader and a feeder in kernel threads. */

struct vt {
	struct tty *tp;
	int vmin, vtime;
	const char *later;	/* the feeder's bytes, after a pause */
	int64_t got;
	uint64_t ms;		/* how long the read took */
	int done;
};

static void
vt_feeder(void *arg)
{
	struct vt *v = arg;
	tsleep(v, 0, "pause", 30000000);
	for (const char *s = v->later; *s != '\0'; s++) {
		tty_input(v->tp, (uint8_t)*s);
		tsleep(v, 0, "pause", 10000000);
	}
	v->done++;
	wakeup(&v->done);
}

static void
vt_reader(void *arg)
{
	struct vt *v = arg;
	char buf[16];
	struct linux_termios t;
	tty_ioctl(v->tp, TCGETS, &t, 0);
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = (uint8_t)v->vmin;
	t.c_cc[VTIME] = (uint8_t)v->vtime;
	tty_ioctl(v->tp, TCSETS, &t, 0);
	if (v->later != NULL)
		thread_start(thread_create("feeder", vt_feeder, v));
	uint64_t t0 = nanouptime();
	v->got = rd(v->tp, buf, sizeof(buf) - 1, 0);
	v->ms = (nanouptime() - t0) / 1000000;
	while (v->later != NULL && v->done == 0)
		tsleep(&v->done, 0, "join", 0);
	sched_halt();
}

static void
vt_run(struct vt *v)
{
	REQUIRE(cpu_configure(1, CPU_PLACE_NONE, 100) == 0);
	sched_init();
	kernel_lock();
	struct thread *td = thread_create("reader", vt_reader, v);
	if (td != NULL)
		thread_start(td);
	kernel_unlock();
	REQUIRE(td != NULL);
	REQUIRE(cpu_start(sched_cpu_main, NULL) == 0);
	cpu_join();
}

TEST(tty_vmin_vtime)
{
	struct tty *tp = mktty(0);
	REQUIRE(tp != NULL);
	/* MIN 0, TIME 0: at once, with nothing. */
	struct vt v = { .tp = tp, .vmin = 0, .vtime = 0 };
	vt_run(&v);
	CHECK_EQ(v.got, 0);
	CHECK(v.ms < 50);
	/* MIN 0, TIME 2: nothing comes, 0 after 200 ms. */
	v = (struct vt){ .tp = tp, .vmin = 0, .vtime = 2 };
	vt_run(&v);
	CHECK_EQ(v.got, 0);
	CHECK(v.ms >= 190 && v.ms < 2000);
	/* MIN 0, TIME 20: the first byte ends it, long before the timer. */
	v = (struct vt){ .tp = tp, .vmin = 0, .vtime = 20, .later = "a" };
	vt_run(&v);
	CHECK_EQ(v.got, 1);
	CHECK(v.ms < 1500);
	/* MIN 3, TIME 0: waits for three bytes, however long. */
	v = (struct vt){ .tp = tp, .vmin = 3, .vtime = 0, .later = "bcd" };
	vt_run(&v);
	CHECK_EQ(v.got, 3);
	CHECK(v.ms >= 45);
	/* MIN 8, TIME 2: two bytes, then the inter-byte timer ends it. */
	v = (struct vt){ .tp = tp, .vmin = 8, .vtime = 2, .later = "ef" };
	vt_run(&v);
	CHECK_EQ(v.got, 2);
	CHECK(v.ms >= 220 && v.ms < 3000);
	/* Bytes already there: MIN 2 is met at once. */
	feed(tp, "ghi");
	v = (struct vt){ .tp = tp, .vmin = 2, .vtime = 0 };
	vt_run(&v);
	CHECK_EQ(v.got, 3);
	tty_free(tp);
}

/*
 * The console through a real host pseudo-terminal: vkernel runs a
 * busybox shell on the slave side, as if a person typed at it; this
 * program types on the master side and reads the screen.
 *
 * usage: ptytest VKERNEL GUEST.CPIO (tests/guest/run.sh's image, which
 * has /t/pty/ttyctl)
 * Prints "ok   pty NAME" or "FAIL pty NAME" per test, then
 * "N passed, N failed".  Every wait is bounded: a hung vkernel is killed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static const char *vkernel, *rootcpio;
static int passed, failed;

struct pty {
	int master, slave;	/* the slave stays open here, for tcgetattr */
	pid_t pid;
	char buf[65536];	/* everything the screen showed */
	size_t len, mark;	/* expect() searches from mark */
	size_t last;		/* where the last run() began */
	int status;		/* vkernel's, once it exited */
	bool bad;		/* this test failed */
	const char *name;
	struct termios before;
};

static uint64_t
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Prints s with control bytes escaped, for failure reports. */
static void
show(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\n')
			fputs("\\n\n        ", stderr);
		else if (c < 32 || c == 127)
			fprintf(stderr, "\\x%02x", c);
		else
			fputc(c, stderr);
	}
	fputc('\n', stderr);
}

static void __attribute__((format(printf, 2, 3)))
fail(struct pty *t, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "    pty %s: ", t->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	t->bad = true;
}

/* Reads what the master has, waiting up to ms. false at EOF (EIO). */
static bool
pump(struct pty *t, int ms)
{
	struct pollfd pfd = { t->master, POLLIN, 0 };
	if (poll(&pfd, 1, ms) <= 0)
		return true;
	if (t->len + 1 >= sizeof(t->buf))
		return false;
	ssize_t n = read(t->master, t->buf + t->len, sizeof(t->buf) - 1 - t->len);
	if (n <= 0)
		return false;
	t->len += (size_t)n;
	t->buf[t->len] = '\0';
	return true;
}

/* Waits up to ms for s (bytes, maybe with NULs excluded) after the mark. */
static bool
expect(struct pty *t, const char *s, int ms)
{
	uint64_t end = now_ms() + (uint64_t)ms;
	if (t->bad)
		return false;
	for (;;) {
		char *at = memmem(t->buf + t->mark, t->len - t->mark, s, strlen(s));
		if (at != NULL) {
			t->mark = (size_t)(at - t->buf) + strlen(s);
			return true;
		}
		uint64_t n = now_ms();
		if (n >= end || !pump(t, (int)(end - n))) {
			fail(t, "did not see:");
			show(s, strlen(s));
			fprintf(stderr, "    after:\n        ");
			show(t->buf + t->mark, t->len - t->mark);
			if (getenv("PTYTEST_VERBOSE") != NULL) {
				fprintf(stderr, "    all:\n        ");
				show(t->buf, t->len);
			}
			return false;
		}
	}
}

static void
type(struct pty *t, const char *s)
{
	size_t n = strlen(s);
	/* A byte at a time, as a person types: each its own read. */
	for (size_t i = 0; i < n; i++) {
		if (write(t->master, s + i, 1) != 1)
			fail(t, "write to the master: %s", strerror(errno));
		pump(t, 5);
	}
}

/* Lets the screen settle for ms and skips what it showed (a redraw). */
static void
settle(struct pty *t, int ms)
{
	uint64_t end = now_ms() + (uint64_t)ms;
	while (now_ms() < end)
		pump(t, 10);
	t->mark = t->len;
}

/* Types a command line and waits for the next prompt. */
static bool
run(struct pty *t, const char *line, int ms)
{
	t->last = t->mark;
	type(t, line);
	type(t, "\r");
	return expect(t, "P> ", ms);
}

/* The output of the last run() contains s. */
static void
saw(struct pty *t, const char *s)
{
	if (t->bad)
		return;
	if (memmem(t->buf + t->last, t->mark - t->last, s, strlen(s)) == NULL) {
		fail(t, "the last command did not print:");
		show(s, strlen(s));
		fprintf(stderr, "    it printed:\n        ");
		show(t->buf + t->last, t->mark - t->last);
	}
}

static bool
same_termios(const struct termios *a, const struct termios *b)
{
	return a->c_iflag == b->c_iflag && a->c_oflag == b->c_oflag &&
	    a->c_cflag == b->c_cflag && a->c_lflag == b->c_lflag &&
	    memcmp(a->c_cc, b->c_cc, sizeof(a->c_cc)) == 0 &&
	    cfgetispeed(a) == cfgetispeed(b) && cfgetospeed(a) == cfgetospeed(b);
}

/*
 * Starts vkernel on a new pty, running an interactive shell with the
 * prompt "P> " (busybox init instead with init_shell false).
 */
static bool
start_flag(struct pty *t, const char *name, bool init_shell, const char *flag,
    const char *first);

static bool
start_init(struct pty *t, const char *name, bool init_shell)
{
	return start_flag(t, name, init_shell, NULL, NULL);
}

/*
 * As start_init, with one more vkernel option (flag, or NULL), waiting
 * for first (NULL: the shell's prompt or init's greeting).
 */
static bool
start_flag(struct pty *t, const char *name, bool init_shell, const char *flag,
    const char *first)
{
	memset(t, 0, sizeof(*t));
	t->name = name;
	t->pid = -1;
	t->master = posix_openpt(O_RDWR | O_NOCTTY);
	if (t->master < 0 || grantpt(t->master) < 0 || unlockpt(t->master) < 0) {
		fail(t, "posix_openpt: %s", strerror(errno));
		return false;
	}
	char *path = ptsname(t->master);
	t->slave = open(path, O_RDWR | O_NOCTTY);
	if (t->slave < 0) {
		fail(t, "%s: %s", path, strerror(errno));
		return false;
	}
	/* A state of the host terminal that is not the default, to restore. */
	struct termios tio;
	tcgetattr(t->slave, &tio);
	tio.c_iflag |= IUTF8;
	tio.c_lflag &= ~(tcflag_t)ECHOCTL;
	tio.c_cc[VERASE] = 010;
	tcsetattr(t->slave, TCSANOW, &tio);
	tcgetattr(t->slave, &t->before);
	struct winsize ws = { .ws_row = 30, .ws_col = 100 };
	ioctl(t->master, TIOCSWINSZ, &ws);

	t->pid = fork();
	if (t->pid == 0) {
		setsid();
		int fd = open(path, O_RDWR);
		ioctl(fd, TIOCSCTTY, 0);
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		closefrom(3);
		/* -m 256m is repeated where no flag is wanted. */
		if (flag == NULL)
			flag = "-m256m";
		if (init_shell)
			execl(vkernel, vkernel, "-m", "256m", flag, "--initramfs", rootcpio,
			    "--", "/bin/sh", "-c", "export PS1='P> '; exec /bin/sh -i",
			    (char *)NULL);
		else
			execl(vkernel, vkernel, "-m", "256m", flag, "--initramfs", rootcpio,
			    (char *)NULL);
		_exit(127);
	}
	if (first == NULL)
		first = init_shell ? "P> " : "Please press Enter";
	return expect(t, first, 20000);
}

static bool
start(struct pty *t, const char *name)
{
	return start_init(t, name, true);
}

/* Waits up to ms for vkernel to exit; kills it if it does not. */
static bool
reap(struct pty *t, int ms)
{
	uint64_t end = now_ms() + (uint64_t)ms;
	while (now_ms() < end) {
		pid_t r = waitpid(t->pid, &t->status, WNOHANG);
		if (r == t->pid) {
			t->pid = -1;
			return true;
		}
		pump(t, 20);
	}
	fail(t, "vkernel did not exit");
	return false;
}

static void
finish(struct pty *t)
{
	if (t->pid > 0) {
		kill(t->pid, SIGKILL);
		waitpid(t->pid, NULL, 0);
	}
	close(t->master);
	close(t->slave);
	if (t->bad) {
		failed++;
		printf("FAIL pty %s\n", t->name);
	} else {
		passed++;
		printf("ok   pty %s\n", t->name);
	}
}

/* The host terminal is exactly as it was. */
static void
check_restored(struct pty *t)
{
	struct termios after;
	if (tcgetattr(t->slave, &after) < 0)
		fail(t, "tcgetattr: %s", strerror(errno));
	else if (!same_termios(&t->before, &after))
		fail(t, "termios not restored: lflag %#x, was %#x; iflag %#x, was %#x",
		    after.c_lflag, t->before.c_lflag, after.c_iflag, t->before.c_iflag);
}

/* While vkernel runs, the host terminal is raw. */
static void
check_raw(struct pty *t)
{
	struct termios now;
	tcgetattr(t->slave, &now);
	if ((now.c_lflag & (ICANON | ECHO | ISIG)) || (now.c_oflag & OPOST) ||
	    (now.c_iflag & ICRNL))
		fail(t, "host terminal not raw: lflag %#x oflag %#x",
		    now.c_lflag, now.c_oflag);
}

/* Canonical editing in the guest's line discipline: erase, werase, kill. */
static void
test_edit(void)
{
	struct pty t;
	if (start(&t, "canonical_editing")) {
		check_raw(&t);
		/* Once "go" shows, the shell left raw mode: no type-ahead. */
		type(&t, "echo go; read x\r");
		expect(&t, "go\r\n", 5000);
		/* busybox's read takes a cooked line: our discipline edits it. */
		type(&t, "helo\177\177llo wrld\027world\r");
		expect(&t, "helo\b \b\b \bllo wrld\b \b\b \b\b \b\b \bworld\r\n", 5000);
		expect(&t, "P> ", 5000);
		run(&t, "echo \"[$x]\"", 5000);
		saw(&t, "[hello world]\r\n");
		/* Kill the line (ECHOKE wipes it). */
		/* Once "go" shows, the shell left raw mode: no type-ahead. */
		type(&t, "echo go; read y\r");
		expect(&t, "go\r\n", 5000);
		type(&t, "junk\025okk\177\r");
		expect(&t, "junk\b \b\b \b\b \b\b \bokk\b \b\r\n", 5000);
		expect(&t, "P> ", 5000);
		run(&t, "echo \"[$y]\"", 5000);
		saw(&t, "[ok]\r\n");
		/* ^D: a partial line goes at once; on an empty line, EOF. */
		type(&t, "echo go; cat\r");
		expect(&t, "go\r\n", 5000);
		type(&t, "xy\004");
		expect(&t, "xyxy", 5000);
		type(&t, "\004");
		expect(&t, "P> ", 5000);
		/* A control character echoes as ^X; ^V quotes one. */
		/* Once "go" shows, the shell left raw mode: no type-ahead. */
		type(&t, "echo go; read z\r");
		expect(&t, "go\r\n", 5000);
		type(&t, "a\026\003b\r");
		expect(&t, "a^\b^Cb\r\n", 5000);
		expect(&t, "P> ", 5000);
		run(&t, "echo \"$z\" | od -An -c", 5000);
		saw(&t, "a 003   b");
		/* ^H is no erase character until stty says so; then it is. */
		type(&t, "stty erase ^H; echo go; read y\r");
		expect(&t, "go\r\n", 5000);
		type(&t, "a\177b\010c\r");
		expect(&t, "a^?b\b \bc\r\n", 5000);
		expect(&t, "P> ", 5000);
		run(&t, "echo \"$y\" | od -An -c; stty sane", 5000);
		saw(&t, "a 177   c");
	}
	finish(&t);
}

/* busybox ash's own line editing (raw mode): a cursor key, an insert. */
static void
test_lineedit(void)
{
	struct pty t;
	if (start(&t, "ash_line_editing")) {
		type(&t, "echo abd\033[Dc\r");
		expect(&t, "\r\nabcd\r\n", 5000);
		expect(&t, "P> ", 5000);
		/* History: up arrow brings the line back. */
		type(&t, "\033[A\r");
		expect(&t, "\r\nabcd\r\n", 5000);
		expect(&t, "P> ", 5000);
	}
	finish(&t);
}

/* ^C reaches the foreground job, not the shell. */
static void
test_intr(void)
{
	struct pty t;
	if (start(&t, "ctrl_c")) {
		type(&t, "sleep 100\r");
		expect(&t, "sleep 100\r\n", 5000);
		usleep(300000);
		uint64_t t0 = now_ms();
		type(&t, "\003");
		if (expect(&t, "^C", 5000) && expect(&t, "P> ", 5000) &&
		    now_ms() - t0 > 4000)
			fail(&t, "^C took %llu ms", (unsigned long long)(now_ms() - t0));
		run(&t, "echo alive", 5000);
		saw(&t, "alive");
		/* ^Z stops it; the shell takes the terminal back. */
		type(&t, "sleep 100\r");
		expect(&t, "sleep 100\r\n", 5000);
		usleep(300000);
		type(&t, "\032");
		expect(&t, "Stopped", 5000);
		expect(&t, "P> ", 5000);
		/* A background reader stops with SIGTTIN. */
		type(&t, "cat &\r");
		expect(&t, "P> ", 5000);
		usleep(500000);
		run(&t, "jobs", 5000);
		saw(&t, "Stopped (tty input)");
		run(&t, "kill -9 %1 %2; echo killed", 5000);
	}
	finish(&t);
}

/* TOSTOP and background TCSETS (SIGTTOU), /dev/tty and its ENXIO. */
static void
test_jobctl(void)
{
	struct pty t;
	if (start(&t, "job_control")) {
		run(&t, "stty tostop; (echo bg-out) & sleep 1; jobs", 8000);
		saw(&t, "Stopped (tty output)");
		if (strstr(t.buf, "bg-out\r\n") != NULL)
			fail(&t, "a background job wrote despite TOSTOP");
		run(&t, "stty -tostop; fg %1", 5000);
		saw(&t, "bg-out\r\n");
		run(&t, "stty -echo & sleep 1; jobs", 8000);
		saw(&t, "Stopped (tty output)");
		run(&t, "kill -9 %1; echo still-echoing", 5000);
		saw(&t, "echo still-echoing");
		run(&t, "echo via-tty > /dev/tty", 5000);
		saw(&t, "\r\nvia-tty\r\n");
		/* busybox's setsid does not wait: the error goes to a file. */
		run(&t, "setsid sh -c 'echo x > /dev/tty' 2>/e; sleep 1; cat /e", 5000);
		saw(&t, "No such device or address");
	}
	finish(&t);
}

/* The terminal ioctls from a program in front (tests/guest/pty/ttyctl.c). */
static void
test_ioctls(void)
{
	struct pty t;
	if (start(&t, "ioctls")) {
		run(&t, "/t/pty/ttyctl; echo status=$?", 10000);
		saw(&t, "ttyctl: 0 failed\r\nstatus=0\r\n");
	}
	finish(&t);
}

/*
 * busybox init as PID 1: its console shell takes the terminal from init's
 * session (TIOCSCTTY without stealing) and has job control; ^C stops at
 * the shell's job, never init; a respawned shell gets it again.
 */
static void
test_busybox_init(void)
{
	struct pty t;
	if (start_init(&t, "busybox_init", false)) {
		for (int round = 0; round < 2 && !t.bad; round++) {
			type(&t, "\r");
			expect(&t, "/ # ", 10000);
			if (strstr(t.buf + t.last, "job control turned off") != NULL)
				fail(&t, "no job control for init's shell");
			type(&t, "sleep 30 &\r");
			expect(&t, "/ # ", 5000);
			type(&t, "sleep 30\r");
			expect(&t, "sleep 30\r\n", 5000);
			usleep(300000);
			type(&t, "\003");
			expect(&t, "^C", 5000);
			expect(&t, "/ # ", 5000);
			t.last = t.mark;
			type(&t, "jobs; echo still-$((1+1))\r");
			expect(&t, "still-2\r\n", 5000);
			saw(&t, "Running");
			expect(&t, "/ # ", 5000);
			/* The shell exits, its background job lives on; init respawns. */
			t.last = t.mark;
			type(&t, "exit\r");
			expect(&t, "Please press Enter", 10000);
		}
		kill(t.pid, SIGTERM);
		if (reap(&t, 10000))
			check_restored(&t);
	}
	finish(&t);
}

/* stty inside: a sane termios, the host's window size, raw and back. */
static void
test_stty(void)
{
	struct pty t;
	if (start(&t, "stty")) {
		run(&t, "stty -a", 5000);
		saw(&t, "rows 30; columns 100;");
		saw(&t, "intr = ^C; quit = ^\\; erase = ^?; kill = ^U; eof = ^D;");
		saw(&t, "werase = ^W; lnext = ^V;");
		saw(&t, " icrnl ixon ");
		saw(&t, "opost ");
		saw(&t, " onlcr ");
		saw(&t, "isig icanon iexten echo echoe echok -echonl -noflsh");
		saw(&t, "echoctl echoke");
		/* raw: no ONLCR, no ICANON; sane: all back. */
		run(&t, "stty raw -echo; stty -a | grep -o -- '-icanon\\|-opost' | tr '\\n' ' '; stty sane", 5000);
		saw(&t, "-opost -icanon");
		run(&t, "stty -a | grep -ow -- 'icanon\\|opost' | tr '\\n' ' '; echo", 5000);
		saw(&t, "opost icanon \r\n");
		/* The host resizes: SIGWINCH, and the guest sees the new size. */
		struct winsize ws = { .ws_row = 40, .ws_col = 120 };
		ioctl(t.master, TIOCSWINSZ, &ws);
		settle(&t, 500);	/* ash redraws its prompt */
		run(&t, "stty size", 5000);
		saw(&t, "40 120");
		run(&t, "trap 'echo WINCH' WINCH", 5000);
		ws.ws_col = 121;
		ioctl(t.master, TIOCSWINSZ, &ws);
		settle(&t, 500);
		t.last = 0;	/* the trap runs when the shell gets to it */
		run(&t, "echo after", 5000);
		t.last = 0;
		saw(&t, "WINCH");
	}
	finish(&t);
}

/* After vkernel exits, by any way, the host terminal is as before. */
static void
test_restore(const char *name, int sig)
{
	struct pty t;
	if (start(&t, name)) {
		check_raw(&t);
		if (sig == 0) {
			type(&t, "exit 3\r");
		} else {
			usleep(100000);
			kill(t.pid, sig);
		}
		if (reap(&t, 10000)) {
			check_restored(&t);
			if (sig == 0 && !(WIFEXITED(t.status) && WEXITSTATUS(t.status) == 3))
				fail(&t, "exit status %#x, not 3", t.status);
			if (sig == SIGABRT && !WIFSIGNALED(t.status))
				fail(&t, "not killed by SIGABRT: %#x", t.status);
		}
	}
	finish(&t);
}

/* Types a debugger command and waits for its next prompt. */
static bool
ddb(struct pty *t, const char *line, int ms)
{
	t->last = t->mark;
	type(t, line);
	type(t, "\r");
	return expect(t, "db> ", ms);
}

/*
 * Copies into out (at most n - 1 bytes) the word, starting with a digit,
 * that follows key in the output of the last command: "" if none does.
 */
static void
grab(struct pty *t, const char *key, char *out, size_t n)
{
	char *at = t->buf + t->last, *end = t->buf + t->mark;
	size_t k = 0;
	/* Its first occurrence followed by a digit: not the command's echo. */
	while ((at = memmem(at, (size_t)(end - at), key, strlen(key))) != NULL &&
	    (at + strlen(key) >= end || at[strlen(key)] < '0' || at[strlen(key)] > '9'))
		at++;
	if (at != NULL)
		for (at += strlen(key); k + 1 < n && *at > ' '; at++)
			out[k++] = *at;
	out[k] = '\0';
	if (k == 0 && !t->bad)
		fail(t, "no \"%s\" in the output", key);
}

/*
 * Stops the machine with SIGINT while the shell's loop computes, and
 * checks that ps shows pid running on CPU 0 and that the backtrace is
 * the interrupt taken from the guest (kern_intr from sched_interrupts).
 * The stop may come while that CPU is in the kernel instead (a clock
 * tick, a fault, the syncer's turn), which shows neither: then continue
 * and stop again, up to three times.
 */
static void
catch_computing(struct pty *t, const char *pid)
{
	char cmd[48];
	snprintf(cmd, sizeof(cmd), "%5s %5s ", pid, pid);
	for (int try = 1; !t->bad; try++) {
		usleep(200000);
		kill(t->pid, SIGINT);
		expect(t, "db> ", 10000);
		ddb(t, "ps", 5000);
		saw(t, cmd);
		saw(t, "syncer");
		/* Its line says it runs on CPU 0 (STATE, CPU after PPID PGRP UID). */
		char *line = memmem(t->buf + t->last, t->mark - t->last, cmd, strlen(cmd));
		char *eol = line != NULL ? strstr(line, "\r\n") : NULL;
		char *state = line != NULL ? strstr(line, " run     0 ") : NULL;
		bool running = state != NULL && eol != NULL && state < eol;
		ddb(t, "trace", 5000);
		bool from_guest = memmem(t->buf + t->last, t->mark - t->last,
		    " sched_interrupts+0x", 20) != NULL;
		if (t->bad || (running && from_guest))
			break;
		if (try == 3) {
			fail(t, "three stops, none caught pid %s computing on cpu 0 (%s)",
			    pid, running ? "trace" : "ps");
			break;
		}
		if (memmem(t->buf, t->mark, "loop-3000000", 12) != NULL) {
			fail(t, "the loop ended before it was caught computing");
			break;
		}
		t->last = t->mark;
		type(t, "continue\r");
		expect(t, "[ ddb: left after", 5000);
	}
	saw(t, "#0  0x");
	saw(t, " kern_intr+0x");
}

/*
 * ddb: SIGINT stops the machine while a guest loop computes; the
 * debugger shows the loop's process running, its map, the vpagetable
 * walk of its stack (accessed and modified) and its code (accessed),
 * and a backtrace; continue lets the loop finish with the right count.
 * Then the console escape enters it at the raw console, "~~" is one
 * "~", and the guest never noticed.  PTYTEST_SESSION=file keeps the
 * screen of this test.
 */
static void
test_ddb(void)
{
	struct pty t;
	char pid[16], rsp[32], rip[32], cmd[96];

	if (start(&t, "ddb")) {
		run(&t, "echo pid=$$", 5000);
		grab(&t, "pid=", pid, sizeof(pid));
		type(&t, "i=0; while [ $i -lt 3000000 ]; do i=$((i+1)); done; echo loop-$i\r");
		expect(&t, "loop-$i\r\n", 5000);
		catch_computing(&t, pid);
		snprintf(cmd, sizeof(cmd), "show proc %s", pid);
		ddb(&t, cmd, 5000);
		grab(&t, "rsp ", rsp, sizeof(rsp));
		grab(&t, "rip ", rip, sizeof(rip));
		snprintf(cmd, sizeof(cmd), "show map %s", pid);
		ddb(&t, cmd, 5000);
		saw(&t, "r-x  rwx  pn-");
		saw(&t, "rw-  rwx  p-g");
		snprintf(cmd, sizeof(cmd), "show pte %s %s", pid, rsp);
		ddb(&t, cmd, 5000);
		saw(&t, "PML4");
		saw(&t, "PDPT");
		saw(&t, " V RW U A M NX\r\n  page ");
		snprintf(cmd, sizeof(cmd), "show pte %s %s", pid, rip);
		ddb(&t, cmd, 5000);
		saw(&t, " V RO U A\r\n  page ");
		ddb(&t, "x/2gx physmem", 5000);
		saw(&t, "physmem: 0000");
		ddb(&t, "x/gx 0", 5000);
		saw(&t, "cannot read 0x0");
		t.last = t.mark;
		type(&t, "continue\r");
		expect(&t, "loop-3000000\r\n", 20000);
		expect(&t, "P> ", 5000);
		/*
		 * The escape at the raw console, at the start of a line, after
		 * the answer a real terminal gives to the shell's cursor
		 * position query (ESC [ 6 n after each prompt).
		 */
		type(&t, "\033[24;1R~\002");
		expect(&t, "[ ddb: console escape ~^B ]", 5000);
		expect(&t, "db> ", 5000);
		ddb(&t, "show cpu", 5000);
		saw(&t, "in the debugger");
		t.last = t.mark;
		type(&t, "c\r");
		expect(&t, "[ ddb: left after", 5000);
		run(&t, "echo after-$((6*7))", 5000);
		saw(&t, "after-42");
		/* "~~" is one "~" for the guest; "~" and another byte are both. */
		run(&t, "~~; echo tilde-$?", 5000);
		saw(&t, "~; echo tilde-");
		run(&t, "echo x~y", 5000);
		saw(&t, "x~y\r\n");
		if (memmem(t.buf + t.last, t.mark - t.last, "db> ", 4) != NULL)
			fail(&t, "~~ entered the debugger");
	}
	const char *keep = getenv("PTYTEST_SESSION");
	FILE *f = keep != NULL ? fopen(keep, "w") : NULL;
	if (f != NULL) {
		fwrite(t.buf, 1, t.len, f);
		fclose(f);
	}
	finish(&t);
}

/* panic from ddb: the message, a backtrace, exit status 99, the terminal back. */
static void
test_ddb_panic(void)
{
	struct pty t;

	if (start(&t, "ddb_panic")) {
		kill(t.pid, SIGINT);
		expect(&t, "db> ", 10000);
		t.last = t.mark;
		type(&t, "panic\r");
		expect(&t, "panic: from the debugger", 10000);
		expect(&t, "#1  0x", 5000);
		if (reap(&t, 10000)) {
			check_restored(&t);
			if (!WIFEXITED(t.status) || WEXITSTATUS(t.status) != 99)
				fail(&t, "exit status %#x, not 99", t.status);
		}
	}
	finish(&t);
}

/* -D: the debugger before init runs; continue boots on. */
static void
test_ddb_boot(void)
{
	struct pty t;

	if (start_flag(&t, "ddb_boot", true, "-D", "db> ")) {
		ddb(&t, "ps", 5000);
		saw(&t, "    1     1     0     1    0 runq");
		ddb(&t, "help", 5000);
		saw(&t, "show pte");
		t.last = t.mark;
		type(&t, "continue\r");
		expect(&t, "P> ", 20000);
		run(&t, "echo booted", 5000);
		saw(&t, "booted");
	}
	finish(&t);
}

/* PTYTEST_ONLY=prefix runs only the tests whose name starts so. */
static bool
want(const char *name)
{
	const char *only = getenv("PTYTEST_ONLY");
	return only == NULL || strncmp(name, only, strlen(only)) == 0;
}

int
main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: ptytest vkernel root.cpio\n");
		return 2;
	}
	vkernel = argv[1];
	rootcpio = argv[2];
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Why a test failed goes beside its verdict, into the log CI shows. */
	dup2(STDOUT_FILENO, STDERR_FILENO);
	signal(SIGPIPE, SIG_IGN);
	if (want("edit"))
		test_edit();
	if (want("lineedit"))
		test_lineedit();
	if (want("intr"))
		test_intr();
	if (want("jobctl"))
		test_jobctl();
	if (want("ioctls"))
		test_ioctls();
	if (want("busybox_init"))
		test_busybox_init();
	if (want("stty"))
		test_stty();
	if (want("ddb"))
		test_ddb();
	if (want("ddb_panic"))
		test_ddb_panic();
	if (want("ddb_boot"))
		test_ddb_boot();
	if (want("restore_on_exit"))
		test_restore("restore_on_exit", 0);
	if (want("restore_on_sigterm"))
		test_restore("restore_on_sigterm", SIGTERM);
	if (want("restore_on_sighup"))
		test_restore("restore_on_sighup", SIGHUP);
	if (want("restore_on_abort"))
		test_restore("restore_on_abort", SIGABRT);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}

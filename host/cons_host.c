/*
 * The console's host side (see cons_host.h).
 *
 * In raw mode the host terminal no longer interprets anything: ^C, ^Z,
 * ^\ and erase reach the guest's line discipline as bytes, and output
 * processing is off because the guest's ONLCR does it.  The cost is that
 * a vkernel that dies with the terminal raw leaves the user's shell
 * unusable, so every way out puts the saved termios back first.
 *
 * We go raw only when we are the terminal's foreground process group:
 * changing it from the background would stop us with SIGTTOU (`timeout`
 * and `cmd &` run us there), and a background vkernel is not the one
 * the user is typing to.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/stat.h>

#include "host/cons_host.h"
#include "host/hostexit.h"
#include "host/hostlog.h"

static struct termios saved;
static int saved_ok;		/* 1 while the terminal may be raw */
static void (*drain_fn)(void);

static bool
in_front(void)
{
	return tcgetpgrp(STDIN_FILENO) == getpgrp();
}

static int
make_raw(void)
{
	struct termios t = saved;
	t.c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR |
	    IGNCR | ICRNL | IXON | IXOFF);
	t.c_oflag &= ~(tcflag_t)OPOST;
	t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
	t.c_cflag &= ~(tcflag_t)(CSIZE | PARENB);
	t.c_cflag |= CS8;
	/* We read only when epoll or poll said there is input. */
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	return tcsetattr(STDIN_FILENO, TCSANOW, &t);
}

void
cons_host_restore(void)
{
	if (__atomic_exchange_n(&saved_ok, 0, __ATOMIC_SEQ_CST))
		(void)tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	host_log_onlcr = 0;
}

void
cons_host_finish(void)
{
	if (drain_fn != NULL)
		drain_fn();
	cons_host_restore();
}

enum cons_mode
cons_host_init(void (*drain)(void))
{
	if (!isatty(STDIN_FILENO))
		return CONS_PIPE;
	if (!in_front() || tcgetattr(STDIN_FILENO, &saved) < 0)
		return CONS_BGTTY;
	drain_fn = drain;
	saved_ok = 1;
	atexit(cons_host_finish);
	(void)host_on_fatal(cons_host_restore);
	if (make_raw() < 0) {
		cons_host_restore();
		return CONS_BGTTY;
	}
	/* The kernel's lines on standard error need the CR OPOST gave. */
	host_log_onlcr = isatty(STDERR_FILENO);
	return CONS_TTY;
}

void
cons_host_resume(void)
{
	/*
	 * Whoever stopped us may have put the terminal back in cooked mode
	 * (a shell does when its job stops).  Only raw if it was raw.
	 */
	if (__atomic_load_n(&saved_ok, __ATOMIC_SEQ_CST) && in_front())
		(void)make_raw();
}

bool
cons_host_winsize(struct winsize *ws)
{
	return ioctl(STDIN_FILENO, TIOCGWINSZ, ws) == 0 ||
	    ioctl(STDOUT_FILENO, TIOCGWINSZ, ws) == 0;
}

ssize_t
cons_host_read(void *buf, size_t n)
{
	struct pollfd pfd = { STDIN_FILENO, POLLIN, 0 };
	for (;;) {
		if (poll(&pfd, 1, 0) <= 0)
			return -EAGAIN;
		ssize_t got = read(STDIN_FILENO, buf, n);
		if (got >= 0)
			return got;
		if (errno != EINTR)
			return -errno;
	}
}

int
cons_host_getc(int timeout_ms)
{
	struct pollfd pfd = { STDIN_FILENO, POLLIN, 0 };
	unsigned char c;

	for (;;) {
		int r = poll(&pfd, 1, timeout_ms);
		if (r == 0)
			return -EAGAIN;
		if (r < 0 && errno == EINTR)
			continue;	/* a tick or a host signal */
		if (r < 0)
			return -EIO;
		ssize_t n = read(STDIN_FILENO, &c, 1);
		if (n == 1)
			return c;
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		return -EIO;
	}
}

int
cons_host_writable(int timeout_ms)
{
	struct pollfd pfd = { STDOUT_FILENO, POLLOUT, 0 };
	int r = poll(&pfd, 1, timeout_ms);
	if (r == 0)
		return 0;
	if (r < 0)
		return 1;	/* interrupted: the write will tell */
	return (pfd.revents & (POLLERR | POLLNVAL)) ? -EIO : 1;
}

ssize_t
cons_host_write(const void *buf, size_t n)
{
	ssize_t w = write(STDOUT_FILENO, buf, n);
	return w < 0 ? -errno : w;
}

bool
cons_host_out_blocks(void)
{
	struct stat st;
	return fstat(STDOUT_FILENO, &st) < 0 || !(S_ISREG(st.st_mode) ||
	    (S_ISCHR(st.st_mode) && !isatty(STDOUT_FILENO)));
}

/*
 * Runs inside vkernel, in the foreground of an interactive shell on the
 * console (tests/guest/pty/ptytest.c starts it): the terminal ioctls as
 * a program sees them.  Prints "ttyctl: N failed" at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static int failed;

#define EXPECT(cond) do {						\
	if (!(cond)) {							\
		printf("ttyctl: line %d: %s (errno %d)\n", __LINE__, #cond, errno); \
		failed++;						\
	}								\
} while (0)

/* The raw system call: -errno, not libc's conversions. */
static long
rioctl(int fd, unsigned long cmd, unsigned long arg)
{
	long r = syscall(SYS_ioctl, fd, cmd, arg);
	return r < 0 ? -errno : r;
}

static long
ms_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000 + (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

/* A new session has no controlling terminal and cannot take ours. */
static int
child_new_session(void)
{
	int bad = 0;
	pid_t pgid;
	if (setsid() < 0)
		return 1;
	bad += open("/dev/tty", O_RDWR) != -1 || errno != ENXIO;
	bad += rioctl(0, TIOCGPGRP, (unsigned long)&pgid) != -ENOTTY;
	bad += rioctl(0, TIOCGSID, (unsigned long)&pgid) != -ENOTTY;
	bad += rioctl(0, TIOCSCTTY, 0) != -EPERM;
	/* Opening a terminal that is another session's takes nothing. */
	int fd = open("/dev/console", O_RDWR);
	bad += fd < 0;
	bad += open("/dev/tty", O_RDWR) != -1 || errno != ENXIO;
	/* But it is still a terminal. */
	struct termios t;
	bad += tcgetattr(fd, &t) != 0;
	return bad;
}

int
main(void)
{
	pid_t v;
	int n;

	/* Our session's terminal, with us in front. */
	EXPECT(rioctl(0, TIOCGSID, (unsigned long)&v) == 0 && v == getsid(0));
	EXPECT(rioctl(0, TIOCGPGRP, (unsigned long)&v) == 0 && v == getpgrp());
	EXPECT(tcgetpgrp(1) == getpgrp());
	EXPECT(isatty(0) && isatty(1));
	int fd = open("/dev/tty", O_RDWR);
	EXPECT(fd >= 0);
	EXPECT(rioctl(fd, TIOCGPGRP, (unsigned long)&v) == 0 && v == getpgrp());

	/* TCGETS writes Linux's 36 bytes, no more; bad pointers: EFAULT. */
	unsigned char buf[64];
	memset(buf, 0xa5, sizeof(buf));
	EXPECT(rioctl(0, TCGETS, (unsigned long)buf) == 0);
	EXPECT(buf[36] == 0xa5 && buf[63] == 0xa5);
	EXPECT(buf[17 + VINTR] == 3 && buf[17 + VMIN] == 1);
	EXPECT(rioctl(0, TCGETS, 1) == -EFAULT);
	EXPECT(rioctl(0, TCSETS, 1) == -EFAULT);
	EXPECT(rioctl(0, TIOCGWINSZ, 1) == -EFAULT);
	EXPECT(rioctl(0, 0x54ff, 0) == -ENOTTY);
	EXPECT(rioctl(0, TIOCSPGRP, (unsigned long)&(pid_t){ -1 }) == -EINVAL);
	EXPECT(rioctl(0, TIOCSPGRP, (unsigned long)&(pid_t){ 30000 }) == -ESRCH);
	EXPECT(rioctl(0, TIOCSCTTY, 0) == -EPERM);	/* not a session leader */

	/* The little ones. */
	EXPECT(rioctl(0, FIONREAD, (unsigned long)&n) == 0 && n == 0);
	EXPECT(rioctl(0, TIOCOUTQ, (unsigned long)&n) == 0);
	EXPECT(tcflush(0, TCIFLUSH) == 0);
	EXPECT(rioctl(0, TCFLSH, 9) == -EINVAL);
	EXPECT(tcflow(1, TCOON) == 0);
	EXPECT(tcdrain(1) == 0);
	struct winsize ws;
	EXPECT(ioctl(0, TIOCGWINSZ, &ws) == 0 && ws.ws_row == 30 && ws.ws_col == 100);

	/* Non-canonical through the console: VTIME 2 with no input, 0 at 200 ms. */
	struct termios save, raw;
	EXPECT(tcgetattr(0, &save) == 0);
	raw = save;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 2;
	EXPECT(tcsetattr(0, TCSAFLUSH, &raw) == 0);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	EXPECT(read(0, buf, 1) == 0);
	long ms = ms_since(&t0);
	EXPECT(ms >= 190 && ms < 3000);
	/* O_NONBLOCK with VMIN 1: EAGAIN. */
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	EXPECT(tcsetattr(0, TCSANOW, &raw) == 0);
	int fl = fcntl(0, F_GETFL);
	fcntl(0, F_SETFL, fl | O_NONBLOCK);
	EXPECT(read(0, buf, 1) == -1 && errno == EAGAIN);
	fcntl(0, F_SETFL, fl);
	EXPECT(tcsetattr(0, TCSANOW, &save) == 0);
	struct termios back;
	EXPECT(tcgetattr(0, &back) == 0 && back.c_lflag == save.c_lflag);

	pid_t pid = fork();
	if (pid == 0)
		_exit(child_new_session());
	int st;
	EXPECT(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* A member that is not the leader may give it up: nothing happens. */
	EXPECT(rioctl(0, TIOCNOTTY, 0) == 0);
	EXPECT(rioctl(0, TIOCGPGRP, (unsigned long)&v) == 0);

	printf("ttyctl: %d failed\n", failed);
	return failed != 0;
}

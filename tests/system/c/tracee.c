/*
 * A deterministic program for strace.t: the calls it makes and their
 * results are the same natively and inside, so --strace's lines for them
 * can be compared with strace's own.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

static void
on_usr1(int sig)
{
	(void)sig;
}

/*
 * On a terminal: set its modes to known ones and read them back, cooked
 * then raw, so that the traced termios are the same on any terminal
 * once the first TCGETS (the terminal's own modes) is left out.
 */
static void
terminal(void)
{
	struct termios t;

	if (tcgetattr(0, &t) < 0)
		return;
	t.c_iflag = ICRNL | IXON;
	t.c_oflag = OPOST | ONLCR;
	t.c_cflag = B38400 | CS8 | CREAD;
	t.c_lflag = ISIG | ICANON | ECHO | ECHOE | ECHOK | IEXTEN | ECHOCTL | ECHOKE;
	struct termios cooked = t;
	tcsetattr(0, TCSANOW, &t);
	tcgetattr(0, &t);
	cfmakeraw(&t);
	tcsetattr(0, TCSADRAIN, &t);
	tcgetattr(0, &t);
	tcsetattr(0, TCSAFLUSH, &cooked);
}

int
main(void)
{
	char buf[64];
	struct stat st;

	umask(022);
	int fd = openat(AT_FDCWD, "/tmp/tracee.txt", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return 1;
	if (write(fd, "hello\tworld\n\001\0023", 15) != 15)
		return 1;
	lseek(fd, 0, SEEK_SET);
	if (read(fd, buf, sizeof(buf)) != 15 || fstat(fd, &st) < 0)
		return 1;
	fcntl(fd, F_GETFL);
	fcntl(fd, F_GETFD);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	fcntl(fd, F_GETFD);
	close(fd);
	unlink("/tmp/tracee.txt");
	terminal();
	openat(AT_FDCWD, "/nonexistent/file", O_RDONLY | O_CLOEXEC);
	write(1, "0123456789012345678901234567890123456789\n", 41);
	signal(SIGUSR1, on_usr1);
	kill(getpid(), SIGUSR1);
	/* Queued with values, taken at the unblock; raise's SI_TKILL. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN + 1);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGRTMIN + 1, on_usr1);
	signal(SIGUSR2, on_usr1);
	sigqueue(getpid(), SIGRTMIN + 1, (union sigval){ .sival_int = 5 });
	sigqueue(getpid(), SIGRTMIN + 1, (union sigval){ .sival_int = 0 });
	raise(SIGUSR2);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	return 3;
}

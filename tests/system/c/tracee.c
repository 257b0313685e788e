/*
 * A deterministic program for strace.t: the calls it makes and their
 * results are the same natively and inside, so --strace's lines for them
 * can be compared with strace's own.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

static void
on_usr1(int sig)
{
	(void)sig;
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
	close(fd);
	unlink("/tmp/tracee.txt");
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

/*
 * ioctl's argument moves as the command declares: FIONBIO from a
 * read-only page takes effect and succeeds (it only reads), a command
 * that writes its argument into a read-only page fails with EFAULT, an
 * unknown command is ENOTTY before the pointer is looked at, a bad
 * pointer is EFAULT with nothing changed.  With the argument "tty" (run
 * inside only, where the console is a terminal): TCGETS into a
 * read-only page is EFAULT and leaves the terminal as it was.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <termios.h>
#include <unistd.h>

/* errno by name: musl and glibc spell strerror differently. */
static const char *
ename(int e)
{
	switch (e) {
	case EFAULT: return "EFAULT";
	case ENOTTY: return "ENOTTY";
	case EBADF: return "EBADF";
	case EINVAL: return "EINVAL";
	case EAGAIN: return "EAGAIN";
	}
	return "other";
}

static void
report(const char *what, long r)
{
	if (r < 0)
		printf("%s: -1 %s\n", what, ename(errno));
	else
		printf("%s: %ld\n", what, r);
}

static const char *
nonblock(int fd)
{
	return (fcntl(fd, F_GETFL) & O_NONBLOCK) ? "nonblocking" : "blocking";
}

/* TCGETS into a read-only page of a terminal: EFAULT, termios kept. */
static int
tty_part(void)
{
	struct termios before, after;
	int fail = 0;

	memset(&before, 0, sizeof(before));
	memset(&after, 0, sizeof(after));

	if (!isatty(0)) {
		printf("FAIL stdin is not a terminal\n");
		return 1;
	}
	char *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
	    -1, 0);
	tcgetattr(0, &before);
	errno = 0;
	if (ioctl(0, TCGETS, ro) != -1 || errno != EFAULT) {
		printf("FAIL TCGETS into a read-only page: errno %d\n", errno);
		fail = 1;
	}
	if (ioctl(0, TCGETS, (void *)8) != -1 || errno != EFAULT) {
		printf("FAIL TCGETS to a bad pointer: errno %d\n", errno);
		fail = 1;
	}
	/* TCSETS from a read-only page of zeros: it only reads. */
	errno = 0;
	if (ioctl(0, TCSETS, (void *)8) != -1 || errno != EFAULT) {
		printf("FAIL TCSETS from a bad pointer: errno %d\n", errno);
		fail = 1;
	}
	tcgetattr(0, &after);
	if (before.c_iflag != after.c_iflag || before.c_oflag != after.c_oflag ||
	    before.c_cflag != after.c_cflag || before.c_lflag != after.c_lflag ||
	    memcmp(before.c_cc, after.c_cc, sizeof(before.c_cc)) != 0) {
		printf("FAIL the terminal changed\n");
		fail = 1;
	}
	if (!fail)
		printf("ok TCGETS into a read-only page: EFAULT\n");
	return fail;
}

int
main(int argc, char **argv)
{
	int p[2], n;

	if (argc > 1 && strcmp(argv[1], "tty") == 0)
		return tty_part();
	if (pipe(p) < 0)
		return 1;
	int *ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro[0] = 1;
	mprotect(ro, 4096, PROT_READ);

	report("FIONBIO on, from a read-only page", ioctl(p[0], FIONBIO, ro));
	printf("read end: %s\n", nonblock(p[0]));
	report("read on the empty pipe", read(p[0], &n, 1));
	report("FIONBIO to a bad pointer", ioctl(p[0], FIONBIO, (void *)8));
	printf("read end: %s\n", nonblock(p[0]));
	report("FIOASYNC from a read-only page", ioctl(p[1], FIOASYNC, ro));
	printf("write end O_ASYNC: %d\n", !!(fcntl(p[1], F_GETFL) & O_ASYNC));

	report("FIOCLEX", ioctl(p[0], FIOCLEX));
	printf("FD_CLOEXEC: %d\n", fcntl(p[0], F_GETFD));
	report("FIONCLEX", ioctl(p[0], FIONCLEX));
	printf("FD_CLOEXEC: %d\n", fcntl(p[0], F_GETFD));

	write(p[1], "hello", 5);
	n = -1;
	report("FIONREAD", ioctl(p[0], FIONREAD, &n));
	printf("FIONREAD says %d\n", n);
	report("FIONREAD into a read-only page", ioctl(p[0], FIONREAD, ro));
	printf("page still holds %d\n", ro[0]);
	report("FIONREAD to a bad pointer", ioctl(p[0], FIONREAD, (void *)8));

	report("TCGETS on a pipe, read-only page", ioctl(p[0], TCGETS, ro));
	report("unknown command", ioctl(p[0], 0x5499, &n));
	report("unknown command, bad pointer", ioctl(p[0], 0x12345678, (void *)8));
	report("bad descriptor", ioctl(99, FIONREAD, &n));

	/* A regular file: FIONREAD counts from the offset. */
	int fd = open("ioctls.tmp", O_RDWR | O_CREAT | O_TRUNC, 0600);
	write(fd, "0123456789", 10);
	lseek(fd, 3, SEEK_SET);
	report("FIONREAD on a file", ioctl(fd, FIONREAD, &n));
	printf("FIONREAD says %d\n", n);
	report("TIOCGWINSZ on a file", ioctl(fd, TIOCGWINSZ, ro));
	close(fd);
	unlink("ioctls.tmp");
	fd = open("/dev/null", O_RDWR);
	report("FIONREAD on /dev/null", ioctl(fd, FIONREAD, &n));
	report("FIONBIO on /dev/null", ioctl(fd, FIONBIO, ro));
	printf("/dev/null: %s\n", nonblock(fd));
	return 0;
}

/*
 * Opening /proc/self/fd/N of a pipe end reopens the pipe with the mode
 * asked for, as Linux does (bash's <(...) relies on it): write through a
 * new write end, read through the old read end and the reverse; the
 * pipe's writers count the new end (EOF only when both are closed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int
reopen(int fd, int flags)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	int nfd = open(path, flags);
	if (nfd < 0)
		printf("open %s: errno %s\n", flags == O_RDONLY ? "O_RDONLY" :
		    "O_WRONLY", errno == ENXIO ? "ENXIO" : errno == ENOENT ?
		    "ENOENT" : "other");
	return nfd;
}

int
main(void)
{
	int p[2];
	char buf[32];
	struct stat a, b;

	signal(SIGPIPE, SIG_IGN);
	if (pipe(p) < 0)
		return 1;
	int r2 = reopen(p[0], O_RDONLY);
	int w2 = reopen(p[1], O_WRONLY);
	if (r2 < 0 || w2 < 0)
		return 1;
	fstat(p[0], &a);
	fstat(w2, &b);
	printf("same pipe: %d, fifo: %d\n", a.st_ino == b.st_ino &&
	    a.st_dev == b.st_dev, S_ISFIFO(b.st_mode));
	printf("modes: %#x %#x\n", fcntl(r2, F_GETFL) & O_ACCMODE,
	    fcntl(w2, F_GETFL) & O_ACCMODE);

	printf("write new: %zd\n", write(w2, "through", 7));
	ssize_t n = read(p[0], buf, sizeof(buf));
	printf("read old: %zd %.*s\n", n, (int)(n > 0 ? n : 0), buf);
	printf("write old: %zd\n", write(p[1], "back", 4));
	n = read(r2, buf, sizeof(buf));
	printf("read new: %zd %.*s\n", n, (int)(n > 0 ? n : 0), buf);

	/* The original write end goes; the new one keeps the pipe open. */
	close(p[1]);
	write(w2, "x", 1);
	close(w2);
	n = read(p[0], buf, sizeof(buf));
	printf("after closing both writers: %zd, then %zd\n", n,
	    read(p[0], buf, sizeof(buf)));
	return 0;
}

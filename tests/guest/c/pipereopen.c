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
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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

	/*
	 * stat and statx follow the link to the pipe; open with O_CREAT
	 * (a shell's "> /dev/fd/N") reopens it too; lstat sees the link.
	 */
	int q[2];
	char path[64];
	if (pipe(q) < 0)
		return 1;
	snprintf(path, sizeof(path), "/dev/fd/%d", q[1]);
	fstat(q[1], &a);
	printf("stat: %d", stat(path, &b));
	printf(", same pipe: %d\n", a.st_ino == b.st_ino && S_ISFIFO(b.st_mode));
	/* struct statx by hand (musl's headers may lack it): mode, ino. */
	unsigned char sx[256];
	uint16_t sxmode;
	uint64_t sxino;
	printf("statx: %ld", syscall(SYS_statx, AT_FDCWD, path, 0, 0x7ff, sx));
	memcpy(&sxmode, sx + 0x1c, sizeof(sxmode));
	memcpy(&sxino, sx + 0x20, sizeof(sxino));
	printf(", same pipe: %d\n", sxino == a.st_ino && S_ISFIFO(sxmode));
	printf("lstat: %d", lstat(path, &b));
	printf(", link: %d\n", S_ISLNK(b.st_mode));
	int w3 = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	printf("open O_CREAT: %s\n", w3 >= 0 ? "ok" : strerror(errno));
	printf("write: %zd\n", write(w3, "created", 7));
	n = read(q[0], buf, sizeof(buf));
	printf("read: %zd %.*s\n", n, (int)(n > 0 ? n : 0), buf);
	printf("O_EXCL: %s\n", open(path, O_WRONLY | O_CREAT | O_EXCL, 0666) < 0 ?
	    strerror(errno) : "opened");
	return 0;
}

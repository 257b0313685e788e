/*
 * splice, tee and vmsplice against Linux: file to pipe (at an offset
 * given, which advances, and at the file's own), pipe to file, pipe to
 * pipe, a socket's bytes through a pipe, tee's copy that leaves the
 * input as it was, vmsplice both ways, the end of file, and the errors
 * (which ends may be what, offsets on pipes, one pipe on both sides,
 * O_APPEND, bad flags, non-blocking, a pipe without readers).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "report.h"

static char data[200000];

/* Reads n bytes of fd and says whether they are data[from...]. */
static void
expect(const char *what, int fd, size_t n, size_t from)
{
	static char buf[200000];
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	printf("%s: %zu bytes, %s\n", what, got,
	    got == n && memcmp(buf, data + from, n) == 0 ? "same" : "DIFFERENT");
}

static void
file_and_pipe(void)
{
	int fd = open("splice.dat", O_RDWR | O_CREAT | O_TRUNC, 0600);
	report("write file", write(fd, data, sizeof(data)));
	int p[2];
	pipe(p);

	loff_t off = 10;
	report("splice file at 10 -> pipe, 50000", splice(fd, &off, p[1], NULL,
	    50000, 0));
	printf("offset now %lld, file's own %ld\n", (long long)off,
	    (long)lseek(fd, 0, SEEK_CUR));
	expect("pipe holds", p[0], 50000, 10);

	lseek(fd, 4096, SEEK_SET);
	report("splice file's own -> pipe, 200000 (a pipe's worth)",
	    splice(fd, NULL, p[1], NULL, 200000, 0));
	printf("file's own offset now %ld\n", (long)lseek(fd, 0, SEEK_CUR));
	expect("pipe holds", p[0], 65536, 4096);

	report("write pipe 30000", write(p[1], data + 7, 30000));
	int out = open("splice.out", O_RDWR | O_CREAT | O_TRUNC, 0600);
	off = 100;
	report("splice pipe -> file at 100", splice(p[0], NULL, out, &off,
	    100000, 0));
	printf("offset now %lld, file's own %ld\n", (long long)off,
	    (long)lseek(out, 0, SEEK_CUR));
	lseek(out, 100, SEEK_SET);
	expect("file holds", out, 30000, 7);

	report("write pipe 1000", write(p[1], data + 3, 1000));
	report("splice pipe -> file's own, 400 of it", splice(p[0], NULL, out,
	    NULL, 400, 0));
	printf("file's own offset now %ld\n", (long)lseek(out, 0, SEEK_CUR));
	lseek(out, 30100, SEEK_SET);
	expect("file holds", out, 400, 3);
	expect("pipe keeps the rest", p[0], 600, 403);

	off = 1000000;
	report("splice file past its end -> pipe", splice(fd, &off, p[1], NULL,
	    10, 0));
	close(p[1]);
	report("splice from an empty pipe without writers", splice(p[0], NULL,
	    out, NULL, 10, 0));
	close(p[0]);
	close(fd);
	close(out);
	unlink("splice.dat");
	unlink("splice.out");
}

static void
pipes(void)
{
	int a[2], b[2], c[2];
	pipe(a);
	pipe(b);
	pipe(c);
	report("write a 5000", write(a[1], data + 1, 5000));
	report("tee a -> b, 3000", tee(a[0], b[1], 3000, 0));
	report("tee a -> c, 9000 (all there is)", tee(a[0], c[1], 9000, 0));
	expect("b holds", b[0], 3000, 1);
	expect("c holds", c[0], 5000, 1);
	report("splice a -> b, 2000", splice(a[0], NULL, b[1], NULL, 2000, 0));
	expect("b holds", b[0], 2000, 1);
	expect("a keeps the rest", a[0], 3000, 2001);

	report("tee from an empty pipe, SPLICE_F_NONBLOCK",
	    tee(a[0], b[1], 10, SPLICE_F_NONBLOCK));
	report("splice from an empty pipe, SPLICE_F_NONBLOCK",
	    splice(a[0], NULL, b[1], NULL, 10, SPLICE_F_NONBLOCK));
	fcntl(a[0], F_SETFL, O_NONBLOCK);
	report("splice from an empty O_NONBLOCK pipe",
	    splice(a[0], NULL, b[1], NULL, 10, 0));
	fcntl(a[0], F_SETFL, 0);
	report("tee a -> a", tee(a[0], a[1], 10, 0));
	report("splice a -> a", splice(a[0], NULL, a[1], NULL, 10, 0));
	loff_t off = 0;
	report("splice with an offset on a pipe", splice(a[0], &off, b[1], NULL,
	    10, 0));
	report("splice a's write end -> b", splice(a[1], NULL, b[1], NULL, 10, 0));
	report("splice with flags 0x100", splice(a[0], NULL, b[1], NULL, 10,
	    0x100));
	report("tee with a bad fd", tee(99, b[1], 10, 0));
	report("splice of 0 bytes", splice(a[0], NULL, b[1], NULL, 0, 0));

	signal(SIGPIPE, SIG_IGN);
	report("write a 10", write(a[1], data, 10));
	close(b[0]);
	report("splice to a pipe without readers", splice(a[0], NULL, b[1],
	    NULL, 10, 0));
	close(a[0]);
	close(a[1]);
	close(b[1]);
	close(c[0]);
	close(c[1]);
}

static void
files_and_sockets(void)
{
	int fd = open("splice.dat", O_RDWR | O_CREAT | O_TRUNC, 0600);
	write(fd, data, 1000);
	int g = open("splice.app", O_WRONLY | O_CREAT | O_APPEND, 0600);
	int p[2];
	pipe(p);
	report("splice file -> file", splice(fd, NULL, g, NULL, 10, 0));
	write(p[1], data, 10);
	report("splice pipe -> O_APPEND file", splice(p[0], NULL, g, NULL, 10, 0));
	loff_t off = -1;
	report("splice at a negative offset", splice(fd, &off, p[1], NULL, 10, 0));
	report("splice from a write-only file", splice(g, NULL, p[1], NULL, 10, 0));
	report("splice with an offset pointer that faults",
	    splice(fd, (loff_t *)8, p[1], NULL, 10, 0));
	report("tee file -> pipe", tee(fd, p[1], 10, 0));

	int sv[2];
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	report("splice socket at offset -1", splice(sv[0], &off, p[1], NULL,
	    10, 0));
	off = 0;
	report("splice socket at offset 0", splice(sv[0], &off, p[1], NULL,
	    10, 0));
	report("write socket 700", write(sv[0], data + 50, 700));
	report("splice socket -> pipe", splice(sv[1], NULL, p[1], NULL, 65536, 0));
	report("splice pipe -> socket", splice(p[0], NULL, sv[1], NULL, 65536, 0));
	expect("pipe's 10, then the socket's 700: first", sv[0], 10, 0);
	expect("then", sv[0], 700, 50);
	off = 0;
	report("splice file -> pipe -> socket, as sendfile",
	    splice(fd, &off, p[1], NULL, 1000, 0));
	report("", splice(p[0], NULL, sv[0], NULL, 1000, 0));
	expect("socket holds", sv[1], 1000, 0);
	close(sv[0]);
	close(sv[1]);
	close(p[0]);
	close(p[1]);
	close(fd);
	close(g);
	unlink("splice.dat");
	unlink("splice.app");
}

static void
vmsplice_calls(void)
{
	int p[2];
	pipe(p);
	struct iovec iov[2] = { { data, 3000 }, { data + 3000, 2000 } };
	report("vmsplice 2 pieces into the write end", vmsplice(p[1], iov, 2, 0));
	char buf[6000];
	struct iovec in[2] = { { buf, 1000 }, { buf + 1000, 5000 } };
	report("vmsplice out of the read end", vmsplice(p[0], in, 2, 0));
	printf("they are %s\n", memcmp(buf, data, 5000) == 0 ? "same" : "DIFFERENT");
	report("vmsplice from an empty pipe, SPLICE_F_NONBLOCK",
	    vmsplice(p[0], in, 1, SPLICE_F_NONBLOCK));
	report("vmsplice of no pieces", vmsplice(p[1], iov, 0, 0));
	struct iovec bad = { (void *)8, 10 };
	report("vmsplice of a piece that faults", vmsplice(p[1], &bad, 1, 0));
	int fd = open("splice.dat", O_RDWR | O_CREAT | O_TRUNC, 0600);
	report("vmsplice on a file", vmsplice(fd, iov, 1, 0));
	report("vmsplice with flags 0x100", vmsplice(p[1], iov, 1, 0x100));
	close(fd);
	unlink("splice.dat");
	close(p[0]);
	close(p[1]);
}

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (char)(i * 7 + i / 251);
	file_and_pipe();
	pipes();
	files_and_sockets();
	vmsplice_calls();
	return 0;
}

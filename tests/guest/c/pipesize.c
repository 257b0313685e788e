/*
 * F_GETPIPE_SZ and F_SETPIPE_SZ: the default capacity, rounding to a
 * power of two pages, the limits, EBUSY below the bytes held, the data
 * kept across a resize, and what a full pipe then takes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"

static char buf[1 << 21];

/* Writes without blocking until the pipe is full: the bytes taken. */
static long
fill(int fd)
{
	long total = 0, n;
	while ((n = write(fd, buf, 65536)) > 0)
		total += n;
	return total;
}

static long
drain(int fd)
{
	long total = 0, n;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += n;
	return total;
}

int
main(void)
{
	int p[2];
	pipe2(p, O_NONBLOCK);
	report("default", fcntl(p[0], F_GETPIPE_SZ));
	report("set 0", fcntl(p[1], F_SETPIPE_SZ, 0));
	report("get from the other end", fcntl(p[0], F_GETPIPE_SZ));
	report("takes", fill(p[1]));
	report("drained", drain(p[0]));
	report("set 5000", fcntl(p[1], F_SETPIPE_SZ, 5000));
	report("set 100000", fcntl(p[1], F_SETPIPE_SZ, 100000));
	report("takes", fill(p[1]));
	report("set 4096 when full", fcntl(p[1], F_SETPIPE_SZ, 4096));
	report("drained", drain(p[0]));
	report("set 1 MiB", fcntl(p[1], F_SETPIPE_SZ, 1 << 20));
	report("set 2 MiB", fcntl(p[1], F_SETPIPE_SZ, 2 << 20));
	report("set 2^31 + 1", fcntl(p[1], F_SETPIPE_SZ, (1u << 31) + 1));
	report("get", fcntl(p[1], F_GETPIPE_SZ));

	/* The bytes survive a resize, wrapped around the ring or not. */
	fcntl(p[1], F_SETPIPE_SZ, 65536);
	for (int round = 0; round < 2; round++) {
		char out[60000], in[60000];
		for (int i = 0; i < (int)sizeof(out); i++)
			out[i] = (char)(i * 7 + round);
		write(p[1], out, 40000);
		read(p[0], in, 30000);		/* the head moves on */
		write(p[1], out + 40000, 20000);	/* and the data wraps */
		report("shrink below the bytes held", fcntl(p[1], F_SETPIPE_SZ, 16384));
		report("shrink to 32768", fcntl(p[1], F_SETPIPE_SZ, 32768));
		long n = read(p[0], in + 30000, 30000);
		printf("read back %ld, same: %d\n", n, memcmp(in, out, 60000) == 0);
		report("grow to 131072", fcntl(p[1], F_SETPIPE_SZ, 131072));
		report("grow when empty", fcntl(p[1], F_SETPIPE_SZ, 262144));
		fcntl(p[1], F_SETPIPE_SZ, 65536);
	}

	int fd = open("pipesize.tmp", O_CREAT | O_RDWR, 0600);
	report("a regular file", fcntl(fd, F_GETPIPE_SZ));
	report("set on a regular file", fcntl(fd, F_SETPIPE_SZ, 4096));
	close(fd);
	unlink("pipesize.tmp");
	mkfifo("pipesize.fifo", 0600);
	fd = open("pipesize.fifo", O_RDWR | O_NONBLOCK);
	report("fifo", fcntl(fd, F_GETPIPE_SZ));
	report("fifo set 8192", fcntl(fd, F_SETPIPE_SZ, 8192));
	report("fifo takes", fill(fd));
	close(fd);
	unlink("pipesize.fifo");
	return 0;
}

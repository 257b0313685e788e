/*
 * copy_file_range: a copy at given offsets and at the descriptors',
 * stopping at the input's end, within one file, and its refusals
 * (flags, modes, O_APPEND, directories, pipes, overlap, negative
 * offsets, across file systems).  Run in a scratch directory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "report.h"

static long
cfr(int in, long long *oin, int out, long long *oout, size_t len, unsigned flags)
{
	return syscall(SYS_copy_file_range, in, oin, out, oout, len, flags);
}

static void
show(const char *what, const char *path)
{
	char buf[256];
	int fd = open(path, O_RDONLY);
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n < 0 ? 0 : n] = 0;
	printf("%s: \"%s\"\n", what, buf);
}

int
main(void)
{
	int a = open("cfr.a", O_RDWR | O_CREAT | O_TRUNC, 0644);
	int b = open("cfr.b", O_RDWR | O_CREAT | O_TRUNC, 0644);
	write(a, "0123456789abcdefghij", 20);
	long long oi = 5, oo = 2;
	report("at offsets", cfr(a, &oi, b, &oo, 6, 0));
	printf("offsets now %lld %lld, a at %ld, b at %ld\n", oi, oo,
	    (long)lseek(a, 0, SEEK_CUR), (long)lseek(b, 0, SEEK_CUR));
	show("b", "cfr.b");
	lseek(a, 15, SEEK_SET);
	lseek(b, 0, SEEK_SET);
	report("at the descriptors, past the end", cfr(a, NULL, b, NULL, 100, 0));
	printf("a at %ld, b at %ld\n", (long)lseek(a, 0, SEEK_CUR), (long)lseek(b, 0, SEEK_CUR));
	show("b", "cfr.b");
	report("at the end", cfr(a, NULL, b, NULL, 100, 0));
	report("length 0", cfr(a, NULL, b, NULL, 0, 0));
	oi = 0, oo = 10;
	report("within one file", cfr(a, &oi, a, &oo, 5, 0));
	show("a", "cfr.a");
	oi = 0, oo = 3;
	report("overlap", cfr(a, &oi, a, &oo, 5, 0));
	oi = 0, oo = 3;
	report("overlap past the end", cfr(a, &oi, a, &oo, 500, 0));
	report("flags", cfr(a, NULL, b, NULL, 1, 1));
	oi = -1;
	report("negative offset", cfr(a, &oi, b, NULL, 1, 0));
	oo = -1;
	report("negative output offset", cfr(a, NULL, b, &oo, 1, 0));
	oi = 0x7fffffffffffff00LL;
	report("huge offset", cfr(a, &oi, b, NULL, 0x1000, 0));
	int ro = open("cfr.b", O_RDONLY), wo = open("cfr.a", O_WRONLY);
	int ap = open("cfr.b", O_WRONLY | O_APPEND);
	report("output read-only", cfr(a, NULL, ro, NULL, 1, 0));
	report("input write-only", cfr(wo, NULL, b, NULL, 1, 0));
	report("output O_APPEND", cfr(a, NULL, ap, NULL, 1, 0));
	report("bad descriptor", cfr(99, NULL, b, NULL, 1, 0));
	int d = open(".", O_RDONLY | O_DIRECTORY);
	report("directory in", cfr(d, NULL, b, NULL, 1, 0));
	int p[2];
	pipe(p);
	report("pipe out", cfr(a, NULL, p[1], NULL, 1, 0));
	report("pipe in", cfr(p[0], NULL, b, NULL, 1, 0));
	int shm = open("/dev/shm/cfr.c", O_RDWR | O_CREAT | O_TRUNC, 0644);
	report("across file systems", cfr(a, NULL, shm, NULL, 1, 0));
	unlink("/dev/shm/cfr.c");
	unlink("cfr.a");
	unlink("cfr.b");
	return 0;
}

/*
 * creat, and the positioned vector calls: preadv, pwritev and their "2"
 * forms (offset -1: the file's own offset; flags), with their errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "report.h"

#ifndef RWF_HIPRI
#define RWF_HIPRI	0x01
#define RWF_DSYNC	0x02
#define RWF_SYNC	0x04
#endif

static long
prw2(long nr, int fd, struct iovec *iov, int cnt, long off, long flags)
{
	return syscall(nr, fd, iov, cnt, off, 0L, flags);
}

int
main(void)
{
	char a[4], b[6], whole[32];
	struct iovec iov[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	struct stat st;

	umask(022);
	int fd = (int)syscall(SYS_creat, "vio.tmp", 0640);
	report("creat", fd >= 0 ? 0 : -1);
	fstat(fd, &st);
	printf("mode %o size %lld\n", st.st_mode & 07777, (long long)st.st_size);
	report("creat gives a write-only fd (read)", read(fd, whole, 1));
	report("write", write(fd, "0123456789abcdefghij", 20));
	close(fd);
	fd = (int)syscall(SYS_creat, "vio.tmp", 0600);	/* truncates; keeps the mode */
	fstat(fd, &st);
	printf("again: mode %o size %lld\n", st.st_mode & 07777, (long long)st.st_size);
	close(fd);
	report("creat in a missing directory", syscall(SYS_creat, "nodir/x", 0600));

	fd = open("vio.tmp", O_RDWR);
	report("write", write(fd, "0123456789abcdefghij", 20));
	lseek(fd, 0, SEEK_SET);
	memcpy(a, "ABCD", 4);
	memcpy(b, "EFGHIJ", 6);
	report("pwritev at 5", pwritev(fd, iov, 2, 5));
	report("offset after pwritev", lseek(fd, 0, SEEK_CUR));
	memset(whole, 0, sizeof(whole));
	report("pread", pread(fd, whole, sizeof(whole) - 1, 0));
	printf("file: %s\n", whole);
	memset(a, 0, 4);
	memset(b, 0, 6);
	report("preadv at 3", preadv(fd, iov, 2, 3));
	printf("got %.4s|%.6s\n", a, b);
	report("preadv at 100", preadv(fd, iov, 2, 100));
	report("preadv at -1", preadv(fd, iov, 2, -1));
	report("preadv2 at -1 (file offset)", prw2(SYS_preadv2, fd, iov, 2, -1, 0));
	printf("got %.4s|%.6s\n", a, b);
	report("offset after preadv2 -1", lseek(fd, 0, SEEK_CUR));
	report("pwritev2 at -1 (file offset)", prw2(SYS_pwritev2, fd, iov, 1, -1, 0));
	report("offset after pwritev2 -1", lseek(fd, 0, SEEK_CUR));
	report("pwritev2 RWF_DSYNC at 0", prw2(SYS_pwritev2, fd, iov, 1, 0, RWF_DSYNC));
	report("pwritev2 RWF_SYNC at 0", prw2(SYS_pwritev2, fd, iov, 1, 0, RWF_SYNC));
	report("preadv2 RWF_HIPRI at 0", prw2(SYS_preadv2, fd, iov, 1, 0, RWF_HIPRI));
	report("preadv2 bad flags", prw2(SYS_preadv2, fd, iov, 1, 0, 0x1000));
	report("preadv2 at -2", prw2(SYS_preadv2, fd, iov, 1, -2, 0));
	report("preadv bad iovec", syscall(SYS_preadv, fd, (void *)8, 1, 0L, 0L));
	struct iovec bad = { (void *)8, 4 };
	report("preadv bad buffer", preadv(fd, &bad, 1, 0));
	report("preadv count -1", syscall(SYS_preadv, fd, iov, -1, 0L, 0L));
	report("preadv count 1025", syscall(SYS_preadv, fd, iov, 1025, 0L, 0L));
	report("preadv count 0", preadv(fd, iov, 0, 0));
	report("preadv bad fd", preadv(99, iov, 2, 0));
	close(fd);
	fd = open("vio.tmp", O_RDONLY);
	report("pwritev on a read-only fd", pwritev(fd, iov, 2, 0));
	close(fd);

	int p[2];
	pipe(p);
	report("pwritev on a pipe", pwritev(p[1], iov, 2, 0));
	report("pwritev2 -1 on a pipe", prw2(SYS_pwritev2, p[1], iov, 2, -1, 0));
	report("preadv2 -1 on a pipe", prw2(SYS_preadv2, p[0], iov, 2, -1, 0));
	unlink("vio.tmp");
	return 0;
}

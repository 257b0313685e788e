/*
 * posix_fadvise: accepted on files and devices, ESPIPE on a pipe, EBADF,
 * EINVAL for a bad advice or a negative length.  (posix_fadvise returns
 * the error rather than setting errno.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void
try(const char *what, int fd, long off, long len, int advice)
{
	long r = syscall(SYS_fadvise64, fd, off, len, advice);
	printf("%s: %s\n", what, r == 0 ? "0" : strerror(errno));
}

int
main(void)
{
	int fd = open("fadvise.tmp", O_RDWR | O_CREAT | O_TRUNC, 0600);
	int p[2];

	if (fd < 0 || pipe(p) < 0)
		return 1;
	write(fd, "data", 4);
	for (int a = POSIX_FADV_NORMAL; a <= POSIX_FADV_NOREUSE; a++)
		try("file", fd, 0, 0, a);
	try("file range", fd, 4096, 1 << 20, POSIX_FADV_DONTNEED);
	try("bad advice", fd, 0, 0, 6);
	try("negative advice", fd, 0, 0, -1);
	try("negative length", fd, 0, -1, POSIX_FADV_NORMAL);
	try("pipe", p[0], 0, 0, POSIX_FADV_NORMAL);
	try("pipe bad advice", p[0], 0, 0, 6);
	try("closed", 99, 0, 0, POSIX_FADV_NORMAL);
	int null = open("/dev/null", O_RDONLY);
	try("/dev/null", null, 0, 0, POSIX_FADV_SEQUENTIAL);
	printf("posix_fadvise pipe: %s\n", strerror(posix_fadvise(p[1], 0, 0, 0)));
	unlink("fadvise.tmp");
	return 0;
}

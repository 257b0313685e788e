/*
 * fallocate(2): mode 0 allocates and extends, FALLOC_FL_KEEP_SIZE
 * allocates past the end without extending; the errors in Linux's order
 * for bad ranges, unknown modes, read-only descriptors, pipes and
 * devices.  (On ext2 Linux has no fallocate: EOPNOTSUPP, not run here.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void
try(const char *what, int fd, int mode, off_t off, off_t len)
{
	int r = fallocate(fd, mode, off, len);
	printf("%s: %s\n", what, r == 0 ? "ok" : strerror(errno));
}

static void
show(int fd)
{
	struct stat st;
	fstat(fd, &st);
	printf("  size %lld, allocated at least that: %d\n", (long long)st.st_size,
	    (long long)st.st_blocks * 512 >= st.st_size);
}

int
main(void)
{
	char buf[100];
	int p[2];

	int fd = open("falloc.f", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || pipe(p) < 0)
		return 1;
	try("mode 0", fd, 0, 0, 10000);
	show(fd);
	printf("  reads zeros: %d\n", pread(fd, buf, sizeof(buf), 5000) == 100 &&
	    buf[0] == 0 && buf[99] == 0);
	try("keep size", fd, FALLOC_FL_KEEP_SIZE, 8192, 65536);
	show(fd);
	try("inside", fd, 0, 100, 200);
	show(fd);
	try("grow again", fd, 0, 20000, 1);
	show(fd);
	try("len 0", fd, 0, 0, 0);
	try("negative offset", fd, 0, -1, 10);
	try("unknown mode", fd, 0x100, 0, 10);
	try("punch without keep size", fd, FALLOC_FL_PUNCH_HOLE, 0, 10);
	int ro = open("falloc.f", O_RDONLY);
	try("read-only", ro, 0, 0, 10);
	try("pipe write end", p[1], 0, 0, 10);
	try("pipe read end", p[0], 0, 0, 10);
	int null = open("/dev/null", O_WRONLY);
	try("/dev/null", null, 0, 0, 10);
	try("bad fd", 99, 0, 0, 10);
	close(ro);
	close(null);
	close(fd);
	unlink("falloc.f");
	return 0;
}

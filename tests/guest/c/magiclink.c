/*
 * /proc/self/fd/N followed as Linux follows it: to the open file itself,
 * wherever it lies (a file deep below the cwd, whose path the kernel
 * may not rebuild), even once removed; through a directory's link to
 * the names in it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"

static void
readback(const char *link)
{
	char buf[64] = { 0 };
	int fd = open(link, O_RDONLY);
	report("open", fd >= 0);
	report("read", read(fd, buf, sizeof(buf) - 1));
	printf("%s\n", buf);
	close(fd);
}

int
main(void)
{
	char link[64], sub[96];
	struct stat st;

	mkdir("ml.d", 0755);
	mkdir("ml.d/sub", 0755);
	int fd = open("ml.d/sub/f", O_CREAT | O_RDWR | O_TRUNC, 0644);
	write(fd, "deep file", 9);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	readback(link);
	report("stat", stat(link, &st));
	printf("size %lld mode %o\n", (long long)st.st_size, st.st_mode & 07777);
	report("chmod", chmod(link, 0600));
	fstat(fd, &st);
	printf("mode now %o\n", st.st_mode & 07777);
	report("truncate", truncate(link, 4));
	unlink("ml.d/sub/f");
	readback(link);
	close(fd);

	int d = open("ml.d", O_RDONLY | O_DIRECTORY);
	snprintf(sub, sizeof(sub), "/proc/self/fd/%d/sub", d);
	report("stat through a directory's link", stat(sub, &st));
	printf("is dir %d\n", S_ISDIR(st.st_mode));
	snprintf(sub, sizeof(sub), "/proc/self/fd/%d/new", d);
	int n = open(sub, O_CREAT | O_WRONLY, 0644);
	report("create through it", n >= 0);
	close(n);
	report("and it is there", access("ml.d/new", F_OK));
	close(d);
	unlink("ml.d/new");
	rmdir("ml.d/sub");
	report("rmdir", rmdir("ml.d"));
	return 0;
}

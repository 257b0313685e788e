/*
 * getdents64's records are packed as Linux packs them: each is its
 * name's length plus the 19 bytes before d_name plus the NUL, rounded up
 * to 8 (not the padded size of the struct).  Printed sorted by name,
 * since the order of entries is each file system's own.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *const names[] = {
	"a", "bb", "ccccc", "dddddd", "eeeeeee", "ffffffffffffffffffff",
};

static int
bystr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
main(void)
{
	char path[64], buf[4096], *lines[16];
	int n = 0;

	if (mkdir("reclen.d", 0700) < 0)
		return 1;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "reclen.d/%s", names[i]);
		close(open(path, O_CREAT | O_WRONLY, 0600));
	}
	int fd = open("reclen.d", O_RDONLY | O_DIRECTORY);
	long r = syscall(SYS_getdents64, fd, buf, sizeof(buf));
	for (long off = 0; off < r && n < 16;) {
		struct dirent64 *d = (void *)(buf + off);
		if (asprintf(&lines[n++], "%s %d", d->d_name, d->d_reclen) < 0)
			return 1;
		off += d->d_reclen;
	}
	qsort(lines, (size_t)n, sizeof(lines[0]), bystr);
	for (int i = 0; i < n; i++)
		printf("%s\n", lines[i]);
	printf("getdents64: %ld bytes\n", r);
	close(fd);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "reclen.d/%s", names[i]);
		unlink(path);
	}
	rmdir("reclen.d");
	return 0;
}

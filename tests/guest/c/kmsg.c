/*
 * /dev/kmsg as a reader finds it, without writing to it (natively this
 * is the host's log): each read is one record "prio,seq,usec,flags;text",
 * sequence numbers rise, a buffer too small for a record is EINVAL,
 * lseek takes only offset 0 and SEEK_SET, SEEK_END, SEEK_DATA; a write
 * larger than a record is EINVAL, and nobody may not open it to read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

/* Whether buf[0..n) is one record; its sequence number in *seq. */
static int
record_ok(const char *buf, long n, unsigned long long *seq)
{
	unsigned prio;
	unsigned long long usec;
	char flag;
	int at = 0;
	if (n <= 0 || buf[n - 1] != '\n' || memchr(buf, '\n', (size_t)n) != buf + n - 1)
		return 0;
	if (sscanf(buf, "%u,%llu,%llu,%c%n", &prio, seq, &usec, &flag, &at) != 4)
		return 0;
	const char *semi = memchr(buf, ';', (size_t)n);
	return semi != NULL && (flag == '-' || flag == 'c');
}

int
main(void)
{
	static char buf[8192];
	unsigned long long s1 = 0, s2 = 0;

	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	report("open", fd < 0 ? -1 : 0);
	long n = read(fd, buf, sizeof(buf));
	int ok1 = record_ok(buf, n, &s1);
	n = read(fd, buf, sizeof(buf));
	int ok2 = record_ok(buf, n, &s2);
	printf("two records: %d %d, in order: %d\n", ok1, ok2, s2 > s1);
	report("lseek SEEK_SET", lseek(fd, 0, SEEK_SET));
	n = read(fd, buf, sizeof(buf));
	printf("again from the first: %d\n", record_ok(buf, n, &s2) && s2 <= s1);
	report("read 4 bytes", read(fd, buf, 4));
	report("lseek offset 1", lseek(fd, 1, SEEK_SET));
	report("lseek SEEK_CUR", lseek(fd, 0, SEEK_CUR));
	report("lseek SEEK_DATA", lseek(fd, 0, SEEK_DATA));
	report("lseek SEEK_END", lseek(fd, 0, SEEK_END));
	report("write to a read-only open", write(fd, "x\n", 2));
	close(fd);
	fd = open("/dev/kmsg", O_WRONLY);
	memset(buf, 'x', 2000);
	report("write of 2000 bytes", write(fd, buf, 2000));
	report("read from a write-only open", read(fd, buf, sizeof(buf)));
	close(fd);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(1);
		report("nobody: open to read", open("/dev/kmsg", O_RDONLY));
		report("nobody: open /proc/kmsg", open("/proc/kmsg", O_RDONLY));
		fflush(stdout);
		_exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
	printf("nobody: status %d\n", st);
	return 0;
}

/*
 * syslog(2) through klogctl, as dmesg uses it: the buffer's size, reading
 * it whole (lines "<prio>[seconds.micros] text", the newest that fit),
 * the argument checks, and who may do what (dmesg_restrict is 1 on
 * Debian and inside).  Nothing is cleared nor the console level changed:
 * natively this is the host's log.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

/* Whether buf[0..n) is whole lines, each "<prio>[ sssss.uuuuuu] ". */
static int
lines_ok(const char *buf, int n)
{
	if (n == 0 || buf[n - 1] != '\n')
		return 0;
	for (int i = 0; i < n; ) {
		unsigned prio;
		unsigned long sec, usec;
		int at = 0;
		if (sscanf(buf + i, "<%u>[%lu.%6lu] %n", &prio, &sec, &usec, &at) != 3 ||
		    at == 0 || buf[i + at - 2] != ']' || buf[i + at - 9] != '.')
			return 0;
		const char *nl = memchr(buf + i, '\n', (size_t)(n - i));
		i = (int)(nl - buf) + 1;
	}
	return 1;
}

/* The same calls as an unprivileged user. */
static void
as_nobody(void)
{
	static char b[4096];
	if (setgid(65534) < 0 || setuid(65534) < 0)
		_exit(1);
	report("nobody: read all", klogctl(3, b, sizeof(b)));
	report("nobody: size of the buffer", klogctl(10, NULL, 0));
	report("nobody: open", klogctl(1, NULL, 0));
	report("nobody: unread", klogctl(9, NULL, 0));
	report("nobody: clear", klogctl(5, NULL, 0));
	report("nobody: console off", klogctl(6, NULL, 0));
	report("nobody: type 99", klogctl(99, NULL, 0));
	fflush(stdout);
	_exit(0);
}

static char buf[1 << 20];

int
main(void)
{
	int size = klogctl(10, NULL, 0);
	printf("size of the buffer: %s\n", size > 0 ? "positive" : "not");
	report("open", klogctl(1, NULL, 0));
	report("close", klogctl(0, NULL, 0));
	int n = klogctl(3, buf, sizeof(buf));
	printf("read all: %s, whole lines: %d\n", n > 0 ? "some" : "none",
	    n > 0 && lines_ok(buf, n));
	n = klogctl(3, buf, 4096);
	printf("read the last 4096 bytes: %s, whole lines: %d\n",
	    n > 0 && n <= 4096 ? "some" : "wrong", n > 0 && lines_ok(buf, n));
	report("read all, len 0", klogctl(3, buf, 0));
	report("read all, len -1", klogctl(3, buf, -1));
	report("read all, NULL", klogctl(3, NULL, 100));
	report("read all, bad buffer", klogctl(3, (char *)8, 4096));
	report("read, len 0", klogctl(2, buf, 0));
	report("read, NULL", klogctl(2, NULL, 10));
	report("console level 0", klogctl(8, NULL, 0));
	report("console level 9", klogctl(8, NULL, 9));
	printf("unread: %s\n", klogctl(9, NULL, 0) >= 0 ? "a count" : "error");
	report("type 11", klogctl(11, NULL, 0));
	report("type -1", klogctl(-1, NULL, 0));
	/* A small READ_ALL: the newest whole lines, or nothing if one is larger. */
	n = klogctl(3, buf, 200);
	printf("read all, 200 bytes: %s\n", n >= 0 && n <= 200 &&
	    (n == 0 || lines_ok(buf, n)) ? "whole lines" : "wrong");
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		as_nobody();
	int st;
	waitpid(pid, &st, 0);
	printf("nobody: status %d\n", st);
	return 0;
}
